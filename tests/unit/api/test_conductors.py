"""/v1/conductors (1.49): every conductor, alive or not."""

import urllib.parse

from oslo_utils import timeutils

from ironic_steps.db import api as db_api
from ironic_steps import objects
from tests.unit.api import base


class ConductorsTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        dbapi = db_api.get_instance()
        dbapi.register_conductor('b-conductor')
        dbapi.register_conductor('gone-conductor')
        dbapi.unregister_conductor('gone-conductor')

    def test_the_list_shows_hostname_group_and_liveness(self):
        body = self.get('/v1/conductors?sort_key=hostname').get_json()
        self.assertEqual([
            ('b-conductor', '', True), ('gone-conductor', '', False),
            ('test-conductor', '', True)],
            [(c['hostname'], c['conductor_group'], c['alive'])
             for c in body['conductors']])
        self.assertEqual({'hostname', 'conductor_group', 'alive', 'links'},
                         set(body['conductors'][0]))
        self.assertEqual(
            'http://localhost/v1/conductors/b-conductor',
            body['conductors'][0]['links'][0]['href'])

    def test_detail_and_show_add_drivers_and_times(self):
        body = self.get('/v1/conductors?detail=true').get_json()
        shown = self.get('/v1/conductors/test-conductor').get_json()
        listed = [c for c in body['conductors']
                  if c['hostname'] == 'test-conductor'][0]
        self.assertEqual(shown, listed)
        self.assertEqual(['fake-hardware', 'redfish'], shown['drivers'])
        self.assertTrue(shown['updated_at'].endswith('+00:00'))
        gone = self.get('/v1/conductors/gone-conductor').get_json()
        self.assertEqual(([], False), (gone['drivers'], gone['alive']))

    def test_a_conductor_whose_heartbeat_is_too_old_is_not_alive(self):
        self.config(heartbeat_timeout=1, group='conductor')
        conductor = objects.Conductor.get_by_hostname(self.context,
                                                      'b-conductor')
        seen = timeutils.normalize_time(conductor.updated_at)
        timeutils.set_time_override(seen.replace(year=seen.year + 1))
        self.addCleanup(timeutils.clear_time_override)
        self.assertFalse(self.get('/v1/conductors/b-conductor')
                         .get_json()['alive'])

    def test_fields_select_and_pages_follow_by_hostname(self):
        first = self.get('/v1/conductors?limit=2&sort_key=hostname'
                         '&fields=hostname').get_json()
        self.assertEqual([{'hostname': 'b-conductor'},
                          {'hostname': 'gone-conductor'}],
                         [{'hostname': c['hostname']}
                          for c in first['conductors']])
        self.assertEqual({'hostname', 'links'}, set(first['conductors'][0]))
        parts = urllib.parse.urlsplit(first['next'])
        self.assertIn('marker=gone-conductor', parts.query)
        second = self.get('%s?%s' % (parts.path, parts.query)).get_json()
        self.assertEqual(['test-conductor'],
                         [c['hostname'] for c in second['conductors']])

    def test_an_unknown_conductor_is_404(self):
        self.assertError(self.get('/v1/conductors/nope'), 404, 'nope')

    def test_bad_fields_and_sorts_are_400(self):
        self.assertError(self.get('/v1/conductors?fields=colour'), 400,
                         'colour')
        self.assertError(self.get('/v1/conductors?sort_key=alive'), 400,
                         'alive')

    def test_below_1_49_the_endpoints_do_not_exist(self):
        self.assertError(self.get('/v1/conductors', version='1.48'), 404,
                         '1.49')
        self.assertError(self.get('/v1/conductors/test-conductor',
                                  version='1.48'), 404, '1.49')


class NodeConductorTest(base.ApiTestCase):

    def test_a_node_shows_and_filters_by_the_conductor_that_handles_it(self):
        node = self.create_node(name='node-1')
        self.assertEqual('test-conductor', self.get(
            '/v1/nodes/node-1?fields=conductor').get_json()['conductor'])
        self.assertEqual([node.uuid], [n['uuid'] for n in self.get(
            '/v1/nodes?conductor=test-conductor').get_json()['nodes']])
        self.assertEqual([], self.get('/v1/nodes?conductor=other')
                         .get_json()['nodes'])
        self.assertError(self.get('/v1/nodes?conductor=x', version='1.48'),
                         406, 'conductor', '1.49')
