"""The redfish firmware interface against the Redfish BMC emulator: a
started conductor, its poller every 0.1 s, sushy over HTTP, and what the
BMC runs read back from the emulator (see :mod:`test_redfish_driver`)."""

import time

from ironic_steps.common import states
from ironic_steps.drivers import base as drivers_base
from ironic_steps import objects
from tests.functional import test_redfish_driver

BIOS_IMAGE = 'http://127.0.0.1:9/fw/bios-2.1.0.bin'


def update(*settings):
    return [{'interface': 'firmware', 'step': 'update',
             'args': {'settings': list(settings)}}]


class _FirmwareTestCase(test_redfish_driver.RedfishTestCase):

    def components(self, node):
        return {c.component: c for c in objects.FirmwareComponent
                .list_by_node(self.context, node.id)}

    def versions(self, node):
        return {name: (c.initial_version, c.current_version,
                       c.last_version_flashed)
                for name, c in self.components(node).items()}


class RedfishFirmwareTest(_FirmwareTestCase):

    def test_managing_reads_the_bios_and_bmc_versions_and_the_bmc_model(
            self):
        node = self.manageable()
        self.assertEqual('redfish', node.firmware_interface)
        self.assertEqual({'bios': ('1.0.0', '1.0.0', None),
                          'bmc': ('1.00', '1.00', None)},
                         self.versions(node))
        # Kept for Ironic's 1.114 fields, not served at 1.86.
        self.assertEqual('Joo Janta 200', self.components(node)['bmc'].model)

    def test_a_failed_image_fails_the_step_with_the_bmc_message(self):
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid, update(
            {'component': 'bios',
             'url': 'http://127.0.0.1:9/fw/fail-bios.bin'}))
        node = self.wait_for_state(node, states.CLEANFAIL, timeout=60)
        self.assertIn('firmware.update', node.last_error)
        self.assertIn('failed verification', node.last_error)
        self.assertEqual(('1.0.0', '1.0.0', None),
                         self.versions(node)['bios'])

    def test_a_components_wait_holds_the_step_after_its_task(self):
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid, update(
            {'component': 'bios', 'url': BIOS_IMAGE, 'wait': 3}))
        deadline = time.monotonic() + 30
        status = ''
        while 'waiting 3 seconds after the bios update' not in status:
            self.assertLess(time.monotonic(), deadline, status)
            time.sleep(0.1)
            stored = objects.Node.get(self.context, node.uuid)
            status = (stored.driver_internal_info.get(
                drivers_base.POLLING_KEY) or {}).get('status') or ''
        self.assertEqual(states.CLEANWAIT, stored.provision_state)
        # The BMC is done already; the step is not, until its wait is over.
        self.assertEqual('2.1.0', self.emulator.bios_version(
            self.system_id()))
        node = self.wait_for_state(node, states.MANAGEABLE, timeout=30)
        self.assertEqual(('1.0.0', '2.1.0', '2.1.0'),
                         self.versions(node)['bios'])

    def test_the_deprecated_management_step_still_updates(self):
        node = self.manageable()
        self.clean_firmware(node, 'http://127.0.0.1:9/fw/bios-3.0.bin')
        node = self.wait_for_state(node, states.MANAGEABLE, timeout=60)
        self.assertIsNone(node.last_error)
        self.assertEqual('3.0', self.emulator.bios_version(self.system_id()))


class SlowFirmwareTest(_FirmwareTestCase):

    emulator_options = {'update_seconds': 30}

    def test_an_update_past_its_timeout_fails_naming_it(self):
        self.config(firmware_update_timeout=1, group='redfish')
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid,
                                  update({'component': 'bios',
                                          'url': BIOS_IMAGE}))
        node = self.wait_for_state(node, states.CLEANFAIL, timeout=30)
        self.assertIn('firmware.update timed out after 1 seconds',
                      node.last_error)
        self.assertEqual('1.0.0', self.emulator.bios_version(
            self.system_id()))
