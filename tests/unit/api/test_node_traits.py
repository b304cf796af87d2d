"""A node's traits: /v1/nodes/{node}/traits and the ``traits`` field (1.37)."""

import ddt

from ironic_steps.common import traits
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import objects
from tests import base as tests_base
from tests.unit.api import base

STANDARD = 'HW_CPU_X86_VMX'


@ddt.ddt
class NodeTraitsTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def url(self, *trait):
        return '/'.join(('/v1/nodes/node-1/traits',) + trait)

    def stored(self):
        return objects.Node.get(self.context, self.node.uuid).traits

    def set_stored(self, names):
        node = objects.Node.get(self.context, self.node.uuid)
        node.set_traits(names)

    def test_a_new_node_has_no_traits(self):
        self.assertEqual({'traits': []}, self.get(self.url()).get_json())

    def test_put_replaces_every_trait_and_get_lists_them_sorted(self):
        self.set_stored(['CUSTOM_OLD'])
        response = self.put(self.url(), json={'traits': [
            'CUSTOM_B', STANDARD, 'CUSTOM_A', 'CUSTOM_B']})
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(b'', response.data)
        expected = ['CUSTOM_A', 'CUSTOM_B', STANDARD]
        self.assertEqual({'traits': expected},
                         self.get(self.url()).get_json())
        self.assertEqual(expected, self.stored())

    def test_put_with_an_empty_list_removes_every_trait(self):
        self.set_stored(['CUSTOM_A'])
        self.assertEqual(204, self.put(self.url(),
                                       json={'traits': []}).status_code)
        self.assertEqual([], self.stored())

    def test_put_of_one_trait_adds_it_with_its_location(self):
        self.set_stored(['CUSTOM_A'])
        response = self.put(self.url('CUSTOM_B'))
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual('http://localhost/v1/nodes/node-1/traits/CUSTOM_B',
                         response.headers['Location'])
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], self.stored())

    def test_adding_a_trait_the_node_has_changes_nothing(self):
        self.set_stored(['CUSTOM_A'])
        self.assertEqual(204, self.put(self.url('CUSTOM_A')).status_code)
        self.assertEqual(['CUSTOM_A'], self.stored())

    def test_delete_of_one_trait_removes_only_it(self):
        self.set_stored(['CUSTOM_A', 'CUSTOM_B'])
        response = self.delete(self.url('CUSTOM_A'))
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(['CUSTOM_B'], self.stored())

    def test_removing_a_trait_the_node_lacks_is_404_naming_it(self):
        self.set_stored(['CUSTOM_A'])
        self.assertError(self.delete(self.url('CUSTOM_B')), 404,
                         'CUSTOM_B', self.node.uuid)
        self.assertEqual(['CUSTOM_A'], self.stored())

    def test_delete_of_all_traits_removes_them_all(self):
        self.set_stored(['CUSTOM_A', 'CUSTOM_B'])
        self.assertEqual(204, self.delete(self.url()).status_code)
        self.assertEqual([], self.stored())

    def test_traits_are_reached_by_uuid_too(self):
        self.set_stored(['CUSTOM_A'])
        listed = self.get('/v1/nodes/%s/traits' % self.node.uuid)
        self.assertEqual(['CUSTOM_A'], listed.get_json()['traits'])

    @ddt.data('get', 'put', 'delete')
    def test_the_traits_of_an_unknown_node_are_404(self, method):
        response = getattr(self, method)('/v1/nodes/no-such-node/traits',
                                         json={'traits': []})
        self.assertError(response, 404, 'no-such-node')

    @ddt.data(
        # (body, words the 400 must say)
        ({'traits': ['CUSTOM_A', 'custom_b']}, ['traits', "'custom_b'"]),
        ({'traits': ['CUSTOM_A', 'NOT_A_TRAIT']}, ['NOT_A_TRAIT', 'CUSTOM_']),
        ({'traits': ['CUSTOM_' + 'X' * 249]}, ['traits', 'longer']),
        ({'traits': [7]}, ['traits', '7']),
        ({'traits': 'CUSTOM_A'}, ['traits', 'list']),
        ({'traits': ['CUSTOM_A'], 'more': 1}, ['{"traits": [...]}']),
        ({}, ['{"traits": [...]}']),
        (['CUSTOM_A'], ['{"traits": [...]}']),
        (None, ['{"traits": [...]}']),
    )
    @ddt.unpack
    def test_an_invalid_replacement_is_400_and_changes_nothing(
            self, request_body, fragments):
        self.set_stored(['CUSTOM_KEEP'])
        response = self.put(self.url(), json=request_body)
        self.assertError(response, 400, *fragments)
        self.assertEqual(['CUSTOM_KEEP'], self.stored())

    @ddt.data('custom_a', 'CUSTOM_', 'NOT_A_TRAIT', 'CUSTOM_A-B')
    def test_adding_an_invalid_trait_is_400_naming_it(self, trait):
        self.assertError(self.put(self.url(trait)), 400, trait, 'CUSTOM_')
        self.assertEqual([], self.stored())

    def test_adding_one_trait_takes_no_body(self):
        self.assertError(self.put(self.url('CUSTOM_A'),
                                  json={'traits': ['CUSTOM_B']}), 400,
                         'no body')
        self.assertEqual([], self.stored())

    def test_a_node_has_at_most_50_traits(self):
        fifty = ['CUSTOM_T%02d' % i for i in range(traits.MAX_PER_NODE)]
        self.assertEqual(204, self.put(self.url(),
                                       json={'traits': fifty}).status_code)
        self.assertError(self.put(self.url('CUSTOM_ONE_MORE')), 400,
                         '51', '50', self.node.uuid)
        self.assertError(self.put(self.url(), json={
            'traits': fifty + ['CUSTOM_ONE_MORE']}), 400, '51', '50')
        self.assertEqual(fifty, self.stored())

    def test_a_locked_node_is_409_and_keeps_its_traits(self):
        objects.Node.reserve(self.context, 'other-conductor', self.node.id)
        self.config(node_locked_retry_attempts=1, group='conductor')
        self.assertError(self.put(self.url('CUSTOM_A')), 409,
                         'other-conductor')
        self.assertError(self.delete(self.url()), 409, 'other-conductor')
        self.assertEqual([], self.stored())

    def test_traits_change_in_any_provision_state(self):
        node = self.make_available(name='ready')
        self.assertEqual(204, self.put('/v1/nodes/ready/traits/CUSTOM_A')
                         .status_code)
        self.assertEqual(['CUSTOM_A'], objects.Node.get(
            self.context, node.uuid).traits)


