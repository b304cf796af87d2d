"""The real ``openstack baremetal port`` CLI on the port fields of
Ironic's API beyond 1.83 (release 0.12), against the all-in-one service."""

import testtools

from ironic_steps.api import versions
from tests.functional import fixtures as functional
from tests.functional import test_openstack_client

MAC = '52:54:00:12:34:56'


class PortApiCLITest(test_openstack_client.CLITestCase):

    def test_a_port_is_named_found_by_its_name_renamed_and_unnamed(self):
        _service, client = self.start_service()
        node = client.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'n1')
        port = client.json('port', 'create', MAC, '--node', node['uuid'],
                           '--name', 'eth0')
        self.assertEqual('eth0', port['name'])
        self.assertEqual(port['uuid'],
                         client.json('port', 'show', 'eth0')['uuid'])
        client.run('port', 'set', 'eth0', '--name', 'nic-1')
        [listed] = client.json('port', 'list', '--long')
        self.assertEqual('nic-1', listed['name'])
        taken = client.run('port', 'create', '52:54:00:12:34:57', '--node',
                           node['uuid'], '--name', 'nic-1', check=False)
        self.assertNotEqual(0, taken.returncode)
        self.assertIn('nic-1', taken.stderr)
        client.run('port', 'unset', 'nic-1', '--name')
        self.assertIsNone(client.json('port', 'show', port['uuid'])['name'])

    def test_an_older_client_cannot_name_a_port(self):
        service, client = self.start_service()
        node = client.json('node', 'create', '--driver', 'fake-hardware')
        old = functional.OpenStackClient(service.endpoint, api_version='1.87')
        refused = old.run('port', 'create', MAC, '--node', node['uuid'],
                          '--name', 'eth0', check=False)
        self.assertNotEqual(0, refused.returncode)
        # ironicclient's words for a 406.
        self.assertIn('not supported by the requested version',
                      refused.stderr)
        self.assertEqual([], client.json('port', 'list'))

    @testtools.skipIf(
        versions.max_version() < versions.at(
            versions.MINOR_111_DYNAMIC_PORTGROUP),
        'API 1.97-1.111 are built but not served until the maximum reaches '
        'them (versions.AWAITING_LADDER); their API tests run ahead of it')
    def test_port_and_port_group_fields_up_to_1_111(self):
        service, client = self.start_service()
        node = client.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'n1', '--shard', 'rack-1')
        group = client.json('port', 'group', 'create', '--node',
                            node['uuid'], '--name', 'bond0',
                            '--physical-network', 'physnet1', '--category',
                            'storage')
        self.assertEqual(('physnet1', 'storage'), (
            group['physical_network'], group['category']))
        port = client.json('port', 'create', MAC, '--node', node['uuid'],
                           '--port-group', group['uuid'], '--pxe-enabled',
                           'false', '--description', 'left NIC',
                           '--vendor', 'acme', '--category', 'storage')
        self.assertEqual(('acme', 'storage'),
                         (port['vendor'], port['category']))
        # The CLI does not show these two; the API does.
        _status, shown = functional.RestClient(service.endpoint).request(
            'GET', '/v1/ports/%s' % port['uuid'])
        self.assertEqual(('left NIC', True), (
            shown['description'], shown['available_for_dynamic_portgroup']))
        client.run('port', 'group', 'set', 'bond0', '--physical-network',
                   'physnet2')
        self.assertEqual('physnet2', client.json(
            'port', 'show', port['uuid'])['physical_network'])
        client.run('port', 'unset', port['uuid'], '--vendor')
        self.assertIsNone(client.json('port', 'show',
                                      port['uuid'])['vendor'])
        self.assertEqual(['bond0'], [g['name'] for g in client.json(
            'port', 'group', 'list', '--shards', 'rack-1')])
        self.assertEqual([], client.json('port', 'group', 'list',
                                         '--shards', 'rack-2'))
