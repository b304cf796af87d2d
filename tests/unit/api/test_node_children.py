"""Parent and child nodes (API 1.83): the ``parent_node`` field, the
``?parent_node`` and ``?include_children`` filters, ``GET
/v1/nodes/{node}/children``, and a parent that cannot be deleted; through
the real API and conductor on SQLite."""

import ddt

from ironic_steps import objects
from tests.unit.api import base

VERSION = '1.83'


def names(response):
    assert response.status_code == 200, response.data
    return sorted(node['name'] for node in response.get_json()['nodes'])


@ddt.ddt
class ParentNodeTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.parent = self.api_create(name='host')

    def create(self, name, version=VERSION, **fields):
        return self.post('/v1/nodes', json=dict(
            driver='fake-hardware', name=name, **fields), version=version)

    def set_parent(self, ident, parent, version=VERSION):
        return self.patch('/v1/nodes/%s' % ident, json=[
            {'op': 'add', 'path': '/parent_node', 'value': parent}],
            version=version)

    def test_a_parent_named_by_name_or_uuid_is_stored_as_its_uuid(self):
        created = self.create('dpu-1', parent_node='host')
        self.assertEqual(201, created.status_code, created.data)
        self.assertEqual(self.parent['uuid'],
                         created.get_json()['parent_node'])
        self.create('dpu-2')
        response = self.set_parent('dpu-2', self.parent['uuid'].upper())
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(self.parent['uuid'],
                         response.get_json()['parent_node'])
        self.assertEqual(self.parent['uuid'], objects.Node.get(
            self.context, 'dpu-2').parent_node)
        self.assertNotIn('parent_node', self.get(
            '/v1/nodes/dpu-2', version='1.82').get_json())

    def test_below_1_83_the_field_is_406_never_400(self):
        self.create('dpu-1', version='1.82')
        self.assertError(self.create('dpu-2', parent_node='host',
                                     version='1.82'), 406, 'parent_node',
                         '1.83')
        self.assertError(self.set_parent('dpu-1', 'host', version='1.82'),
                         406, 'parent_node', '1.83')

    @ddt.data('nope', '5', '1be26c0b-03f2-4d2e-ae87-c02d7f33c123')
    def test_a_parent_that_is_no_node_is_400_naming_it(self, parent):
        self.create('dpu-1')
        self.assertError(self.set_parent('dpu-1', parent), 400,
                         'parent_node', repr(parent))
        self.assertError(self.create('dpu-2', parent_node=parent), 400,
                         repr(parent))
        self.assertIsNone(objects.Node.get(self.context,
                                           'dpu-1').parent_node)

    def test_a_node_is_not_its_own_parent(self):
        self.assertError(self.set_parent('host', 'host'), 400,
                         'its own parent')

    def test_a_parent_has_the_owner_of_its_child(self):
        self.create('dpu-1', owner='tenant-a')
        self.assertError(self.set_parent('dpu-1', 'host'), 400,
                         'owner', 'tenant-a')

    def test_children_are_left_out_of_lists_unless_asked_for(self):
        self.create('dpu-1', parent_node='host')
        self.create('dpu-2', parent_node='host')
        self.create('other')
        self.assertEqual(['host', 'other'], names(self.get(
            '/v1/nodes', version=VERSION)))
        # As Ironic lists them, at every version.
        self.assertEqual(['host', 'other'], names(self.get(
            '/v1/nodes/detail', version='1.5')))
        self.assertEqual(['dpu-1', 'dpu-2', 'host', 'other'], names(
            self.get('/v1/nodes?include_children=true', version=VERSION)))
        self.assertEqual(['host', 'other'], names(self.get(
            '/v1/nodes?include_children=false', version=VERSION)))
        for parent in ('host', self.parent['uuid']):
            self.assertEqual(['dpu-1', 'dpu-2'], names(self.get(
                '/v1/nodes?parent_node=%s' % parent, version=VERSION)))
        self.assertEqual([], names(self.get('/v1/nodes?parent_node=nope',
                                            version=VERSION)))

    @ddt.data('parent_node=host', 'include_children=true')
    def test_the_filters_need_1_83(self, query):
        self.assertError(self.get('/v1/nodes?' + query, version='1.82'),
                         406, '1.83')

    def test_a_nodes_children_are_listed_by_uuid(self):
        one = self.create('dpu-1', parent_node='host').get_json()
        two = self.create('dpu-2', parent_node='host').get_json()
        response = self.get('/v1/nodes/host/children', version=VERSION)
        self.assertEqual(200, response.status_code, response.data)
        body = response.get_json()
        self.assertEqual(sorted([one['uuid'], two['uuid']]),
                         sorted(body['children']))
        self.assertEqual(
            {'href': 'http://localhost/v1/nodes?parent_node=%s'
                     % self.parent['uuid'], 'rel': 'children'},
            body['links'])
        self.assertEqual([], self.get('/v1/nodes/dpu-1/children',
                                      version=VERSION).get_json()[
                                          'children'])

    def test_the_children_endpoint_exists_from_1_83(self):
        self.assertError(self.get('/v1/nodes/host/children',
                                  version='1.82'), 404, '1.83')
        self.assertError(self.get('/v1/nodes/nope/children',
                                  version=VERSION), 404, 'nope')

    def test_a_parent_with_children_is_not_deleted(self):
        child = self.create('dpu-1', parent_node='host').get_json()
        self.assertError(self.delete('/v1/nodes/host'), 409,
                         child['uuid'], 'parent_node')
        # Once the child has another parent (none), it goes.
        response = self.patch('/v1/nodes/dpu-1', json=[
            {'op': 'remove', 'path': '/parent_node'}], version=VERSION)
        self.assertIsNone(response.get_json()['parent_node'])
        self.assertEqual(204, self.delete('/v1/nodes/host').status_code)

    def test_changing_a_parent_needs_its_own_rule(self):
        self.create('dpu-1')
        self.use_policy({'baremetal:node:update:parent_node': '!'})
        self.assertError(self.set_parent('dpu-1', 'host'), 403,
                         'baremetal:node:update:parent_node')
        self.assertIsNone(objects.Node.get(self.context,
                                           'dpu-1').parent_node)


class PinnedTo010Test(base.ApiTestCase):
    """Release 0.10's nodes have no parent: none is shown or written."""

    conductor_config = {None: {'pin_release_version': '0.10'}}

    def test_no_parent_is_written_and_the_endpoint_does_not_exist(self):
        parent = self.api_create(name='host')
        self.api_create(name='dpu-1')
        self.assertError(self.get('/v1/nodes/host/children',
                                  version='1.83'), 406, '1.80')
        self.assertError(self.get('/v1/nodes/host/children',
                                  version='1.80'), 404)
        node = objects.Node.get(self.context, 'dpu-1')
        node.parent_node = parent['uuid']
        node.save()
        self.assertIsNone(objects.Node.get_row(self.context,
                                               'dpu-1').parent_node)
        self.assertEqual(204, self.delete('/v1/nodes/host').status_code)
