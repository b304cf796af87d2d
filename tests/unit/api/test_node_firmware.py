"""The firmware interface through the API (1.86, release 0.12): the node's
``firmware_interface``, ``firmware.update`` asked for in manual cleaning,
``GET /v1/nodes/{node}/firmware``, and what a pin to 0.11 leaves of them.

Through the real API, a real conductor and fake hardware on SQLite.
"""

import ddt

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import driver_factory
from ironic_steps import objects
from tests.unit.api import base

FIRMWARE = '/v1/nodes/node-1/firmware'
BIOS_2_1 = {'component': 'bios', 'url': 'http://127.0.0.1:9/bios-2.1.0.bin'}


def update(*settings):
    return [{'interface': 'firmware', 'step': 'update',
             'args': {'settings': list(settings)}}]


class _FirmwareApiTestCase(base.ApiTestCase):

    def manageable(self, **fields):
        node = self.create_node(name='node-1', **fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def clean(self, clean_steps, version='1.86'):
        return self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'clean_steps': clean_steps}, version=version)


@ddt.ddt
class FirmwareInterfaceFieldTest(_FirmwareApiTestCase):

    def test_shown_from_1_86_only(self):
        self.api_create(name='node-1')
        self.assertEqual('fake', self.get('/v1/nodes/node-1', version='1.86')
                         .get_json()['firmware_interface'])
        self.assertNotIn('firmware_interface', self.get(
            '/v1/nodes/node-1', version='1.83').get_json())
        self.assertError(self.get('/v1/nodes/node-1?fields=firmware_interface',
                                  version='1.83'), 406, 'firmware_interface')

    def create(self, **fields):
        response = self.post('/v1/nodes', json=dict(
            fields, driver='fake-hardware'), version='1.86')
        self.assertEqual(201, response.status_code, response.data)
        return response.get_json()

    def test_set_at_create_and_with_patch_from_1_86(self):
        body = self.create(name='node-1', firmware_interface='no-firmware')
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'firmware_interface': 'fake'},
            version='1.83'), 406, 'firmware_interface')
        self.assertEqual('no-firmware', self.get(
            '/v1/nodes/node-1', version='1.86').get_json()[
                'firmware_interface'])
        self.assertError(self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/firmware_interface',
             'value': 'fake'}], version='1.83'), 406, 'firmware_interface')
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/firmware_interface',
             'value': 'fake'}], version='1.86')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('fake', objects.Node.get(
            self.context, body['uuid']).firmware_interface)

    @ddt.data('redfish', 'no-such-firmware')
    def test_an_interface_the_hardware_type_lacks_is_400(self, name):
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'firmware_interface': name},
            version='1.86'), 400, name, 'fake, no-firmware')
        self.assertEqual([], objects.Node.list(self.context))

    def test_only_enabled_interfaces_may_be_named_or_given(self):
        self.config(enabled_firmware_interfaces=['no-firmware', 'redfish'])
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'firmware_interface': 'fake'},
            version='1.86'), 400, "'fake'", 'no-firmware')
        self.assertEqual('no-firmware', self.create(
            name='node-1')['firmware_interface'])

    def test_the_default_interface_option_is_preferred(self):
        self.config(default_firmware_interface='no-firmware')
        self.assertEqual('no-firmware', self.create(
            name='node-1')['firmware_interface'])

    def test_drivers_list_their_firmware_interfaces_from_1_86(self):
        driver = self.get('/v1/drivers/fake-hardware', version='1.86') \
            .get_json()
        self.assertEqual('fake', driver['default_firmware_interface'])
        self.assertEqual(['fake', 'no-firmware'],
                         driver['enabled_firmware_interfaces'])
        self.assertNotIn('default_firmware_interface', self.get(
            '/v1/drivers/fake-hardware', version='1.83').get_json())


