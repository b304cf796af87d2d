"""In-band inspection (the ``agent`` inspect interface, release 0.12)
through the real conductor, on fake hardware and SQLite.

The node boots the agent and waits in ``inspect wait``; the machine's
agent reports its inventory (the fake agent, in this process, or the test
through the conductor's ``continue_inspection``, the path
``/v1/continue_inspection`` takes); the inventory is recorded as an
out-of-band inspection's and the node is ``manageable``, its agent powered
off.  (The endpoint itself is tests/unit/api/test_continue_inspection.py.)
"""

import datetime

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import agent_token
from ironic_steps.drivers.modules import agent_inspect
from ironic_steps.drivers.modules import fake
from ironic_steps.drivers.modules import fake_machine
from ironic_steps import objects
from tests import base
from tests.unit.conductor import test_inspection

PROPERTIES = {'cpus': 4, 'memory_mb': 8192, 'local_gb': 50}
#: What a machine's agent reports: a small, real-looking inventory.
INVENTORY = {
    'cpu': {'count': 16, 'architecture': 'aarch64'},
    'memory': {'physical_mb': 32768, 'total': 32768 * 1024 ** 2},
    'disks': [{'name': '/dev/vda', 'size': 21 * 1024 ** 3}],
    'interfaces': [{'name': 'eth0', 'mac_address': '52:54:00:aa:bb:cc',
                    'ipv4_address': '192.0.2.20'}],
    'boot': {'current_boot_mode': 'bios', 'pxe_interface': '52:54:00:aa:bb:cc'},
    'bmc_address': '192.0.2.200',
}


ports_of = test_inspection.ports_of


class _AgentInspectionTestCase(test_inspection._InspectionTestCase):

    def manageable(self, **fields):
        fields.setdefault('inspect_interface', 'agent')
        return super().manageable(**fields)


class FakeAgentReportsTest(_AgentInspectionTestCase):
    """fake-hardware's agent reports its fake machine by itself."""

    def setUp(self):
        super().setUp()
        self.config(agent_delay=0, group='fake')

    def test_the_fake_machine_boots_the_agent_which_reports_its_inventory(
            self):
        node = self.manageable(properties=dict(PROPERTIES, vendor='acme'))
        node = self.inspect(node)
        self.assertIsNone(node.last_error)
        self.assertIsNone(node.target_provision_state)
        self.assertEqual(
            {'cpus': 4, 'cpu_arch': 'x86_64', 'memory_mb': 8192,
             'local_gb': 50, 'capabilities': 'boot_mode:uefi',
             'vendor': 'acme'}, node.properties)
        stored = objects.NodeInventory.get_by_node_id(self.context, node.id)
        self.assertEqual(fake_machine.inventory(node, 'uefi'),
                         stored.inventory_data)
        boot_mac, _other = fake_machine.mac_addresses(node.uuid)
        self.assertEqual([(boot_mac, True)], ports_of(self.context, node))
        # It booted the agent from the network, then powered it off.
        info = node.driver_internal_info
        self.assertEqual(1, info[fake.BOOTS_KEY])
        self.assertEqual('pxe', info['fake_boot_device'])
        self.assertEqual(states.POWER_OFF, node.power_state)
        self.assertNotIn(agent_inspect.LOOKUP_KEY, info)
        self.assertLessEqual(node.inspection_started_at,
                             node.inspection_finished_at)

    def test_a_fake_node_may_choose_the_agent_inspect_interface(self):
        node = self.create_node(inspect_interface='agent')
        self.assertEqual('agent', node.inspect_interface)


