"""Listing nodes: fields, detail, filters, sorting and pages."""

import urllib.parse

import ddt
from oslo_utils import uuidutils

from ironic_steps.api import node_view
from ironic_steps.api import versions
from tests.unit.api import base


def names(response):
    return [node['name'] for node in response.get_json()['nodes']]


@ddt.ddt
class ListNodesTest(base.ApiTestCase):

    def test_a_plain_list_shows_ironics_default_fields(self):
        node = self.create_node(name='node-1')
        body = self.get('/v1/nodes').get_json()
        self.assertEqual([{'uuid': node.uuid, 'name': 'node-1',
                           'instance_uuid': None, 'power_state': None,
                           'provision_state': 'enroll',
                           'maintenance': False,
                           'links': body['nodes'][0]['links']}],
                         body['nodes'])
        self.assertNotIn('next', body)

    def test_detail_shows_every_field_of_the_version(self):
        self.create_node(name='node-1')
        node = self.get('/v1/nodes/detail', version='latest').get_json()[
            'nodes'][0]
        # (Fields of versions built ahead of the maximum are not shown.)
        self.assertEqual(set(node_view.visible_fields(versions.max_version()))
                         | {'links'} | set(node_view.RESOURCE_LINKS),
                         set(node))

    def test_a_listed_node_reads_exactly_as_the_node_shown_alone(self):
        # Reads are built from rows, the answer to a change from a Node.
        node = self.create_node(name='node-1', driver_info={
            'ipmi_password': 'secret', 'ipmi_address': '10.0.0.9'},
            extra={'rack': 4})
        node.maintenance_reason = 'checking'
        node.save()
        patched = self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/extra/row', 'value': 5}]).get_json()
        listed = self.get('/v1/nodes/detail').get_json()['nodes'][0]
        shown = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(shown, listed)
        self.assertEqual(shown, patched)
        self.assertEqual({'rack': 4, 'row': 5}, shown['extra'])
        self.assertEqual('******', listed['driver_info']['ipmi_password'])
        self.assertTrue(listed['updated_at'].endswith('+00:00'))
        self.assertTrue(listed['created_at'].endswith('+00:00'))

    def test_detail_can_be_asked_as_a_parameter_from_1_43(self):
        self.create_node(name='node-1')
        node = self.get('/v1/nodes?detail=true').get_json()['nodes'][0]
        self.assertIn('driver_info', node)
        self.assertError(self.get('/v1/nodes?detail=true', version='1.42'),
                         406, 'detail', '1.43')

    def test_detail_and_fields_do_not_combine(self):
        self.assertError(self.get('/v1/nodes/detail?fields=uuid'), 400,
                         'fields')

    def test_fields_selects_what_each_node_shows(self):
        self.create_node(name='node-1', driver_info={'password': 'p'})
        node = self.get('/v1/nodes?fields=name,driver_info').get_json()[
            'nodes'][0]
        self.assertEqual({'name', 'driver_info', 'links'}, set(node))
        self.assertEqual({'password': '******'}, node['driver_info'])

    def test_unknown_fields_and_parameters_are_400_naming_them(self):
        self.assertError(self.get('/v1/nodes?fields=colour'), 400, 'colour')
        self.assertError(self.get('/v1/nodes?colour=red'), 400, 'colour')

    def test_filters_select_nodes(self):
        self.create_node(name='plain')
        self.create_node(name='gold', resource_class='gold')
        self.create_node(name='fixing', maintenance=True)
        self.make_available(name='ready')
        self.assertEqual(['gold'],
                         names(self.get('/v1/nodes?resource_class=gold')))
        self.assertEqual(['fixing'],
                         names(self.get('/v1/nodes?maintenance=true')))
        self.assertEqual(['plain', 'gold', 'ready'],
                         names(self.get('/v1/nodes?maintenance=False')))
        self.assertEqual(['ready'], names(self.get(
            '/v1/nodes?provision_state=available')))
        self.assertEqual(4, len(names(self.get(
            '/v1/nodes?driver=fake-hardware'))))
        self.assertEqual([], names(self.get('/v1/nodes?driver=other')))

    def test_a_boolean_filter_refuses_other_words(self):
        self.assertError(self.get('/v1/nodes?maintenance=maybe'), 400,
                         'maintenance', 'maybe')

    def test_the_filters_of_ironics_later_versions_select_nodes(self):
        uuid = uuidutils.generate_uuid()
        self.create_node(name='plain')
        self.create_node(name='used', instance_uuid=uuid)
        self.create_node(name='grouped', conductor_group='rack-1',
                         owner='p1', lessee='p2', description='Big Box')
        self.create_node(name='old', retired=True)
        self.create_node(name='broken', maintenance=True,
                         fault='power failure')
        for query, expected in (
                ('associated=true', ['used']),
                ('associated=false', ['plain', 'grouped', 'old', 'broken']),
                ('instance_uuid=%s' % uuid, ['used']),
                ('conductor_group=RACK-1', ['grouped']),
                ('owner=p1', ['grouped']), ('lessee=p2', ['grouped']),
                ('owner=p2', []),
                ('description_contains=big', ['grouped']),
                ('description_contains=%25', []),
                ('retired=true', ['old']),
                ('fault=power%20failure', ['broken'])):
            self.assertEqual(expected, names(self.get('/v1/nodes?' + query)),
                             query)

    @ddt.data(('fault', 'melted'), ('provision_state', 'sleeping'),
              ('instance_uuid', 'not-a-uuid'))
    @ddt.unpack
    def test_a_filter_value_that_cannot_match_is_400(self, name, value):
        self.assertError(self.get('/v1/nodes?%s=%s' % (name, value)), 400,
                         name if name != 'provision_state' else value)

    @ddt.data(('driver', '1.16', '1.15'), ('resource_class', '1.21', '1.20'),
              ('provision_state', '1.9', '1.8'), ('fault', '1.42', '1.41'),
              ('conductor_group', '1.46', '1.45'), ('owner', '1.50', '1.49'),
              ('lessee', '1.65', '1.64'), ('conductor', '1.49', '1.48'))
    @ddt.unpack
    def test_a_filter_exists_from_its_version_on(self, name, since, before):
        value = {'provision_state': 'enroll',
                 'fault': 'clean%20failure'}.get(name, 'x')
        url = '/v1/nodes?%s=%s' % (name, value)
        self.assertEqual(200, self.get(url, version=since).status_code)
        self.assertError(self.get(url, version=before), 406, name, since)

    def test_sort_key_and_sort_dir_order_the_list(self):
        for name in ('b', 'c', 'a'):
            self.create_node(name=name)
        self.assertEqual(['b', 'c', 'a'], names(self.get('/v1/nodes')))
        self.assertEqual(['a', 'b', 'c'],
                         names(self.get('/v1/nodes?sort_key=name')))
        self.assertEqual(['c', 'b', 'a'], names(self.get(
            '/v1/nodes?sort_key=name&sort_dir=desc')))

    def test_a_bad_sort_is_400(self):
        self.assertError(self.get('/v1/nodes?sort_key=driver_info'), 400,
                         'driver_info')
        self.assertError(self.get('/v1/nodes?sort_dir=up'), 400, 'up')

    def test_sorting_by_a_field_of_a_later_version_is_406(self):
        self.assertError(self.get('/v1/nodes?sort_key=resource_class',
                                  version='1.20'), 406, 'resource_class')


