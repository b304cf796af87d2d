"""A port's ``local_link_connection`` with Ironic's OVN VTEP switch keys:
taken and shown from API 1.90 to 1.104 only, as in Ironic; through the
real API on SQLite."""

import ddt

from ironic_steps import objects
from tests.unit.api import base

MAC = '52:54:00:12:34:56'
VTEP = {'port_id': 'p1', 'vtep-logical-switch': 'ls1',
        'vtep-physical-switch': 'ps1'}


@ddt.ddt
class VtepLinkTest(base.AheadOfTheLadderTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-0')

    def create_port(self, link, version):
        return self.post('/v1/ports', json={
            'address': MAC, 'node_uuid': self.node['uuid'],
            'local_link_connection': link}, version=version)

    def test_from_1_90_a_link_takes_and_shows_the_vtep_keys(self):
        created = self.create_port(VTEP, '1.90')
        self.assertEqual(201, created.status_code, created.data)
        self.assertEqual(VTEP, created.get_json()['local_link_connection'])
        uuid = created.get_json()['uuid']
        self.assertEqual(VTEP, objects.Port.get_by_uuid(
            self.context, uuid).local_link_connection)
        # Below 1.90 the link is shown empty, as Ironic shows it.
        self.assertEqual({}, self.get('/v1/ports/%s' % uuid,
                                      version='1.89').get_json()[
                                          'local_link_connection'])
        [listed] = self.get('/v1/ports/detail', version='1.89').get_json()[
            'ports']
        self.assertEqual({}, listed['local_link_connection'])

    @ddt.data('1.89', '1.69')
    def test_below_1_90_the_vtep_keys_are_406_and_nothing_is_made(
            self, version):
        self.assertError(self.create_port(VTEP, version), 406,
                         'vtep-logical-switch', '1.90')
        self.assertEqual([], objects.Port.list(self.context))

    def test_a_patch_below_1_90_cannot_add_them(self):
        uuid = self.create_port({'port_id': 'p1', 'switch_id': 's1'},
                                '1.89').get_json()['uuid']
        response = self.patch('/v1/ports/%s' % uuid, json=[
            {'op': 'add', 'path': '/local_link_connection/'
             'vtep-logical-switch', 'value': 'ls1'},
            {'op': 'add', 'path': '/local_link_connection/'
             'vtep-physical-switch', 'value': 'ps1'}], version='1.89')
        self.assertError(response, 406, 'vtep-logical-switch')
        self.assertEqual({'port_id': 'p1', 'switch_id': 's1'},
                         objects.Port.get_by_uuid(
                             self.context, uuid).local_link_connection)

    def test_one_vtep_key_without_the_other_is_400(self):
        self.assertError(self.create_port(
            {'port_id': 'p1', 'vtep-logical-switch': 'ls1'}, '1.90'), 400,
            'local_link_connection', 'vtep-physical-switch')
        self.assertEqual([], objects.Port.list(self.context))

    def test_from_1_105_they_are_gone_again(self):
        uuid = self.create_port(VTEP, '1.104').get_json()['uuid']
        self.assertEqual(VTEP, self.get('/v1/ports/%s' % uuid,
                                        version='1.104').get_json()[
                                            'local_link_connection'])
        self.assertEqual({}, self.get('/v1/ports/%s' % uuid,
                                      version='1.105').get_json()[
                                          'local_link_connection'])
        self.delete('/v1/ports/%s' % uuid)
        self.assertError(self.create_port(VTEP, '1.105'), 406,
                         'vtep-logical-switch', '1.90', '1.104')
        self.assertEqual([], objects.Port.list(self.context))
