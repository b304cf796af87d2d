"""Port names (API 1.88): the ``name`` field and names in port URLs;
through the real API on SQLite."""

import ddt

from ironic_steps import objects
from tests.unit.api import base

VERSION = '1.88'
MAC = '52:54:00:12:34:56'
OTHER_MAC = '52:54:00:ab:cd:ef'


@ddt.ddt
class PortNameTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-0')

    def create_port(self, address=MAC, version=VERSION, **fields):
        fields.setdefault('node_uuid', self.node['uuid'])
        return self.post('/v1/ports', json=dict(fields, address=address),
                         version=version)

    def rename(self, ident, name, version=VERSION):
        return self.patch('/v1/ports/%s' % ident, json=[
            {'op': 'add', 'path': '/name', 'value': name}], version=version)

    def test_a_port_is_named_at_creation_shown_and_found_by_its_name(self):
        created = self.create_port(name='eth0')
        self.assertEqual(201, created.status_code, created.data)
        port = created.get_json()
        self.assertEqual('eth0', port['name'])
        self.assertEqual('eth0', objects.Port.get_by_uuid(
            self.context, port['uuid']).name)
        shown = self.get('/v1/ports/eth0', version=VERSION)
        self.assertEqual(200, shown.status_code, shown.data)
        self.assertEqual(port['uuid'], shown.get_json()['uuid'])
        self.assertEqual(['eth0'], [p['name'] for p in self.get(
            '/v1/ports/detail', version=VERSION).get_json()['ports']])
        self.assertEqual([{'name': 'eth0'}], [
            {k: v for k, v in p.items() if k == 'name'}
            for p in self.get('/v1/ports?fields=name',
                              version=VERSION).get_json()['ports']])

    def test_a_name_is_changed_by_name_and_removed(self):
        uuid = self.create_port(name='eth0').get_json()['uuid']
        response = self.rename('eth0', 'nic-1')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('nic-1', response.get_json()['name'])
        self.assertEqual(404, self.get('/v1/ports/eth0',
                                       version=VERSION).status_code)
        response = self.patch('/v1/ports/nic-1', json=[
            {'op': 'remove', 'path': '/name'}], version=VERSION)
        self.assertEqual(200, response.status_code, response.data)
        self.assertIsNone(response.get_json()['name'])
        self.assertIsNone(objects.Port.get_by_uuid(self.context, uuid).name)

    def test_a_taken_name_is_refused_409_naming_it(self):
        self.create_port(name='eth0')
        response = self.create_port(OTHER_MAC, name='eth0')
        self.assertError(response, 409, 'name', 'eth0')
        self.assertEqual(1, len(objects.Port.list(self.context)))
        other = self.create_port(OTHER_MAC).get_json()
        self.assertError(self.rename(other['uuid'], 'eth0'), 409, 'eth0')
        self.assertIsNone(objects.Port.get_by_uuid(
            self.context, other['uuid']).name)

    @ddt.data('', 'a b', 'x' * 256, 7, '6a0f8d3e-5c1b-4e2a-9d7f-3b8c0e1a2d4f')
    def test_a_bad_name_is_400_naming_the_field_and_nothing_is_made(
            self, name):
        self.assertError(self.create_port(name=name), 400, 'name')
        self.assertEqual([], objects.Port.list(self.context))

    def test_below_1_88_the_name_does_not_exist_and_is_406_never_400(self):
        uuid = self.create_port(name='eth0').get_json()['uuid']
        self.assertNotIn('name', self.get('/v1/ports/%s' % uuid,
                                          version='1.87').get_json())
        self.assertError(self.create_port(OTHER_MAC, version='1.87',
                                          name='eth1'), 406, 'name', '1.88')
        self.assertEqual(1, len(objects.Port.list(self.context)))
        self.assertError(self.rename(uuid, 'eth1', version='1.87'), 406,
                         'name', '1.88')
        self.assertError(self.get('/v1/ports?fields=name', version='1.87'),
                         406, 'name')
        self.assertEqual('eth0', objects.Port.get_by_uuid(
            self.context, uuid).name)


class PinnedTo011Test(base.ApiTestCase):
    """Release 0.11's ports have no name: none is shown or written."""

    conductor_config = {None: {'pin_release_version': '0.11'}}

    def test_no_name_is_shown_or_written(self):
        node = self.api_create(name='node-0')
        body = {'address': MAC, 'node_uuid': node['uuid']}
        self.assertError(self.post('/v1/ports', json=dict(body, name='eth0'),
                                   version=VERSION), 406, '1.83')
        self.assertError(self.post('/v1/ports', json=dict(body, name='eth0'),
                                   version='1.83'), 406, 'name')
        created = self.post('/v1/ports', json=body, version='latest')
        self.assertEqual(201, created.status_code, created.data)
        self.assertNotIn('name', created.get_json())
        port = objects.Port.get_by_uuid(self.context,
                                        created.get_json()['uuid'])
        port.name = 'sneaked-in'
        port.save()
        self.assertIsNone(objects.Port.get_by_uuid(self.context,
                                                   port.uuid).name)
