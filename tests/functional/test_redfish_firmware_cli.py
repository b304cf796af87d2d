"""Firmware as an operator meets it (API 1.86, release 0.12): the real
``openstack baremetal`` CLI against the real all-in-one service, whose
conductor updates the firmware of sushy-tools' emulator
(:mod:`tests.redfish_emulator`) through its UpdateService.

What the BMC runs is read back from the emulator itself, never only from
our API.  The emulator's update tasks take longer than the service's
clean call-back timeout, as real BMC updates outlast the agent call-back
timeout (Ironic's bug 2136276): the update must survive it.
"""

import json
import time

import testtools

from tests.functional import fixtures as functional
from tests.redfish_emulator import RedfishEmulator

#: Seconds each emulated update task runs: several times the clean
#: call-back timeout below, and several looks of the housekeeping.
UPDATE_SECONDS = 6
SERVICE_OPTIONS = {
    'redfish': {'server_side_retries': 0, 'connect_timeout': 2,
                'read_timeout': 10},
    'conductor': {'node_locked_retry_interval': 0.1,
                  'step_poll_interval': 0.5,
                  'clean_callback_timeout': 1,
                  'check_provision_state_interval': 1},
}
BIOS_IMAGE = 'http://127.0.0.1:9/firmware/bios-2.1.0.bin'
BMC_IMAGE = 'http://127.0.0.1:9/firmware/bmc-5.10.bin'


def firmware_update(*settings):
    return json.dumps([{'interface': 'firmware', 'step': 'update',
                        'args': {'settings': list(settings)}}])


class RedfishFirmwareCLITest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.emulator = self.useFixture(RedfishEmulator(
            systems=2, update_seconds=UPDATE_SECONDS))
        self.system_id = self.emulator.system_ids[0]
        self.service = self.useFixture(
            functional.AllInOneService(SERVICE_OPTIONS))
        self.client = functional.OpenStackClient(self.service.endpoint)

    def manageable(self, name='node-1'):
        created = self.client.json(
            'node', 'create', '--driver', 'redfish', '--name', name,
            # Firmware out of band: cleaning boots no agent.
            '--deploy-interface', 'ramdisk',
            '--driver-info', 'redfish_address=%s' % self.emulator.address,
            '--driver-info', 'redfish_system_id=%s' % self.system_id)
        self.client.run('node', 'manage', name, '--wait', '30')
        return created

    def components(self, name='node-1'):
        """{component: (initial, current, last flashed)}."""
        return {row['component']: (row['initial_version'],
                                   row['current_version'],
                                   row['last_version_flashed'])
                for row in self.client.json('node', 'firmware', 'list',
                                            name)}

    def wait_for_state(self, state, timeout=90):
        deadline = time.monotonic() + timeout
        while True:
            node = self.client.json('node', 'show', 'node-1', '-c',
                                    'provision_state', '-c', 'last_error')
            if node['provision_state'] == state:
                return node
            if time.monotonic() > deadline:
                self.fail('node-1 never reached %s: %s' % (state, node))
            time.sleep(0.5)

    def test_an_update_longer_than_the_callback_timeout_flashes_both(self):
        created = self.manageable()
        self.assertEqual('redfish', created['firmware_interface'])
        # Managing the node read what its BMC runs.
        self.assertEqual({'bios': ('1.0.0', '1.0.0', None),
                          'bmc': ('1.00', '1.00', None)},
                         self.components())

        started = time.monotonic()
        self.client.run('node', 'clean', 'node-1', '--clean-steps',
                        firmware_update(
                            {'component': 'bios', 'url': BIOS_IMAGE},
                            {'component': 'bmc', 'url': BMC_IMAGE}))
        # Past the call-back timeout and a housekeeping look, still waiting
        # for the BMC, not failed.
        time.sleep(3)
        node = self.client.json('node', 'show', 'node-1')
        self.assertEqual(('clean wait', None),
                         (node['provision_state'], node['last_error']))
        self.assertEqual({'interface': 'firmware', 'step': 'update'},
                         {k: node['clean_step'][k]
                          for k in ('interface', 'step')})

        node = self.wait_for_state('manageable')
        self.assertIsNone(node['last_error'])
        # Two tasks, one after the other.
        self.assertGreater(time.monotonic() - started, 2 * UPDATE_SECONDS)
        self.assertEqual('2.1.0', self.emulator.bios_version(self.system_id))
        self.assertEqual('5.10', self.emulator.bmc_version(self.system_id))
        # The other system behind the BMC was not touched.
        other = self.emulator.system_ids[1]
        self.assertEqual(('1.0.0', '1.00'),
                         (self.emulator.bios_version(other),
                          self.emulator.bmc_version(other)))
        self.assertEqual({'bios': ('1.0.0', '2.1.0', '2.1.0'),
                          'bmc': ('1.00', '5.10', '5.10')},
                         self.components())

    def test_a_bad_settings_list_is_refused_and_the_interface_can_change(
            self):
        self.manageable()
        refused = self.client.run(
            'node', 'clean', 'node-1', '--clean-steps', firmware_update(
                {'component': 'bios', 'url': BIOS_IMAGE},
                {'component': 'nic', 'url': BMC_IMAGE}), check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn("firmware.update settings[1] component must be one of "
                      "bios, bmc, got 'nic'", refused.stderr)
        self.assertIn('HTTP 400', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        node = self.client.json('node', 'show', 'node-1')
        self.assertEqual(('manageable', {}),
                         (node['provision_state'], node['clean_step']))
        self.assertEqual('1.0.0', self.emulator.bios_version(self.system_id))
        self.assertEqual(('1.0.0', '1.0.0', None),
                         self.components()['bios'])

        self.client.run('node', 'set', 'node-1', '--firmware-interface',
                        'no-firmware')
        self.assertEqual('no-firmware', self.client.json(
            'node', 'show', 'node-1')['firmware_interface'])
        refused = self.client.run(
            'node', 'clean', 'node-1', '--clean-steps', firmware_update(
                {'component': 'bios', 'url': BIOS_IMAGE}), check=False)
        self.assertIn('offers no clean step firmware.update',
                      refused.stderr)
