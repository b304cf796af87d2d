"""The real ``openstack baremetal`` CLI on what release 0.12 brings:
in-band inspection (the ``agent`` inspect interface, whose agent posts its
inventory to ``/v1/continue_inspection``, API 1.84), against the
all-in-one service."""

import json
import os
import urllib.error
import urllib.request

import fixtures

from ironic_steps.drivers.modules import fake_machine
from tests.functional import fixtures as functional
from tests.functional import test_openstack_client

MAC = '52:54:00:12:34:56'
INVENTORY = {
    'cpu': {'count': 32, 'architecture': 'x86_64'},
    'memory': {'physical_mb': 131072},
    'disks': [{'name': '/dev/nvme0n1', 'size': 960 * 1024 ** 3}],
    'interfaces': [{'name': 'eno1', 'mac_address': MAC,
                    'ipv4_address': '192.0.2.30'}],
    'boot': {'current_boot_mode': 'uefi', 'pxe_interface': MAC},
}


def post_as_the_agent(endpoint, body):
    """POST the inventory as ironic-python-agent does: no credentials, no
    version header (the answer is then 1.1's)."""
    request = urllib.request.Request(
        endpoint + '/v1/continue_inspection', method='POST',
        data=json.dumps(body).encode(),
        headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


class InBandInspectionCLITest(test_openstack_client.CLITestCase):

    def manageable(self, client, name, *create_args):
        created = super().manageable(client, name, '--inspect-interface',
                                     'agent', *create_args)
        self.assertEqual('agent', created['inspect_interface'])
        return created

    def test_the_fake_agent_reports_and_the_inventory_is_saved(self):
        _service, client = self.start_service()
        node = self.manageable(client, 'node-1', '--property', 'cpus=4',
                               '--property', 'memory_mb=8192')
        client.run('node', 'inspect', 'node-1', '--wait', '30')
        shown = client.json('node', 'show', 'node-1')
        self.assertEqual(('manageable', None, 'power off'),
                         (shown['provision_state'], shown['last_error'],
                          shown['power_state']))
        self.assertEqual({'cpus': 4, 'cpu_arch': 'x86_64',
                          'memory_mb': 8192, 'local_gb': 100,
                          'capabilities': 'boot_mode:uefi'},
                         shown['properties'])
        boot_mac = fake_machine.mac_addresses(node['uuid'])[0]
        self.assertEqual([boot_mac], [port['address'] for port in
                                      client.json('port', 'list')])
        saved = os.path.join(self.useFixture(fixtures.TempDir()).path,
                             'inventory.json')
        client.run('node', 'inventory', 'save', 'node-1', '--file', saved)
        with open(saved) as f:
            self.assertEqual(boot_mac, json.load(f)['inventory']['boot'][
                'pxe_interface'])

    def test_an_agent_posts_without_credentials_or_version(self):
        service, client = self.start_service(agent_delay=-1)
        node = self.manageable(client, 'node-1')
        client.run('port', 'create', MAC, '--node', node['uuid'])
        client.run('node', 'inspect', 'node-1')
        self.wait_for(client, 'node-1', lambda shown: shown[
            'provision_state'] == 'inspect wait')
        status, answer = post_as_the_agent(
            service.endpoint, {'inventory': INVENTORY,
                               'root_disk': {'name': '/dev/nvme0n1'}})
        self.assertEqual((202, {'uuid': node['uuid']}), (status, answer))
        shown = self.wait_for(client, 'node-1', lambda shown: shown[
            'provision_state'] == 'manageable')
        self.assertEqual((32, 131072, 959), tuple(shown['properties'][key]
                         for key in ('cpus', 'memory_mb', 'local_gb')))
        _status, stored = functional.RestClient(service.endpoint).request(
            'GET', '/v1/nodes/node-1/inventory')
        self.assertEqual({'root_disk': {'name': '/dev/nvme0n1'}},
                         stored['plugin_data'])
        # Inspected, it waits no more: the same post finds nothing.
        error = self.assertRaises(urllib.error.HTTPError, post_as_the_agent,
                                  service.endpoint, {'inventory': INVENTORY})
        self.assertEqual(404, error.code)

    def test_abort_stops_an_inspection_waiting_for_its_agent(self):
        _service, client = self.start_service(agent_delay=-1)
        self.manageable(client, 'node-1')
        client.run('node', 'inspect', 'node-1')
        self.wait_for(client, 'node-1', lambda shown: shown[
            'provision_state'] == 'inspect wait')
        client.run('node', 'abort', 'node-1')
        shown = self.wait_for(client, 'node-1', lambda shown: shown[
            'provision_state'] == 'inspect failed')
        self.assertIn('aborted by request', shown['last_error'])
        self.assertEqual('power off', shown['power_state'])

    def test_pinned_to_0_11_nodes_cannot_be_inspected_in_band(self):
        service = self.useFixture(functional.ServiceProcess(
            options={'fake': {'agent_delay': 0},
                     'DEFAULT': {'pin_release_version': '0.11'}},
            state_path=self.useFixture(fixtures.TempDir()).path))
        client = functional.OpenStackClient(service.endpoint)
        refused = client.run('node', 'create', '--driver', 'fake-hardware',
                             '--inspect-interface', 'agent', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertEqual([], client.json('node', 'list'))
        error = self.assertRaises(
            urllib.error.HTTPError, functional.RestClient(
                service.endpoint, version='1.83').request, 'POST',
            '/v1/continue_inspection', {'inventory': INVENTORY})
        self.assertEqual(404, error.code)
