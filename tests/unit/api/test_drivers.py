"""/v1/drivers: the hardware types the live conductors serve.

The conductor of these tests ('test-conductor') registered at start what
the default configuration enables; other conductors register here through
the registry, as theirs would at start, with what they serve.
"""

from ironic_steps.conductor import registry
from ironic_steps.db import api as db_api
from tests.unit.api import base

#: What a conductor of an out-of-tree hardware type registers.
CUSTOM = {'custom-hardware': {'deploy': ('direct', 'ansible'),
                              'power': ('ipmitool',)}}


class DriversTest(base.ApiTestCase):

    def names(self, path='/v1/drivers'):
        return [d['name'] for d in self.get(path).get_json()['drivers']]

    def test_fake_hardware_and_redfish_are_enabled_by_default(self):
        self.assertEqual(['fake-hardware', 'redfish'], self.names())

    def test_the_list_shows_each_served_type_with_the_hosts_serving_it(self):
        registry.register('conductor-2', {'fake-hardware': {
            'deploy': ('fake',)}})
        body = self.get('/v1/drivers').get_json()
        self.assertEqual({
            'name': 'fake-hardware',
            'hosts': ['conductor-2', 'test-conductor'],
            'type': 'dynamic',
            'links': [{'href': 'http://localhost/v1/drivers/fake-hardware',
                       'rel': 'self'},
                      {'href': 'http://localhost/drivers/fake-hardware',
                       'rel': 'bookmark'}],
            'properties': [
                {'href': 'http://localhost/v1/drivers/fake-hardware/'
                         'properties', 'rel': 'self'},
                {'href': 'http://localhost/drivers/fake-hardware/properties',
                 'rel': 'bookmark'}]}, body['drivers'][0])
        self.assertEqual(['test-conductor'], body['drivers'][1]['hosts'])

    def test_what_the_api_process_enables_does_not_matter(self):
        # Given an API configured with one type, conductors serving others
        self.config(enabled_hardware_types=['fake-hardware'])
        registry.register('conductor-2', CUSTOM)
        # Then what the conductors serve is listed, and shown
        self.assertEqual(['custom-hardware', 'fake-hardware', 'redfish'],
                         self.names())
        self.assertEqual(['conductor-2'], self.get(
            '/v1/drivers/custom-hardware').get_json()['hosts'])

    def test_a_conductor_registers_only_the_installed_types_it_enables(self):
        self.config(enabled_hardware_types=['fake-hardware', 'not-installed'])
        registry.register('conductor-2')
        self.assertEqual(['fake-hardware'], self.get(
            '/v1/conductors/conductor-2').get_json()['drivers'])
        self.assertEqual(['test-conductor'], self.get(
            '/v1/drivers/redfish').get_json()['hosts'])

    def test_a_type_only_a_stopped_conductor_served_is_gone(self):
        registry.register('conductor-2', CUSTOM)
        registry.unregister('conductor-2')
        self.assertEqual(['fake-hardware', 'redfish'], self.names())
        self.assertError(self.get('/v1/drivers/custom-hardware'), 404,
                         'custom-hardware', 'fake-hardware, redfish')
        self.assertError(self.get('/v1/drivers/custom-hardware/properties'),
                         404, 'custom-hardware')

    def test_there_are_no_classic_drivers(self):
        self.assertEqual([], self.names('/v1/drivers?type=classic'))
        self.assertError(self.get('/v1/drivers?type=odd'), 400, 'odd')

    def test_show_tells_the_default_and_enabled_interfaces(self):
        body = self.get('/v1/drivers/fake-hardware').get_json()
        self.assertEqual('fake', body['default_deploy_interface'])
        self.assertEqual(['fake', 'custom-agent', 'direct', 'fake-legacy'],
                         body['enabled_deploy_interfaces'])
        self.assertEqual('fake', body['default_bios_interface'])

    def test_interfaces_are_those_the_serving_conductors_registered(self):
        registry.register('conductor-2', CUSTOM)
        body = self.get('/v1/drivers/custom-hardware').get_json()
        self.assertEqual(('direct', ['direct', 'ansible']), (
            body['default_deploy_interface'],
            body['enabled_deploy_interfaces']))
        self.assertEqual(('ipmitool', ['ipmitool']), (
            body['default_power_interface'],
            body['enabled_power_interfaces']))
        # An interface type it did not register: none, as in Ironic.
        self.assertEqual((None, []), (body['default_bios_interface'],
                                      body['enabled_bios_interfaces']))

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

    def test_fields_choose_what_is_shown_from_1_77(self):
        shown = self.get('/v1/drivers/redfish?fields=name,'
                         'default_deploy_interface', version='1.77')
        self.assertEqual(200, shown.status_code, shown.data)
        self.assertEqual({'name': 'redfish',
                          'default_deploy_interface': 'direct'},
                         {k: v for k, v in shown.get_json().items()
                          if k != 'links'})
        self.assertIn('links', shown.get_json())
        listed = self.get('/v1/drivers?fields=name,enabled_power_interfaces',
                          version='1.77').get_json()['drivers']
        self.assertEqual(
            [{'name': 'fake-hardware', 'enabled_power_interfaces': ['fake']},
             {'name': 'redfish', 'enabled_power_interfaces': ['redfish']}],
            [{k: v for k, v in d.items() if k != 'links'} for d in listed])

    def test_fields_are_406_before_1_77(self):
        self.assertError(self.get('/v1/drivers?fields=name', version='1.76'),
                         406, 'fields', '1.77')
        self.assertError(self.get('/v1/drivers/redfish?fields=name',
                                  version='1.76'), 406, 'fields', '1.77')

    def test_a_field_no_driver_has_is_400_naming_it(self):
        self.assertError(self.get('/v1/drivers?fields=name,color',
                                  version='1.77'), 400, "'color'", 'hosts')
        self.assertError(self.get('/v1/drivers?fields=name&detail=true',
                                  version='1.77'), 400, 'detail', 'fields')
        self.assertError(self.get('/v1/drivers?fields=', version='1.77'),
                         400, "'' is no field")

    def test_an_unknown_driver_is_404_naming_the_served_ones(self):
        self.assertError(self.get('/v1/drivers/ipmi'), 404, 'ipmi',
                         'fake-hardware, redfish')

    def test_hosts_are_the_live_conductors_not_the_api_process(self):
        registry.register('conductor-2')
        registry.register('gone-conductor')
        registry.unregister('gone-conductor')
        driver = self.get('/v1/drivers/fake-hardware').get_json()
        self.assertEqual(['conductor-2', 'test-conductor'], driver['hosts'])


