"""The node API up to 1.69 through the real `openstack baremetal` CLI:
power, maintenance, validation, RAID, conductors and old versions."""

import json
import time

import testtools

from tests.functional import fixtures as functional

LAYOUT = {'logical_disks': [{'size_gb': 10, 'raid_level': '1',
                             'is_root_volume': True}]}


class NodeApiClientTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.service = self.useFixture(functional.AllInOneService(
            {'fake': {'agent_delay': 0},
             'conductor': {'node_locked_retry_interval': 0.1}}))
        self.client = functional.OpenStackClient(self.service.endpoint)

    def show(self, name, *fields):
        args = ['node', 'show', name]
        for field in fields:
            args += ['-c', field]
        return self.client.json(*args)

    def wait_for_power(self, name, power_state, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            node = self.show(name, 'power_state', 'target_power_state',
                             'last_error')
            if (node['power_state'] == power_state
                    and node['target_power_state'] is None):
                return node
            if time.monotonic() > deadline:
                self.fail('node %s never reached %s: %s' % (
                    name, power_state, node))
            time.sleep(0.2)

    def test_power_maintenance_validate_and_raid(self):
        client = self.client
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'n1')
        client.run('node', 'power', 'on', 'n1')
        self.wait_for_power('n1', 'power on')
        client.run('node', 'power', 'off', 'n1', '--soft',
                   '--power-timeout', '5')
        self.wait_for_power('n1', 'power off')
        client.run('node', 'reboot', 'n1')
        self.wait_for_power('n1', 'power on')

        client.run('node', 'maintenance', 'set', 'n1', '--reason',
                   'disk swap')
        node = self.show('n1', 'maintenance', 'maintenance_reason')
        self.assertEqual({'maintenance': True,
                          'maintenance_reason': 'disk swap'}, node)
        client.run('node', 'maintenance', 'unset', 'n1')
        node = self.show('n1', 'maintenance', 'maintenance_reason')
        self.assertEqual({'maintenance': False,
                          'maintenance_reason': None}, node)

        results = {row['Interface']: row for row in
                   client.json('node', 'validate', 'n1')}
        self.assertTrue(results['power']['Result'])
        self.assertTrue(results['deploy']['Result'])
        self.assertFalse(results['console']['Result'])
        self.assertIn('no-console', results['console']['Reason'])
        self.assertNotIn('vendor', results)

        client.run('node', 'set', 'n1', '--target-raid-config',
                   json.dumps(LAYOUT))
        node = self.show('n1', 'target_raid_config', 'raid_config')
        self.assertEqual({'target_raid_config': LAYOUT, 'raid_config': {}},
                         node)
        bad = client.run('node', 'set', 'n1', '--target-raid-config',
                         '{"logical_disks": [{"size_gb": 10}]}', check=False)
        self.assertNotEqual(0, bad.returncode)
        self.assertIn('raid_level', bad.stderr)
        self.assertNotIn('Traceback', bad.stderr)

    def test_conductors_old_versions_and_the_fields_of_1_44(self):
        client = self.client
        conductors = client.json('conductor', 'list')
        self.assertEqual([{'hostname': 'functional-conductor',
                           'conductor_group': '', 'alive': True}],
                         conductors)
        shown = client.json('conductor', 'show', 'functional-conductor')
        self.assertEqual(['fake-hardware', 'redfish'], shown['drivers'])

        old = functional.OpenStackClient(self.service.endpoint,
                                         api_version='1.10')
        created = old.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'old-node')
        self.assertEqual('available', created['provision_state'])
        self.assertNotIn('raid_config', created)

        at_1_44 = functional.OpenStackClient(self.service.endpoint,
                                             api_version='1.44')
        node = at_1_44.json('node', 'show', 'old-node')
        for field in ('chassis_uuid', 'console_enabled', 'fault',
                      'raid_config', 'target_raid_config',
                      'inspection_started_at', 'inspection_finished_at',
                      'console_interface', 'inspect_interface',
                      'network_interface', 'rescue_interface',
                      'storage_interface'):
            self.assertIn(field, node)
        self.assertNotIn('conductor', node)
        self.assertEqual('functional-conductor', client.json(
            'node', 'show', 'old-node', '-c', 'conductor')['conductor'])

    def test_protected_and_retired_through_node_set(self):
        client = self.client
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'n1')
        client.run('node', 'manage', 'n1', '--wait', '30')
        client.run('node', 'set', 'n1', '--retired', '--retired-reason',
                   'end of life')
        self.assertEqual({'retired': True, 'retired_reason': 'end of life'},
                         self.show('n1', 'retired', 'retired_reason'))
        refused = client.run('node', 'provide', 'n1', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('retired', refused.stderr)
        protect = client.run('node', 'set', 'n1', '--protected',
                             check=False)
        self.assertNotEqual(0, protect.returncode)
        self.assertIn('only an active node', protect.stderr)
