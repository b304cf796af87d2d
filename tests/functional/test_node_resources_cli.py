"""An operator manages a node's ports, portgroups, chassis, volume records
and VIFs with the real `openstack baremetal` CLI against the real service."""

from tests.functional import test_openstack_client

MAC = '52:54:00:12:34:56'
BOND_MAC = '52:54:00:aa:bb:cc'


class NodeResourcesCLITest(test_openstack_client.CLITestCase):

    def setUp(self):
        super().setUp()
        _service, self.client = self.start_service()

    def test_chassis_holds_its_nodes_until_they_leave(self):
        client = self.client
        chassis = client.json('chassis', 'create', '--description', 'rack 1')
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'n1', '--chassis-uuid', chassis['uuid'])
        self.assertEqual(chassis['uuid'],
                         client.json('node', 'show', 'n1')['chassis_uuid'])
        self.assertEqual(['n1'], [n['name'] for n in client.json(
            'node', 'list', '--chassis', chassis['uuid'])])
        client.run('chassis', 'set', chassis['uuid'], '--description',
                   'rack 2', '--extra', 'row=c3')
        shown = client.json('chassis', 'show', chassis['uuid'])
        self.assertEqual(('rack 2', {'row': 'c3'}),
                         (shown['description'], shown['extra']))
        self.assertEqual([chassis['uuid']],
                         [c['uuid'] for c in client.json('chassis', 'list')])
        refused = client.run('chassis', 'delete', chassis['uuid'],
                             check=False)
        self.assertNotEqual(0, refused.returncode)
        client.run('node', 'unset', 'n1', '--chassis-uuid')
        client.run('chassis', 'delete', chassis['uuid'])
        self.assertEqual([], client.json('chassis', 'list'))

    def test_ports_and_port_groups_and_a_vif_on_them(self):
        client = self.client
        node = client.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'n1', '--network-interface', 'flat')
        group = client.json('port', 'group', 'create', '--node',
                            node['uuid'], '--name', 'bond0', '--address',
                            BOND_MAC, '--mode', '802.3ad')
        self.assertEqual('802.3ad', group['mode'])
        port = client.json('port', 'create', MAC, '--node', node['uuid'],
                           '--port-group', group['uuid'],
                           '--physical-network', 'physnet1',
                           '--local-link-connection', 'switch_id=0a:1b:2c:'
                           '3d:4e:5f', '--local-link-connection',
                           'port_id=Ethernet1/1')
        self.assertEqual((group['uuid'], 'physnet1'),
                         (port['portgroup_uuid'], port['physical_network']))
        duplicate = client.run('port', 'create', MAC.upper(), '--node',
                               node['uuid'], check=False)
        self.assertNotEqual(0, duplicate.returncode)
        self.assertIn(MAC, duplicate.stderr)

        self.assertEqual([MAC], [p['address'] for p in client.json(
            'port', 'list', '--node', 'n1')])
        [detailed] = client.json('port', 'list', '--long')
        self.assertEqual('physnet1', detailed['physical_network'])
        client.run('port', 'set', port['uuid'], '--extra', 'cable=blue')
        self.assertEqual({'cable': 'blue'},
                         client.json('port', 'show', port['uuid'])['extra'])
        self.assertEqual(['bond0'], [g['name'] for g in client.json(
            'port', 'group', 'list')])
        client.run('port', 'group', 'set', 'bond0', '--extra', 'lacp=fast')
        self.assertEqual({'lacp': 'fast'}, client.json(
            'port', 'group', 'show', 'bond0')['extra'])

        client.run('node', 'vif', 'attach', 'n1', 'vif-1')
        self.assertEqual(['vif-1'], [v['id'] for v in client.json(
            'node', 'vif', 'list', 'n1')])
        self.assertEqual('vif-1', client.json(
            'port', 'group', 'show', 'bond0')['internal_info'][
                'tenant_vif_port_id'])
        client.run('node', 'vif', 'detach', 'n1', 'vif-1')
        self.assertEqual([], client.json('node', 'vif', 'list', 'n1'))

        in_use = client.run('port', 'group', 'delete', 'bond0', check=False)
        self.assertNotEqual(0, in_use.returncode)
        self.assertIn(port['uuid'], in_use.stderr)
        client.run('port', 'delete', port['uuid'])
        client.run('port', 'group', 'delete', 'bond0')
        self.assertEqual([], client.json('port', 'list'))

    def test_volume_connectors_and_targets(self):
        client = self.client
        node = client.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'n1', '--storage-interface', 'noop')
        connector = client.json(
            'volume', 'connector', 'create', '--node', node['uuid'],
            '--type', 'iqn', '--connector-id', 'iqn.2026-12.org.example:n1')
        target = client.json(
            'volume', 'target', 'create', '--node', node['uuid'], '--type',
            'iscsi', '--boot-index', '0', '--volume-id', 'vol-1')
        self.assertEqual([connector['uuid']], [c['uuid'] for c in client.json(
            'volume', 'connector', 'list', '--node', 'n1')])
        self.assertEqual([0], [t['boot_index'] for t in client.json(
            'volume', 'target', 'list', '--node', 'n1')])
        client.run('volume', 'target', 'set', target['uuid'],
                   '--volume-id', 'vol-2')
        self.assertEqual('vol-2', client.json(
            'volume', 'target', 'show', target['uuid'])['volume_id'])
        client.run('volume', 'connector', 'set', connector['uuid'],
                   '--extra', 'hba=port0')
        self.assertEqual({'hba': 'port0'}, client.json(
            'volume', 'connector', 'show', connector['uuid'])['extra'])
        client.run('volume', 'target', 'delete', target['uuid'])
        client.run('volume', 'connector', 'delete', connector['uuid'])
        self.assertEqual([], client.json('volume', 'connector', 'list'))

    def test_deleting_a_node_takes_its_ports_and_volume_records(self):
        client = self.client
        node = client.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'n1')
        client.run('port', 'create', MAC, '--node', node['uuid'])
        client.run('port', 'group', 'create', '--node', node['uuid'])
        client.run('volume', 'connector', 'create', '--node', node['uuid'],
                   '--type', 'wwpn', '--connector-id', '50:01:43:80:01:02')
        client.run('node', 'add', 'trait', 'n1', 'CUSTOM_GPU')
        client.run('node', 'delete', 'n1')
        self.assertEqual([], client.json('port', 'list'))
        self.assertEqual([], client.json('port', 'group', 'list'))
        self.assertEqual([], client.json('volume', 'connector', 'list'))
