"""The real ``openstack baremetal`` CLI on what release 0.11 brought:
inspection and the inventory it records (1.81), shards (1.82), parent and
child nodes (1.83), against the all-in-one service."""

import json
import os

import fixtures

from ironic_steps.drivers.modules import fake_inspect
from tests.functional import test_openstack_client


class NodeApi183CLITest(test_openstack_client.CLITestCase):

    def test_inspect_and_save_the_inventory(self):
        _service, client = self.start_service()
        node = self.manageable(client, 'node-1', '--property', 'cpus=4',
                               '--property', 'memory_mb=8192')
        self.assertEqual('fake', node['inspect_interface'])
        client.run('node', 'inspect', 'node-1', '--wait', '30')
        shown = client.json('node', 'show', 'node-1')
        self.assertEqual('manageable', shown['provision_state'])
        self.assertIsNone(shown['last_error'])
        self.assertEqual({'cpus': 4, 'cpu_arch': 'x86_64',
                          'memory_mb': 8192, 'local_gb': 100,
                          'capabilities': 'boot_mode:uefi'},
                         shown['properties'])
        self.assertIsNotNone(shown['inspection_finished_at'])
        boot_mac = fake_inspect.mac_addresses(node['uuid'])[0]
        self.assertEqual([boot_mac], [port['address'] for port in
                                      client.json('port', 'list')])

        saved = os.path.join(self.useFixture(fixtures.TempDir()).path,
                             'inventory.json')
        client.run('node', 'inventory', 'save', 'node-1', '--file', saved)
        with open(saved) as f:
            inventory = json.load(f)
        self.assertEqual({}, inventory['plugin_data'])
        self.assertEqual(4, inventory['inventory']['cpu']['count'])
        self.assertEqual(boot_mac, inventory['inventory']['boot'][
            'pxe_interface'])

    def test_a_failed_inspection_is_shown_and_the_node_taken_back(self):
        _service, client = self.start_service()
        node = self.manageable(client, 'node-1', '--driver-info',
                               'fake_fail_step=inspect.inspect_hardware')
        waited = client.run('node', 'inspect', 'node-1', '--wait', '30',
                            check=False)
        shown = client.json('node', 'show', 'node-1')
        self.assertEqual((1, 'inspect failed'),
                         (waited.returncode, shown['provision_state']))
        self.assertNotIn('Traceback', waited.stderr)
        self.assertEqual('Failed to inspect hardware of node %s: simulated '
                         'failure (driver_info/fake_fail_step names '
                         'inspect.inspect_hardware)' % node['uuid'],
                         shown['last_error'])
        # Nothing was found, so nothing is saved.
        missing = client.run('node', 'inventory', 'save', 'node-1',
                             check=False)
        self.assertNotEqual(0, missing.returncode)
        self.assertIn('Node inventory for node %s could not be found'
                      % node['uuid'], missing.stderr)
        client.run('node', 'manage', 'node-1', '--wait', '30')
        self.assertEqual('manageable', client.json(
            'node', 'show', 'node-1')['provision_state'])

    def test_shards(self):
        _service, client = self.start_service()
        for name in ('node-1', 'node-2', 'node-3'):
            client.run('node', 'create', '--driver', 'fake-hardware',
                       '--name', name)
        client.run('node', 'set', 'node-1', '--shard', 'rack-a')
        client.run('node', 'set', 'node-2', '--shard', 'rack-a')
        self.assertEqual('rack-a', client.json(
            'node', 'show', 'node-1')['shard'])
        self.assertEqual(
            [{'name': 'rack-a', 'count': 2}, {'name': 'None', 'count': 1}],
            client.json('shard', 'list'))
        self.assertEqual(['node-1', 'node-2'], sorted(
            node['name'] for node in client.json('node', 'list', '--shards',
                                                 'rack-a')))
        self.assertEqual(['node-3'], [
            node['name'] for node in client.json('node', 'list',
                                                 '--unsharded')])

    def test_parent_and_child_nodes(self):
        _service, client = self.start_service()
        host = client.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'host')
        dpu = client.json('node', 'create', '--driver', 'fake-hardware',
                          '--name', 'dpu-1')
        client.run('node', 'set', 'dpu-1', '--parent-node', 'host')
        self.assertEqual(host['uuid'], client.json(
            'node', 'show', 'dpu-1')['parent_node'])
        children = client.run('node', 'children', 'list', 'host')
        self.assertIn(dpu['uuid'], children.stdout)
        # Children are listed only when asked for.
        self.assertEqual(['host'], [
            node['name'] for node in client.json('node', 'list')])
        self.assertEqual(['dpu-1', 'host'], sorted(
            node['name'] for node in client.json('node', 'list',
                                                 '--include-children')))
        self.assertEqual(['dpu-1'], [
            node['name'] for node in client.json('node', 'list',
                                                 '--parent-node', 'host')])
        refused = client.run('node', 'delete', 'host', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('parent_node of %s' % dpu['uuid'], refused.stderr)
        client.run('node', 'unset', 'dpu-1', '--parent-node')
        client.run('node', 'delete', 'host')
