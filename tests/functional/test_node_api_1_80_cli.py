"""The real ``openstack baremetal`` CLI on what API 1.70-1.80 brought: boot
mode and secure boot, manual cleaning without the agent, driver fields."""

import json

from tests.functional import test_openstack_client

RAID_STEP = {'interface': 'raid', 'step': 'apply_configuration',
             'args': {'raid_config': {'logical_disks': [
                 {'size_gb': 100, 'raid_level': '1',
                  'is_root_volume': True}]}}}
AGENT_STEP = {'interface': 'deploy', 'step': 'erase_devices_metadata'}


class NodeApi180CLITest(test_openstack_client.CLITestCase):

    def manageable(self, client, name='node-1'):
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   name)
        client.run('node', 'manage', name, '--wait', '30')

    def test_boot_mode_and_secure_boot(self):
        _service, client = self.start_service()
        self.manageable(client)
        node = client.json('node', 'show', 'node-1')
        self.assertEqual(('uefi', False),
                         (node['boot_mode'], node['secure_boot']))

        client.run('node', 'boot', 'mode', 'set', 'node-1', 'bios')
        self.wait_for(client, 'node-1',
                      lambda n: n['boot_mode'] == 'bios'
                      and not n['reservation'])
        # Secure boot needs uefi: the BMC's refusal is the last error.
        client.run('node', 'secure', 'boot', 'on', 'node-1')
        node = self.wait_for(client, 'node-1',
                             lambda n: n['last_error'] is not None)
        self.assertIn('secure boot needs uefi', node['last_error'])
        self.assertFalse(node['secure_boot'])

        client.run('node', 'boot', 'mode', 'set', 'node-1', 'uefi')
        self.wait_for(client, 'node-1', lambda n: n['boot_mode'] == 'uefi'
                      and not n['reservation'])
        client.run('node', 'secure', 'boot', 'on', 'node-1')
        node = self.wait_for(client, 'node-1', lambda n: n['secure_boot'])
        self.assertIsNone(node['last_error'])

    def test_manual_cleaning_without_the_agent(self):
        _service, client = self.start_service()
        self.manageable(client)
        refused = client.run(
            'node', 'clean', 'node-1', '--disable-ramdisk', '--clean-steps',
            json.dumps([RAID_STEP, AGENT_STEP]), check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('deploy.erase_devices_metadata needs the node booted '
                      'into its agent', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual('manageable', client.json(
            'node', 'show', 'node-1')['provision_state'])

        client.run('node', 'clean', 'node-1', '--disable-ramdisk',
                   '--clean-steps', json.dumps([RAID_STEP]), '--wait', '30')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('manageable', node['provision_state'])
        self.assertIsNone(node['last_error'])
        self.assertEqual(RAID_STEP['args']['raid_config'],
                         node['raid_config'])

    def test_driver_fields(self):
        _service, client = self.start_service()
        drivers = client.json('driver', 'list', '--fields', 'name',
                              'enabled_power_interfaces')
        # The client shows the fields it asked for, as it got them.
        self.assertEqual(
            [{'name': 'fake-hardware', 'enabled_power_interfaces': 'fake'},
             {'name': 'redfish', 'enabled_power_interfaces': 'redfish'}],
            drivers)