@ddt.ddt
class TraitsFieldTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')
        self.node.set_traits(['CUSTOM_B', 'CUSTOM_A'])

    def test_a_node_shows_its_traits_from_1_37(self):
        shown = self.get('/v1/nodes/node-1', version='1.37').get_json()
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], shown['traits'])
        self.assertNotIn('traits',
                         self.get('/v1/nodes/node-1', version='1.36')
                         .get_json())

    def test_asking_for_traits_before_1_37_is_406(self):
        self.assertError(self.get('/v1/nodes/node-1?fields=traits',
                                  version='1.36'), 406, 'traits', '1.37')

    def test_a_node_without_traits_shows_an_empty_list(self):
        self.create_node(name='bare')
        self.assertEqual([], self.get('/v1/nodes/bare').get_json()['traits'])

    @ddt.data('/v1/nodes/detail', '/v1/nodes?fields=name,traits')
    def test_lists_show_each_nodes_traits(self, url):
        self.create_node(name='bare')
        listed = self.get(url).get_json()['nodes']
        self.assertEqual({'node-1': ['CUSTOM_A', 'CUSTOM_B'], 'bare': []},
                         {n['name']: n['traits'] for n in listed})

    def test_the_answers_to_changes_show_traits_too(self):
        patched = self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/extra/a', 'value': 1}]).get_json()
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], patched['traits'])
        self.assertEqual([], self.api_create()['traits'])

    def test_a_list_of_many_nodes_reads_their_traits_in_the_same_query(self):
        for i in range(20):
            self.create_node(name='n-%d' % i).set_traits(['CUSTOM_%d' % i])
        with tests_base.SQLStatements() as recorded:
            listed = self.get('/v1/nodes/detail').get_json()['nodes']
        self.assertEqual(21, len(listed))
        # The nodes with their traits, then the page's allocations: two
        # queries whatever the number of nodes
        self.assertEqual(['SELECT', 'SELECT'], recorded.verbs())
        with tests_base.SQLStatements() as recorded:
            self.get('/v1/nodes/n-3')
        # (The node with its traits and its allocation.)
        self.assertEqual(['SELECT'], recorded.verbs())

    def test_traits_are_read_only_when_shown(self):
        with tests_base.SQLStatements() as recorded:
            self.get('/v1/nodes/node-1', version='1.36')
            self.get('/v1/nodes/detail', version='1.36')
            self.get('/v1/nodes?fields=name')
        self.assertNotIn('node_traits', ' '.join(recorded.statements))

    @ddt.data([{'op': 'add', 'path': '/traits', 'value': ['CUSTOM_C']}],
              [{'op': 'remove', 'path': '/traits/0'}])
    def test_traits_cannot_be_patched(self, ops):
        self.assertError(self.patch('/v1/nodes/node-1', json=ops), 400,
                         'traits', 'read-only')
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], objects.Node.get(
            self.context, 'node-1').traits)

    def test_traits_cannot_be_set_on_create(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'traits': ['CUSTOM_A']})
        self.assertError(response, 400, 'traits', 'read-only')

    def test_a_deleted_node_takes_its_traits_with_it(self):
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        with sqlalchemy_api.get_engine().connect() as connection:
            self.assertEqual(0, connection.exec_driver_sql(
                'SELECT count(*) FROM node_traits').scalar())


