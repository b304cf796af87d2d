"""/v1/drivers: the enabled hardware types."""

from ironic_steps.db import api as db_api
from tests.unit.api import base


class DriversTest(base.ApiTestCase):

    def test_fake_hardware_and_redfish_are_enabled_by_default(self):
        self.assertEqual(['fake-hardware', 'redfish'], [
            d['name'] for d in self.get('/v1/drivers').get_json()['drivers']])

    def test_the_list_shows_each_enabled_hardware_type_on_this_host(self):
        self.config(enabled_hardware_types=['fake-hardware'])
        body = self.get('/v1/drivers').get_json()
        self.assertEqual([{
            'name': 'fake-hardware', 'hosts': ['test-conductor'],
            'type': 'dynamic',
            'links': [{'href': 'http://localhost/v1/drivers/fake-hardware',
                       'rel': 'self'},
                      {'href': 'http://localhost/drivers/fake-hardware',
                       'rel': 'bookmark'}],
            'properties': [
                {'href': 'http://localhost/v1/drivers/fake-hardware/'
                         'properties', 'rel': 'self'},
                {'href': 'http://localhost/drivers/fake-hardware/properties',
                 'rel': 'bookmark'}]}], body['drivers'])

    def test_an_enabled_but_uninstalled_type_is_not_listed(self):
        self.config(enabled_hardware_types=['fake-hardware', 'not-installed'])
        self.assertEqual(['fake-hardware'], [
            d['name'] for d in self.get('/v1/drivers').get_json()['drivers']])

    def test_there_are_no_classic_drivers(self):
        self.assertEqual([], self.get('/v1/drivers?type=classic').get_json()[
            'drivers'])
        self.assertError(self.get('/v1/drivers?type=odd'), 400, 'odd')

    def test_show_tells_the_default_and_enabled_interfaces(self):
        body = self.get('/v1/drivers/fake-hardware').get_json()
        self.assertEqual('fake', body['default_deploy_interface'])
        self.assertEqual(['fake', 'fake-legacy'],
                         body['enabled_deploy_interfaces'])
        self.assertEqual('fake', body['default_bios_interface'])

    def test_the_detailed_list_tells_interfaces_too(self):
        driver = self.get('/v1/drivers?detail=true').get_json()['drivers'][0]
        self.assertEqual('fake', driver['default_power_interface'])

    def test_older_versions_see_older_shapes(self):
        body = self.get('/v1/drivers/fake-hardware', version='1.39')
        self.assertNotIn('default_bios_interface', body.get_json())
        self.assertIn('default_boot_interface', body.get_json())
        old = self.get('/v1/drivers/fake-hardware', version='1.29')
        self.assertEqual({'name', 'hosts', 'links', 'properties'},
                         set(old.get_json()))
        oldest = self.get('/v1/drivers/fake-hardware', version='1.13')
        self.assertEqual({'name', 'hosts', 'links'}, set(oldest.get_json()))

    def test_an_unknown_driver_is_404_naming_the_enabled_ones(self):
        self.assertError(self.get('/v1/drivers/ipmi'), 404, 'ipmi',
                         'fake-hardware')

    def test_hosts_are_the_live_conductors_not_the_api_process(self):
        dbapi = db_api.get_instance()
        dbapi.register_conductor('conductor-2')
        dbapi.register_conductor('gone-conductor')
        dbapi.unregister_conductor('gone-conductor')
        driver = self.get('/v1/drivers/fake-hardware').get_json()
        self.assertEqual(['conductor-2', 'test-conductor'], driver['hosts'])
