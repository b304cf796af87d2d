"""Enrolling redfish nodes through the API: secrets, validation, the pin.

The BMC itself is exercised over HTTP by the functional tests against the
sushy-tools emulator; these need no BMC.
"""

from tests.unit.api import base

DRIVER_INFO = {'redfish_address': 'http://127.0.0.1:9',
               'redfish_system_id': '/redfish/v1/Systems/1',
               'redfish_username': 'admin',
               'redfish_password': 'a-bmc-secret'}


class RedfishNodeTest(base.ApiTestCase):

    def create(self, **fields):
        body = {'driver': 'redfish', 'name': 'rf-1',
                'driver_info': dict(DRIVER_INFO), **fields}
        return self.post('/v1/nodes', json=body)

    def test_a_redfish_node_gets_ironics_interface_names(self):
        node = self.create().get_json()
        self.assertEqual(
            {'bios': 'redfish', 'boot': 'redfish-virtual-media',
             'deploy': 'direct', 'management': 'redfish',
             'power': 'redfish', 'raid': 'redfish', 'console': 'no-console',
             'inspect': 'redfish', 'network': 'noop',
             'rescue': 'no-rescue', 'storage': 'noop'},
            {kind: node['%s_interface' % kind] for kind in (
                'bios', 'boot', 'deploy', 'management', 'power', 'raid',
                'console', 'inspect', 'network', 'rescue', 'storage')})

    def test_the_bmc_password_is_never_shown(self):
        created = self.create()
        self.assertNotIn(b'a-bmc-secret', created.data)
        for path in ('/v1/nodes/rf-1', '/v1/nodes/detail',
                     '/v1/nodes/rf-1/validate'):
            response = self.get(path)
            self.assertEqual(200, response.status_code, response.data)
            self.assertNotIn(b'a-bmc-secret', response.data, path)
        shown = self.get('/v1/nodes/rf-1').get_json()['driver_info']
        self.assertEqual('******', shown['redfish_password'])
        self.assertEqual('admin', shown['redfish_username'])
        patched = self.patch('/v1/nodes/rf-1', json=[
            {'op': 'replace', 'path': '/driver_info/redfish_username',
             'value': 'root'}])
        self.assertNotIn(b'a-bmc-secret', patched.data)

    def test_validate_names_the_missing_and_bad_fields(self):
        self.create(driver_info={'redfish_verify_ca': 'sometimes'})
        body = self.get('/v1/nodes/rf-1/validate').get_json()
        for kind in ('power', 'management', 'bios', 'raid'):
            self.assertFalse(body[kind]['result'], kind)
            self.assertIn('driver_info/redfish_address',
                          body[kind]['reason'])
        self.patch('/v1/nodes/rf-1', json=[
            {'op': 'add', 'path': '/driver_info/redfish_address',
             'value': 'http://127.0.0.1:9'}])
        body = self.get('/v1/nodes/rf-1/validate').get_json()
        self.assertIn('driver_info/redfish_verify_ca',
                      body['power']['reason'])
        # Its default deploy interface, direct, boots the agent's ISO.
        self.patch('/v1/nodes/rf-1', json=[
            {'op': 'remove', 'path': '/driver_info/redfish_verify_ca'}])
        body = self.get('/v1/nodes/rf-1/validate').get_json()
        self.assertFalse(body['boot']['result'])
        self.assertIn('driver_info/deploy_iso', body['boot']['reason'])

    def test_pinned_to_0_3_redfish_nodes_cannot_be_enrolled(self):
        self.config(pin_release_version='0.3')
        response = self.create()
        self.assertError(response, 406, 'redfish', '0.3', '0.4')
        self.assertEqual([], self.get('/v1/nodes').get_json()['nodes'])

    def test_pinned_to_0_3_redfish_is_not_among_the_drivers(self):
        self.assertIn('redfish', self.driver_names())
        self.config(pin_release_version='0.3')
        self.assertEqual(['fake-hardware'], self.driver_names())
        self.assertEqual(404, self.get('/v1/drivers/redfish').status_code)
        conductors = self.get('/v1/conductors?detail=True').get_json()
        self.assertEqual([['fake-hardware']],
                         [c['drivers'] for c in conductors['conductors']])

    def driver_names(self):
        return [driver['name']
                for driver in self.get('/v1/drivers').get_json()['drivers']]