class FirmwareComponentsTest(_FirmwareApiTestCase):

    def test_the_endpoint_exists_from_1_86(self):
        self.manageable()
        self.assertError(self.get(FIRMWARE, version='1.83'), 404)
        self.assertEqual(200, self.get(FIRMWARE, version='1.86').status_code)

    def test_a_node_never_read_has_none(self):
        self.create_node(name='node-1')
        self.assertEqual({'firmware': []},
                         self.get(FIRMWARE, version='1.86').get_json())

    def test_an_update_shows_the_new_version_and_keeps_the_first(self):
        self.manageable()
        response = self.clean(update(BIOS_2_1))
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(objects.Node.get(self.context, 'node-1'),
                                   states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        components = self.get(FIRMWARE, version='1.86').get_json()[
            'firmware']
        self.assertEqual(['bios', 'bmc'],
                         [c['component'] for c in components])
        bios, bmc = components
        self.assertEqual(
            {'component': 'bios', 'initial_version': '1.0.0',
             'current_version': '2.1.0', 'last_version_flashed': '2.1.0'},
            {k: bios[k] for k in ('component', 'initial_version',
                                  'current_version',
                                  'last_version_flashed')})
        self.assertIsNone(bmc['last_version_flashed'])
        self.assertEqual({'created_at', 'updated_at', 'component',
                          'initial_version', 'current_version',
                          'last_version_flashed'}, set(bios))
        self.assertTrue(bios['created_at'].endswith('+00:00'))

    def test_fields_selects_what_each_component_shows(self):
        self.manageable()
        body = self.get(FIRMWARE + '?fields=component,current_version',
                        version='1.86').get_json()
        self.assertEqual([{'component': 'bios', 'current_version': '1.0.0'},
                          {'component': 'bmc', 'current_version': '1.0.0'}],
                         body['firmware'])
        self.assertError(self.get(FIRMWARE + '?fields=vendor',
                                  version='1.86'), 400, 'vendor')
        self.assertError(self.get(FIRMWARE + '?detail=true',
                                  version='1.86'), 400, 'detail')

    def test_reading_needs_its_policy(self):
        self.manageable()
        self.use_policy({'baremetal:node:firmware:get': '!'})
        self.assertError(self.get(FIRMWARE, version='1.86'), 403)

    def test_an_unknown_node_is_404(self):
        self.assertError(self.get('/v1/nodes/nope/firmware',
                                  version='1.86'), 404, 'nope')


@ddt.ddt
class RefusedUpdateTest(_FirmwareApiTestCase):
    """A settings list that could only fail: 400 naming the problem, and
    the node as it was."""

    @ddt.data(
        ({'settings': []}, 'non-empty list'),
        ({'settings': {'component': 'bios'}}, 'a dict'),
        ({}, 'settings'),
        ({'settings': [{'component': 'cpld', 'url': 'http://x/c.bin'}]},
         "component must be one of bios, bmc, got 'cpld'"),
        ({'settings': [BIOS_2_1, {'component': 'bmc', 'url': 7}]},
         'settings[1] url must be an http(s) URL'),
        ({'settings': [dict(BIOS_2_1, wait=-5)]},
         'wait must be a positive number of seconds, got -5'))
    @ddt.unpack
    def test_a_bad_settings_list_is_400_and_changes_nothing(
            self, args, fragment):
        node = self.manageable()
        self.assertError(self.clean([{'interface': 'firmware',
                                      'step': 'update', 'args': args}]),
                         400, 'firmware.update', fragment)
        self.assertNodeUnchanged(node)
        self.assertEqual(('1.0.0', None), (
            objects.FirmwareComponent.list_by_node(
                self.context, node.id)[0].current_version,
            objects.FirmwareComponent.list_by_node(
                self.context, node.id)[0].last_version_flashed))

    def test_a_node_with_no_firmware_offers_no_update(self):
        node = self.manageable(firmware_interface='no-firmware')
        self.assertError(self.clean(update(BIOS_2_1)), 400,
                         'no clean step firmware.update')
        self.assertNodeUnchanged(node)
        self.assertEqual({'firmware': []},
                         self.get(FIRMWARE, version='1.86').get_json())


class PinnedTo011Test(_FirmwareApiTestCase):
    """Release 0.11 has no firmware interface: the API answers as 0.11
    did, new nodes get ``no-firmware`` and no component is written."""

    conductor_config = {None: {'pin_release_version': '0.11'}}

    def test_the_field_and_the_endpoint_do_not_exist(self):
        node = self.manageable()
        self.assertEqual('1.83', self.get('/v1').get_json()['version'][
            'version'])
        self.assertError(self.get(FIRMWARE, version='1.86'), 406, '1.83')
        self.assertError(self.get(FIRMWARE, version='1.83'), 404)
        self.assertNotIn('firmware_interface', self.get(
            '/v1/nodes/node-1', version='latest').get_json())
        self.assertError(self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/firmware_interface',
             'value': 'fake'}], version='latest'), 406, 'firmware_interface')
        self.assertNodeUnchanged(node)

    def test_new_nodes_get_no_firmware_and_nothing_is_read(self):
        node = self.manageable()
        # Node 1.5 has no firmware_interface: nothing is written, and a
        # node without one has none, before and after the upgrade.
        self.assertIsNone(node.firmware_interface)
        self.assertEqual('no-firmware', driver_factory.build_driver_for_task(
            node).firmware.name)
        self.assertEqual([], objects.FirmwareComponent.list_by_node(
            self.context, node.id))
        self.assertError(self.clean(update(BIOS_2_1), version='1.83'), 400,
                         'no clean step firmware.update')
        self.config(pin_release_version=None)
        self.assertEqual('no-firmware', self.get(
            '/v1/nodes/node-1', version='1.86').get_json()[
                'firmware_interface'])
        self.assertError(self.clean(update(BIOS_2_1)), 400,
                         'no clean step firmware.update')

    def test_the_fake_interface_cannot_be_set_on_a_node(self):
        node = self.create_node(name='node-1')
        node.firmware_interface = 'fake'
        error = self.assertRaises(
            exception.NotInPinnedRelease,
            driver_factory.check_and_update_node_interfaces, node)
        self.assertIn('0.12', str(error))


class FirmwareIdentityTest(base.AheadOfTheLadderMixin, _FirmwareApiTestCase):
    """``vendor``, ``model`` and ``serial_number`` (API 1.114)."""

    def test_components_show_what_identifies_them_from_1_114(self):
        self.manageable()
        bios, bmc = self.get(FIRMWARE, version='1.114').get_json()[
            'firmware']
        self.assertEqual(
            ('bmc', 'Fake Firmware Inc.', 'Fake BMC 1', 'FAKE-BMC-0001'),
            (bmc['component'], bmc['vendor'], bmc['model'],
             bmc['serial_number']))
        self.assertIsNone(bios['serial_number'])
        self.assertEqual({'created_at', 'updated_at', 'component',
                          'initial_version', 'current_version',
                          'last_version_flashed', 'vendor', 'model',
                          'serial_number'}, set(bios))
        self.assertEqual([{'component': 'bios', 'model': 'Fake BIOS'},
                          {'component': 'bmc', 'model': 'Fake BMC 1'}],
                         self.get(FIRMWARE + '?fields=component,model',
                                  version='1.114').get_json()['firmware'])

    def test_below_1_114_they_are_absent_and_asking_is_400_as_ironic(self):
        self.manageable()
        [bios, _bmc] = self.get(FIRMWARE, version='1.113').get_json()[
            'firmware']
        self.assertNotIn('vendor', bios)
        self.assertError(self.get(FIRMWARE + '?fields=component, model',
                                  version='1.113'), 400, 'model', '1.114')