@ddt.ddt
class TraitsVersionsTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    @ddt.data(('GET', '/v1/nodes/node-1/traits'),
              ('PUT', '/v1/nodes/node-1/traits'),
              ('PUT', '/v1/nodes/node-1/traits/CUSTOM_A'),
              ('DELETE', '/v1/nodes/node-1/traits'),
              ('DELETE', '/v1/nodes/node-1/traits/CUSTOM_A'))
    @ddt.unpack
    def test_below_1_37_the_traits_endpoints_do_not_exist(self, method,
                                                          url):
        response = self.request(method, url, version='1.36',
                                json={'traits': ['CUSTOM_A']})
        self.assertError(response, 404, '1.37', '1.36')
        self.assertEqual([], objects.Node.get(self.context,
                                              'node-1').traits)

    def test_pinned_to_0_2_traits_are_refused_and_hidden(self):
        # Release 0.2 speaks up to 1.44 but has no traits: while pinned to
        # it, traits do not exist at any version.
        self.node.set_traits(['CUSTOM_A'])
        self.config(pin_release_version='0.2')
        for method, url in (('GET', '/v1/nodes/node-1/traits'),
                            ('PUT', '/v1/nodes/node-1/traits/CUSTOM_B'),
                            ('DELETE', '/v1/nodes/node-1/traits')):
            self.assertError(self.request(method, url, version='1.44'), 406,
                             'Node traits', '0.3', '0.2')
        shown = self.get('/v1/nodes/node-1', version='1.44').get_json()
        self.assertNotIn('traits', shown)
        self.assertIn('deploy_step', shown)
        listed = self.get('/v1/nodes/detail', version='1.44').get_json()
        self.assertNotIn('traits', listed['nodes'][0])
        self.assertError(self.get('/v1/nodes/node-1?fields=traits',
                                  version='1.44'), 406, 'traits', '0.2')
        self.assertEqual(['CUSTOM_A'], objects.Node.get(
            self.context, 'node-1').traits)
        # Unpinned, they are back.
        self.config(pin_release_version=None)
        self.assertEqual(['CUSTOM_A'], self.get(
            '/v1/nodes/node-1', version='1.44').get_json()['traits'])
