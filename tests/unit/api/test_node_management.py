"""A node's boot device, console and vendor passthru methods, and a
driver's RAID logical disk properties and vendor passthru methods."""

import ddt

from ironic_steps.drivers import raid
from tests.unit.api import base


@ddt.ddt
class NodeManagementApiTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def test_a_new_fake_node_boots_from_pxe_once(self):
        response = self.get('/v1/nodes/node-1/management/boot_device')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual({'boot_device': 'pxe', 'persistent': False},
                         response.get_json())

    def test_a_boot_device_set_is_the_one_shown(self):
        response = self.put('/v1/nodes/node-1/management/boot_device',
                            json={'boot_device': 'disk', 'persistent': True})
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual({'boot_device': 'disk', 'persistent': True},
                         self.get('/v1/nodes/%s/management/boot_device'
                                  % self.node.uuid).get_json())
        self.assertIsNone(
            self.get('/v1/nodes/node-1').get_json()['reservation'])

    def test_an_unsupported_boot_device_is_400_naming_the_supported(self):
        self.assertError(self.put(
            '/v1/nodes/node-1/management/boot_device',
            json={'boot_device': 'floppy'}), 400, 'floppy', 'pxe, disk')
        self.assertError(self.put(
            '/v1/nodes/node-1/management/boot_device',
            json={'boot_device': 'disk', 'persistent': 'yes'}), 400,
            'persistent')

    def test_the_supported_boot_devices_are_listed(self):
        self.assertEqual(
            {'supported_boot_devices': ['pxe', 'disk']},
            self.get('/v1/nodes/node-1/management/boot_device/supported'
                     ).get_json())

    def test_the_console_is_off_and_no_console_refuses_to_start_it(self):
        self.assertEqual({'console_enabled': False, 'console_info': None},
                         self.get('/v1/nodes/node-1/states/console'
                                  ).get_json())
        self.assertError(self.put('/v1/nodes/node-1/states/console',
                                  json={'enabled': True}), 400,
                         self.node.uuid, 'console', 'no-console')
        self.assertFalse(self.get('/v1/nodes/node-1').get_json()[
            'console_enabled'])
        self.assertError(self.put('/v1/nodes/node-1/states/console',
                                  json={}), 400, 'enabled')

    def test_fake_vendor_has_no_passthru_methods(self):
        for url in ('/v1/nodes/node-1/vendor_passthru/methods',
                    '/v1/drivers/fake-hardware/vendor_passthru/methods'):
            response = self.get(url)
            self.assertEqual(200, response.status_code, response.data)
            self.assertEqual({}, response.get_json())

    def test_raid_logical_disk_properties_describe_each_property(self):
        response = self.get(
            '/v1/drivers/fake-hardware/raid/logical_disk_properties')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(set(raid.LOGICAL_DISK_PROPERTIES),
                         set(response.get_json()))
        self.assertIn('Required', response.get_json()['raid_level'])
        self.assertEqual(404, self.get(
            '/v1/drivers/fake-hardware/raid/logical_disk_properties',
            version='1.11').status_code)
        self.assertError(self.get(
            '/v1/drivers/nope/raid/logical_disk_properties'), 404, 'nope')

    def test_an_unknown_node_is_404(self):
        self.assertError(self.get('/v1/nodes/nope/management/boot_device'),
                         404, 'nope')

    @ddt.data(('GET', '/v1/nodes/node-1/management/boot_device'),
              ('PUT', '/v1/nodes/node-1/management/boot_device'),
              ('GET', '/v1/nodes/node-1/management/boot_device/supported'),
              ('GET', '/v1/nodes/node-1/states/console'),
              ('PUT', '/v1/nodes/node-1/states/console'),
              ('GET', '/v1/nodes/node-1/vendor_passthru/methods'),
              ('GET', '/v1/drivers/fake-hardware/vendor_passthru/methods'),
              ('GET',
               '/v1/drivers/fake-hardware/raid/logical_disk_properties'))
    @ddt.unpack
    def test_pinned_to_0_5_they_are_unknown_paths(self, method, url):
        self.config(pin_release_version='0.5')
        self.make_client()
        self.assertEqual(404, self.request(
            method, url, json={'boot_device': 'disk'} if method == 'PUT'
            else None).status_code)
        self.assertNotIn('fake_boot_device', self.get(
            '/v1/nodes/node-1').get_json()['driver_internal_info'])