class PinnedTo013RedfishNodeTest(base.ApiTestCase):
    """While pinned to 0.13, a redfish node deploys and boots as 0.13's
    conductors would have it: the ramdisk default, no ipxe, no
    custom-agent."""

    conductor_config = {None: {'pin_release_version': '0.13'}}

    def create(self, **fields):
        return self.post('/v1/nodes', json={
            'driver': 'redfish', 'name': 'rf-1',
            'driver_info': dict(DRIVER_INFO), **fields})

    def test_a_redfish_node_still_gets_ramdisk(self):
        node = self.create().get_json()
        self.assertEqual('ramdisk', node['deploy_interface'])
        self.assertEqual('ramdisk', self.get('/v1/drivers/redfish').get_json()[
            'default_deploy_interface'])
        body = self.get('/v1/nodes/rf-1/validate').get_json()
        self.assertIn('instance_info/boot_iso', body['deploy']['reason'])

    def test_unpinned_a_new_node_gets_direct_and_the_old_keeps_ramdisk(self):
        self.create()
        self.config(pin_release_version=None)
        self.assertEqual('direct', self.post('/v1/nodes', json={
            'driver': 'redfish', 'name': 'rf-2',
            'driver_info': dict(DRIVER_INFO)}).get_json()['deploy_interface'])
        self.assertEqual('ramdisk', self.get('/v1/nodes/rf-1').get_json()[
            'deploy_interface'])

    def test_ipxe_and_custom_agent_are_refused(self):
        self.assertError(self.create(boot_interface='ipxe'), 406, 'ipxe',
                         '0.13', '0.14')
        self.assertError(self.create(deploy_interface='custom-agent'), 406,
                         'custom-agent', '0.13', '0.14')
        self.assertEqual([], self.get('/v1/nodes').get_json()['nodes'])
        driver = self.get('/v1/drivers/redfish').get_json()
        self.assertEqual(['redfish-virtual-media'],
                         driver['enabled_boot_interfaces'])
        self.assertEqual(['ramdisk', 'direct'],
                         driver['enabled_deploy_interfaces'])


class BMCAddressTest(base.ApiTestCase):
    """Where a node's BMC may be is checked when driver_info is written:
    whoever may change a node must not point the conductor, and the BMC's
    credentials, wherever they like."""

    def create(self, **driver_info):
        return self.post('/v1/nodes', json={
            'driver': 'redfish', 'name': 'rf-1',
            'driver_info': dict(DRIVER_INFO, **driver_info)})

    def assertRefused(self, response, field, *fragments):
        self.assertError(response, 400, 'driver_info/' + field, *fragments)
        self.assertNotIn(b'hunter2', response.data)

    def test_credentials_in_the_address_are_refused_naming_the_field(self):
        for address in ('https://admin:hunter2@10.0.0.9',
                        'https://hunter2@10.0.0.9', 'admin:hunter2@bmc'):
            self.assertRefused(self.create(redfish_address=address),
                               'redfish_address', 'credentials')
        self.assertEqual([], self.get('/v1/nodes').get_json()['nodes'])
        self.assertEqual(201, self.create().status_code)
        response = self.patch('/v1/nodes/rf-1', json=[
            {'op': 'replace', 'path': '/driver_info/redfish_address',
             'value': 'https://root:hunter2@203.0.113.7'}])
        self.assertRefused(response, 'redfish_address', 'credentials')
        self.assertEqual(DRIVER_INFO['redfish_address'], self.get(
            '/v1/nodes/rf-1').get_json()['driver_info']['redfish_address'])

    def test_a_system_id_must_stay_under_the_systems_of_the_bmc(self):
        for system_id in ('https://203.0.113.7/redfish/v1/Systems/1',
                          '//203.0.113.7/x', '../../Managers/1',
                          '/redfish/v1/Systems/../AccountService/Accounts',
                          '%2e%2e/AccountService', '/redfish/v1/Systems/'):
            self.assertRefused(self.create(redfish_system_id=system_id),
                               'redfish_system_id', '/redfish/v1/Systems/')
        for system_id in ('1', '/redfish/v1/Systems/System.Embedded.1'):
            response = self.create(redfish_system_id=system_id)
            self.assertEqual(201, response.status_code, response.data)
            self.delete('/v1/nodes/rf-1')

    def test_allowed_networks_refuse_an_address_outside_them(self):
        self.config(allowed_bmc_networks=['10.20.0.0/16'], group='redfish')
        self.assertRefused(self.create(redfish_address='https://192.0.2.7'),
                           'redfish_address', '192.0.2.7',
                           'allowed_bmc_networks: 10.20.0.0/16')
        self.assertEqual(201, self.create(
            redfish_address='https://10.20.1.2:8443').status_code)
        self.assertRefused(self.patch('/v1/nodes/rf-1', json=[
            {'op': 'replace', 'path': '/driver_info/redfish_address',
             'value': 'http://[::ffff:192.0.2.7]'}]), 'redfish_address',
            '192.0.2.7')

    def test_a_host_name_is_checked_by_the_conductor_that_resolves_it(self):
        # The API resolves no name (its thread would wait on DNS) ...
        self.config(allowed_bmc_networks=['10.20.0.0/16'], group='redfish')
        response = self.create(redfish_address='https://localhost:8000')
        self.assertEqual(201, response.status_code, response.data)
        # ... validate, and every use of the BMC, do.
        body = self.get('/v1/nodes/rf-1/validate').get_json()
        self.assertFalse(body['power']['result'])
        self.assertIn('localhost (127.0.0.1), outside the networks',
                      body['power']['reason'])

    def test_a_new_address_without_its_password_shows_the_password_gone(self):
        self.assertEqual(201, self.create().status_code)
        response = self.patch('/v1/nodes/rf-1', json=[
            {'op': 'replace', 'path': '/driver_info/redfish_address',
             'value': 'https://10.0.0.10'}])
        self.assertEqual(200, response.status_code, response.data)
        shown = response.get_json()['driver_info']
        self.assertNotIn('redfish_password', shown)
        self.assertEqual('admin', shown['redfish_username'])
