"""The `openstack baremetal` commands around a node, against the real
service: allocations, boot device, console, driver properties, vendor
passthru."""

from tests.functional import test_openstack_client


class AllocationCLITest(test_openstack_client.CLITestCase):

    def test_an_allocation_takes_a_node_is_renamed_and_gives_it_back(self):
        _service, client = self.start_service()
        node = self.enrol_and_provide(client, 'gold-1', '--resource-class',
                                      'gold')
        self.enrol_and_provide(client, 'silver-1', '--resource-class',
                               'silver')

        created = client.json('allocation', 'create', '--resource-class',
                              'gold', '--name', 'web-1', '--wait', '30')
        self.assertEqual('active', created['state'])
        self.assertEqual(node['uuid'], created['node_uuid'])
        shown = client.json('node', 'show', 'gold-1')
        self.assertEqual(created['uuid'], shown['allocation_uuid'])
        self.assertEqual(created['uuid'], shown['instance_uuid'])

        client.run('allocation', 'set', 'web-1', '--extra', 'ticket=OPS-42')
        self.assertEqual({'ticket': 'OPS-42'},
                         client.json('allocation', 'show', 'web-1')['extra'])
        client.run('allocation', 'unset', 'web-1', '--extra', 'ticket')
        listed = client.json('allocation', 'list', '--node', 'gold-1')
        self.assertEqual([created['uuid']], [a['uuid'] for a in listed])

        client.run('allocation', 'delete', 'web-1')
        self.assertEqual([], client.json('allocation', 'list'))
        self.assertIsNone(
            client.json('node', 'show', 'gold-1')['allocation_uuid'])

    def test_nothing_matching_fails_the_allocation_saying_why(self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'gold-1', '--resource-class', 'gold')
        result = client.run('allocation', 'create', '--resource-class',
                            'platinum', '--name', 'nope', '--wait', '30',
                            check=False)
        self.assertNotEqual(0, result.returncode)
        failed = client.json('allocation', 'show', 'nope')
        self.assertEqual('error', failed['state'])
        self.assertIn('platinum', failed['last_error'])


class NodeExtrasCLITest(test_openstack_client.CLITestCase):

    def test_boot_device_console_passthru_and_driver_properties(self):
        _service, client = self.start_service()
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'node-1')

        self.assertEqual({'boot_device': 'pxe', 'persistent': False},
                         client.json('node', 'boot', 'device', 'show',
                                     'node-1'))
        client.run('node', 'boot', 'device', 'set', 'node-1', 'disk',
                   '--persistent')
        self.assertEqual({'boot_device': 'disk', 'persistent': True},
                         client.json('node', 'boot', 'device', 'show',
                                     'node-1'))
        self.assertEqual(
            {'supported_boot_devices': 'pxe, disk'},
            client.json('node', 'boot', 'device', 'show', 'node-1',
                        '--supported'))

        refused = client.run('node', 'console', 'enable', 'node-1',
                             check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('no-console', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual({'console_enabled': False, 'console_info': None},
                         client.json('node', 'console', 'show', 'node-1'))

        self.assertEqual([], client.json('node', 'passthru', 'list',
                                         'node-1'))
        self.assertEqual([], client.json('driver', 'property', 'list',
                                         'fake-hardware'))
        raid_properties = {
            row['property']: row['description'] for row in client.json(
                'driver', 'raid', 'property', 'list', 'fake-hardware')}
        self.assertIn('size_gb', raid_properties)
        self.assertIn('Required', raid_properties['raid_level'])
