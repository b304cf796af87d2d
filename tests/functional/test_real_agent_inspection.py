"""In-band inspection with the real ironic-python-agent, end to end.

The all-in-one service inspects a fake-hardware node of the ``agent``
inspect interface, whose machine is played by
:class:`tests.real_agent.machine.Machine`: powered on to boot from the
network, it boots a real IPA 13 confined to the machine's loop disks (see
tests/real_agent/sandbox.py), started with
``ipa-inspection-callback-url`` set to the API's
``/v1/continue_inspection``.  The agent posts its inventory as it does to
Ironic (no credentials, no version), the node is found by its port, and
the inventory it stores names the loop disk.  The service's own fake
agent is off, so only the real agent can report.
"""

import fixtures
import testtools
from testtools import content

from tests.functional import fixtures as service_fixtures
from tests.real_agent import machine
from tests.real_agent import sandbox

_UNAVAILABLE = sandbox.why_unavailable()
MAC = '52:54:00:5e:00:02'


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class RealAgentInspectionTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.TempDir())
        self.service = self.useFixture(service_fixtures.ServiceProcess(
            options={'fake': {'agent_delay': '-1'},
                     'api': {'ramdisk_heartbeat_timeout':
                             machine.HEARTBEAT_TIMEOUT}}))
        self.api = service_fixtures.RestClient(self.service.endpoint)
        self.disks = self.useFixture(sandbox.LoopDisks())

    def test_the_agent_posts_its_inventory_and_the_node_is_manageable(self):
        status, node = self.api.request('POST', '/v1/nodes', {
            'name': 'real-1', 'driver': 'fake-hardware',
            'inspect_interface': 'agent'})
        self.assertEqual(201, status)
        self.api.request('POST', '/v1/ports', {'node_uuid': node['uuid'],
                                               'address': MAC})
        self.machine = self.useFixture(machine.Machine(
            self.service.endpoint, node['uuid'], MAC, self.disks,
            inspect=True))
        self.addOnException(lambda info: self.addDetail(
            'agents', content.text_content(self.machine.logs())))
        self.addOnException(lambda info: self.addDetail(
            'service', content.text_content(self.service.log()[-8000:])))
        self.api.request('PUT', '/v1/nodes/real-1/states/provision',
                         {'target': 'manage'})
        self.api.wait_for('real-1', 'manageable', timeout=60)

        self.api.request('PUT', '/v1/nodes/real-1/states/provision',
                         {'target': 'inspect'})
        node = self.api.wait_for('real-1', 'manageable', timeout=180)

        self.assertIsNone(node['last_error'])
        self.assertIsNotNone(node['inspection_finished_at'])
        _status, stored = self.api.request('GET',
                                           '/v1/nodes/real-1/inventory')
        inventory = stored['inventory']
        disk = self.disks.disks[0]
        self.assertIn(disk.serial, [found.get('serial')
                                    for found in inventory['disks']])
        self.assertIn(MAC, [interface['mac_address']
                            for interface in inventory['interfaces']])
        # What the conductor derived from it, as from any inspection.
        self.assertEqual(inventory['cpu']['count'],
                         node['properties']['cpus'])
        self.assertEqual(inventory['memory']['physical_mb'],
                         node['properties']['memory_mb'])
        # The loop disk is smaller than 4 GiB: no disk for an image.
        self.assertEqual(0, node['properties']['local_gb'])
        # The agent's own plugin data came with it, but not its logs.
        self.assertIn('IronicStepsLoopHardwareManager', [
            manager['name'] for manager in
            stored['plugin_data']['configuration']['managers']])
        self.assertNotIn('logs', stored['plugin_data'])
        # Then the conductor powered the agent off, out of band.
        self.assertEqual('power off', node['power_state'])
        self.assertTrue(self.machine.agent_stopped())