@ddt.ddt
class PaginationTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.nodes = [self.create_node(name='node-%d' % i)
                      for i in range(5)]

    def follow(self, url):
        parts = urllib.parse.urlsplit(url)
        return self.get('%s?%s' % (parts.path, parts.query))

    def test_pages_are_followed_through_next_links_to_the_end(self):
        first = self.get('/v1/nodes?limit=2&sort_key=name&fields=name')
        self.assertEqual(['node-0', 'node-1'], names(first))
        next_url = first.get_json()['next']
        self.assertTrue(next_url.startswith('http://localhost/v1/nodes?'))
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(
            next_url).query)
        self.assertEqual({'fields': ['name'], 'sort_key': ['name'],
                          'limit': ['2'], 'marker': [self.nodes[1].uuid]},
                         query)
        second = self.follow(next_url)
        self.assertEqual(['node-2', 'node-3'], names(second))
        third = self.follow(second.get_json()['next'])
        self.assertEqual(['node-4'], names(third))
        self.assertNotIn('next', third.get_json())

    def test_the_detailed_list_pages_under_its_own_path(self):
        body = self.get('/v1/nodes/detail?limit=4').get_json()
        self.assertIn('/v1/nodes/detail?', body['next'])
        self.assertEqual(['node-4'], names(self.follow(body['next'])))

    def test_a_marker_starts_after_that_node(self):
        response = self.get('/v1/nodes?marker=%s' % self.nodes[2].uuid)
        self.assertEqual(['node-3', 'node-4'], names(response))

    def test_limit_is_capped_at_max_limit(self):
        self.config(max_limit=3, group='api')
        body = self.get('/v1/nodes?limit=100').get_json()
        self.assertEqual(3, len(body['nodes']))
        self.assertIn('limit=3', body['next'])

    def test_without_a_limit_pages_are_max_limit_long(self):
        self.config(max_limit=2, group='api')
        body = self.get('/v1/nodes').get_json()
        self.assertEqual(['node-0', 'node-1'],
                         [n['name'] for n in body['nodes']])
        self.assertIn('next', body)

    @ddt.data('0', '-1', 'ten', '1.5')
    def test_a_limit_that_is_not_a_positive_integer_is_400(self, limit):
        self.assertError(self.get('/v1/nodes?limit=%s' % limit), 400,
                         'limit', limit)

    def test_an_unknown_marker_is_400(self):
        marker = uuidutils.generate_uuid()
        self.assertError(self.get('/v1/nodes?marker=%s' % marker), 400,
                         marker)

    def test_a_marker_that_is_not_a_uuid_is_400(self):
        self.assertError(self.get('/v1/nodes?marker=node-1'), 400,
                         'node-1', 'UUID')