class AgentReportsTest(_AgentInspectionTestCase):
    """The test plays the machine's agent (the fake agent is off, as in
    every test that does not turn it on)."""

    def waiting(self, **fields):
        node = self.inspect(self.manageable(**fields),
                            ends_in=states.INSPECTWAIT)
        self.assertEqual(states.MANAGEABLE, node.target_provision_state)
        self.assertEqual(states.POWER_ON, node.power_state)
        return node

    def report(self, node, inventory=None, plugin_data=None):
        self.rpcapi.continue_inspection(
            self.context, node.uuid, inventory or INVENTORY,
            plugin_data or {'root_disk': {'name': '/dev/vda'}})

    def test_what_the_agent_reports_is_recorded_and_the_node_manageable(
            self):
        node = self.waiting()
        self.report(node)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual({'cpus': 16, 'cpu_arch': 'aarch64',
                          'memory_mb': 32768, 'local_gb': 20,
                          'capabilities': 'boot_mode:bios'}, node.properties)
        self.assertEqual([('52:54:00:aa:bb:cc', True)],
                         ports_of(self.context, node))
        stored = objects.NodeInventory.get_by_node_id(self.context, node.id)
        self.assertEqual(INVENTORY, stored.inventory_data)
        self.assertEqual({'root_disk': {'name': '/dev/vda'}},
                         stored.plugin_data)
        self.assertEqual(states.POWER_OFF, node.power_state)

    def test_the_agents_logs_are_not_stored_with_the_plugin_data(self):
        node = self.waiting()
        self.report(node, plugin_data={'logs': 'H4sIAAAA', 'extra': 1})
        node = self.wait_for_state(node, states.MANAGEABLE)
        stored = objects.NodeInventory.get_by_node_id(self.context, node.id)
        self.assertEqual({'extra': 1}, stored.plugin_data)

    def test_the_agent_token_handed_out_while_waiting_is_forgotten(self):
        node = self.waiting()
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.assertNotIn(token, (None, agent_token.MASK))
        self.report(node)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertNotIn(agent_token.TOKEN_KEY, node.driver_internal_info)
        self.assertRaises(exception.NodeNotFound,
                          self.rpcapi.get_node_with_token, self.context,
                          node.uuid)

    def test_a_malformed_inventory_fails_the_inspection_naming_where(self):
        node = self.waiting()
        self.report(node, inventory={'cpu': {'count': 2},
                                     'memory': {'physical_mb': 1},
                                     'interfaces': []})
        node = self.wait_for_state(node, states.INSPECTFAIL)
        self.assertIn('malformed at cpu', node.last_error)
        self.assertRaises(exception.NodeInventoryNotFound,
                          objects.NodeInventory.get_by_node_id,
                          self.context, node.id)

    def test_a_report_for_a_node_that_does_not_wait_changes_nothing(self):
        node = self.manageable()
        before = objects.Node.get(self.context, node.uuid)
        self.assertRaises(exception.InspectedNodeNotFound, self.report, node)
        after = objects.Node.get(self.context, node.uuid)
        self.assertEqual((states.MANAGEABLE, before.properties, None),
                         (after.provision_state, after.properties,
                          after.reservation))
        self.assertEqual([], ports_of(self.context, node))

    def test_the_bmc_addresses_are_noted_while_it_waits(self):
        node = self.waiting(driver_info={
            'redfish_address': 'https://192.0.2.7:8000',
            'ipmi_address': '127.0.0.1', 'deploy_iso': 'http://x/y.iso'})
        self.assertEqual(['192.0.2.7'],
                         node.driver_internal_info[agent_inspect.LOOKUP_KEY])

    def test_an_operator_aborts_it_and_the_agent_is_powered_off(self):
        node = self.waiting(driver_info={'ipmi_address': '192.0.2.8'})
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'abort')
        node = self.wait_for_state(node, states.INSPECTFAIL)
        self.assertIn('aborted by request', node.last_error)
        self.assertEqual(states.POWER_OFF, node.power_state)
        self.assertNotIn(agent_inspect.LOOKUP_KEY, node.driver_internal_info)
        self.assertRaises(exception.InspectedNodeNotFound, self.report, node)

    def test_it_fails_once_inspect_wait_timeout_passes_agent_off(self):
        self.config(inspect_wait_timeout=60, group='conductor')
        node = self.waiting()
        node.provision_updated_at = (timeutils.utcnow()
                                     - datetime.timedelta(seconds=61))
        node.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.INSPECTFAIL, node.provision_state)
        self.assertIn('did not report within 60 seconds', node.last_error)
        self.assertEqual(states.POWER_OFF, node.power_state)

    def test_an_interface_that_never_waits_fails_a_report(self):
        node = self.inspect(self.manageable(
            inspect_interface='fake', driver_info={'fake_inspect_wait': True}),
            ends_in=states.INSPECTWAIT)
        self.report(node)
        node = self.wait_for_state(node, states.INSPECTFAIL)
        self.assertIn('does not support in-band inspection', node.last_error)


class BmcAddressesTest(base.TestCase):

    def test_every_address_field_counts_but_loopback(self):
        self.assertEqual(
            ['192.0.2.1', '2001:db8::5'],
            agent_inspect.bmc_addresses({
                'redfish_address': 'https://[2001:db8::5]:8000/redfish',
                'ipmi_address': '192.0.2.1', 'other_address': '::1',
                'bmc_address': 'http://127.0.0.1:8000', 'username': 'x'}))


class PinnedTo011Test(_AgentInspectionTestCase):
    """Release 0.11 inspects out of band only."""

    conductor_config = {None: {'pin_release_version': '0.11'}}

    def test_the_agent_inspect_interface_cannot_be_chosen(self):
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                self.create_node, inspect_interface='agent')
        self.assertIn('0.12', str(exc))

    def test_a_report_is_refused_naming_the_release(self):
        node = self.create_node()
        exc = self.assertRaises(
            exception.NotInPinnedRelease, self.rpcapi.continue_inspection,
            self.context, node.uuid, INVENTORY, {})
        self.assertIn('0.12', str(exc))