class ConductorsOfAnEarlierReleaseTest(base.ApiTestCase):
    """Conductors that registered no hardware types (release 0.4, or
    pinned to it) serve what the API's configuration enables, as before."""

    def test_a_conductor_that_registered_none_serves_the_configured_types(
            self):
        db_api.get_instance().register_conductor('old-conductor')
        self.config(enabled_hardware_types=['fake-hardware'])
        body = self.get('/v1/drivers?detail=true').get_json()
        self.assertEqual(
            [('fake-hardware', ['old-conductor', 'test-conductor']),
             ('redfish', ['test-conductor'])],
            [(d['name'], d['hosts']) for d in body['drivers']])
        self.assertEqual(['fake-hardware'], self.get(
            '/v1/conductors/old-conductor').get_json()['drivers'])

    def test_pinned_to_0_4_conductors_register_no_types_and_all_read_config(
            self):
        # Given services pinned to 0.4, and a conductor that starts then
        self.config(pin_release_version='0.4')
        registry.register('conductor-2', CUSTOM)
        # Then it recorded no hardware, and what every live conductor
        # serves is what this process enables, as in 0.4
        self.assertNotIn('custom-hardware', self.names())
        self.config(enabled_hardware_types=['fake-hardware'])
        body = self.get('/v1/drivers?detail=true').get_json()
        self.assertEqual(
            [('fake-hardware', ['conductor-2', 'test-conductor'])],
            [(d['name'], d['hosts']) for d in body['drivers']])
        self.assertEqual(['fake', 'fake-legacy'],
                         body['drivers'][0]['enabled_deploy_interfaces'])
        # Unpinned, the registrations are read again: conductor-2 recorded
        # none, so it still serves what this process enables.
        self.config(pin_release_version=None)
        self.assertEqual(['fake-hardware', 'redfish'], self.names())
        self.assertEqual(['fake-hardware'], self.get(
            '/v1/conductors/conductor-2').get_json()['drivers'])

    names = DriversTest.names
