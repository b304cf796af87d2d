"""Inspection through the real conductor, on fake hardware and SQLite.

A manageable node is inspected: its properties, ports and inventory are
recorded and it is manageable again; a failure leaves it ``inspect
failed``; an inspection that waits is aborted or times out.  (The redfish
inspect interface against a BMC emulator is in
tests/functional/test_redfish_driver.py.)
"""

import datetime

import ddt
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import inventory_records
from ironic_steps.drivers.modules import fake_inspect
from ironic_steps import objects
from tests import base

PROPERTIES = {'cpus': 4, 'memory_mb': 8192, 'local_gb': 50}


def ports_of(context, node):
    return sorted((port.address, port.pxe_enabled) for port in
                  objects.Port.list(context,
                                    filters={'node_uuid': node.uuid}))


class _InspectionTestCase(base.ConductorTestCase):

    def manageable(self, **fields):
        node = self.create_node(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def inspect(self, node, ends_in=states.MANAGEABLE):
        self.rpcapi.inspect_hardware(self.context, node.uuid)
        return self.wait_for_state(node, ends_in)

    def inventory(self, node):
        return objects.NodeInventory.get_by_node_id(self.context, node.id)


@ddt.ddt
class InspectionTest(_InspectionTestCase):

    def test_a_manageable_node_is_inspected_and_what_it_has_recorded(self):
        node = self.manageable(properties=dict(PROPERTIES, vendor='acme'))
        node = self.inspect(node)
        self.assertIsNone(node.last_error)
        self.assertIsNone(node.target_provision_state)
        self.assertEqual(
            {'cpus': 4, 'cpu_arch': 'x86_64', 'memory_mb': 8192,
             'local_gb': 50, 'capabilities': 'boot_mode:uefi',
             'vendor': 'acme'}, node.properties)
        self.assertLessEqual(node.inspection_started_at,
                             node.inspection_finished_at)
        boot_mac, _other = fake_inspect.mac_addresses(node.uuid)
        # [inspector] add_ports = pxe: the NIC it boots from.
        self.assertEqual([(boot_mac, True)], ports_of(self.context, node))
        stored = self.inventory(node)
        self.assertEqual(fake_inspect.inventory(node, 'uefi'),
                         stored.inventory_data)
        self.assertEqual({}, stored.plugin_data)

    def test_a_node_that_says_nothing_gets_the_fake_machines_defaults(self):
        node = self.inspect(self.manageable())
        self.assertEqual(
            {'cpus': 8, 'cpu_arch': 'x86_64', 'memory_mb': 16384,
             'local_gb': 100, 'capabilities': 'boot_mode:uefi'},
            node.properties)

    def test_a_boot_mode_capability_the_node_has_is_kept(self):
        node = self.manageable(properties={
            'capabilities': 'boot_mode:bios,secure_boot:false'})
        node = self.inspect(node)
        self.assertEqual('boot_mode:bios,secure_boot:false',
                         node.properties['capabilities'])

    def test_inspecting_again_replaces_the_inventory_and_keeps_the_ports(
            self):
        node = self.inspect(self.manageable(properties=PROPERTIES))
        first = self.inventory(node)
        node.properties = dict(node.properties, memory_mb=4096)
        node.save()
        node = self.inspect(node)
        self.assertEqual(4096, node.properties['memory_mb'])
        self.assertEqual(4096, self.inventory(node).inventory_data[
            'memory']['physical_mb'])
        self.assertEqual(8192, first.inventory_data['memory']['physical_mb'])
        self.assertEqual(1, len(ports_of(self.context, node)))

    @ddt.data(('all', 2), ('active', 1), ('pxe', 1), ('disabled', 0))
    @ddt.unpack
    def test_add_ports_says_which_nics_get_a_port(self, add_ports, count):
        self.config(add_ports=add_ports, group='inspector')
        node = self.inspect(self.manageable())
        ports = ports_of(self.context, node)
        self.assertEqual(count, len(ports))
        boot_mac, other_mac = fake_inspect.mac_addresses(node.uuid)
        if count:
            self.assertIn((boot_mac, True), ports)
        if count == 2:
            self.assertIn((other_mac, False), ports)

    def test_a_mac_address_another_node_has_is_left_alone(self):
        node = self.manageable()
        boot_mac, _other = fake_inspect.mac_addresses(node.uuid)
        other = self.create_node(name='other')
        objects.Port(self.context, address=boot_mac,
                     node_uuid=other.uuid).create()
        node = self.inspect(node)
        self.assertIsNone(node.last_error)
        self.assertEqual([], ports_of(self.context, node))
        self.assertEqual(1, len(ports_of(self.context, other)))

    def test_a_failed_inspection_is_inspect_failed_with_its_error(self):
        node = self.manageable(driver_info={
            'fake_fail_step': 'inspect.inspect_hardware'})
        node = self.inspect(node, ends_in=states.INSPECTFAIL)
        self.assertEqual(
            'Failed to inspect hardware of node %s: simulated failure '
            '(driver_info/fake_fail_step names inspect.inspect_hardware)'
            % node.uuid, node.last_error)
        self.assertIsNone(node.inspection_finished_at)
        self.assertFalse(node.properties)
        self.assertEqual([], ports_of(self.context, node))
        self.assertRaises(exception.NodeInventoryNotFound, self.inventory,
                          node)

    def test_from_inspect_failed_a_node_is_managed_or_inspected_again(self):
        node = self.manageable(driver_info={
            'fake_fail_step': 'inspect.inspect_hardware'})
        node = self.inspect(node, ends_in=states.INSPECTFAIL)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)

        node = self.inspect(node, ends_in=states.INSPECTFAIL)
        node.driver_info = {}
        node.save()
        node = self.inspect(node)
        self.assertIsNone(node.last_error)
        self.assertEqual(100, node.properties['local_gb'])

    def test_a_node_without_inspection_is_refused_and_left_as_it_was(self):
        node = self.manageable(inspect_interface='no-inspect')
        exc = self.assertRaises(exception.UnsupportedDriverExtension,
                                self.rpcapi.inspect_hardware, self.context,
                                node.uuid)
        self.assertIn('no-inspect', str(exc))
        self.assertNodeUnchanged(node)

    @ddt.data(states.ENROLL, states.AVAILABLE)
    def test_only_a_manageable_node_is_inspected(self, state):
        node = (self.create_node() if state == states.ENROLL
                else self.make_available())
        exc = self.assertRaises(exception.InvalidStateRequested,
                                self.rpcapi.inspect_hardware, self.context,
                                node.uuid)
        self.assertIn("'inspect'", str(exc))
        self.assertIn(state, str(exc))
        self.assertNodeUnchanged(node)

    def test_a_new_fake_node_gets_the_fake_inspect_interface(self):
        self.assertEqual('fake', self.create_node().inspect_interface)

    def test_a_node_with_children_is_not_deleted(self):
        parent = self.create_node(name='parent')
        child = self.create_node(name='child', parent_node=parent.uuid)
        exc = self.assertRaises(exception.NodeHasChildren,
                                self.rpcapi.destroy_node, self.context,
                                parent.uuid)
        self.assertIn(child.uuid, str(exc))
        self.rpcapi.destroy_node(self.context, child.uuid)
        self.rpcapi.destroy_node(self.context, parent.uuid)


class InspectWaitTest(_InspectionTestCase):
    """An inspection whose hardware reports later (fake's test mode)."""

    def waiting(self):
        node = self.manageable(driver_info={'fake_inspect_wait': True})
        node = self.inspect(node, ends_in=states.INSPECTWAIT)
        self.assertEqual(states.MANAGEABLE, node.target_provision_state)
        return node

    def test_an_operator_aborts_it_to_inspect_failed(self):
        node = self.waiting()
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'abort')
        node = self.wait_for_state(node, states.INSPECTFAIL)
        self.assertEqual('Inspection of node %s aborted by request'
                         % node.uuid, node.last_error)
        self.assertIsNone(node.target_provision_state)

    def after_waiting(self, node, seconds):
        """``node`` as the conductor's timeout check leaves it, once it
        waited ``seconds``."""
        node.provision_updated_at = (timeutils.utcnow()
                                     - datetime.timedelta(seconds=seconds))
        node.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        return objects.Node.get(self.context, node.uuid)

    def test_it_fails_once_inspect_wait_timeout_passes(self):
        self.config(inspect_wait_timeout=60, group='conductor')
        node = self.waiting()
        self.assertEqual(states.INSPECTWAIT,
                         self.after_waiting(node, 59).provision_state)
        node = self.after_waiting(node, 61)
        self.assertEqual(states.INSPECTFAIL, node.provision_state)
        self.assertIn('did not report within 60 seconds', node.last_error)

    def test_with_no_timeout_it_waits_forever(self):
        self.config(inspect_wait_timeout=0, group='conductor')
        node = self.waiting()
        self.assertEqual(states.INSPECTWAIT,
                         self.after_waiting(node, 10 ** 6).provision_state)

    def test_a_node_that_waits_keeps_its_driver(self):
        node = self.waiting()
        node.driver = 'redfish'
        exc = self.assertRaises(exception.NodeInWrongState,
                                self.rpcapi.update_node, self.context, node)
        self.assertIn(states.INSPECTWAIT, str(exc))


class InventoryRecordsTest(base.TestCase):
    """What an inventory means for a node's properties and ports."""

    def test_local_gb_is_the_smallest_disk_of_4_gib_or_more_less_one(self):
        gib = 1024 ** 3
        self.assertEqual(9, inventory_records.local_gb([
            {'name': 'a', 'size': 20 * gib}, {'name': 'b', 'size': 10 * gib},
            {'name': 'usb', 'size': 2 * gib}]))
        self.assertEqual(0, inventory_records.local_gb([]))
        self.assertEqual(0, inventory_records.local_gb(None))

    def test_a_capability_the_node_has_is_kept(self):
        self.assertEqual('boot_mode:uefi', inventory_records.with_capability(
            None, 'boot_mode', 'uefi'))
        self.assertEqual('a:1,boot_mode:uefi',
                         inventory_records.with_capability(
                             'a:1', 'boot_mode', 'uefi'))
        self.assertEqual('boot_mode:bios', inventory_records.with_capability(
            'boot_mode:bios', 'boot_mode', 'uefi'))

    def test_without_a_boot_nic_pxe_adds_every_nic_none_booting(self):
        inventory = {'interfaces': [
            {'name': 'lo', 'mac_address': '00:00:00:00:00:00'},
            {'name': 'NIC.1', 'mac_address': '52:54:00:AA:BB:01'},
            {'name': 'NIC.2', 'mac_address': 'not-a-mac'},
            {'name': 'NIC.3', 'mac_address': None}]}
        self.assertEqual([('52:54:00:aa:bb:01', False)],
                         inventory_records.port_addresses(inventory, 'pxe'))
        self.assertEqual([], inventory_records.port_addresses(inventory,
                                                              'active'))

    def test_a_malformed_inventory_is_refused_naming_where(self):
        node = objects.Node(self.context,
                            uuid='1be26c0b-03f2-4d2e-ae87-c02d7f33c123')
        exc = self.assertRaises(
            exception.HardwareInspectionFailure, inventory_records.check,
            node, {'cpu': {'count': 'many', 'architecture': 'x86_64'},
                   'memory': {'physical_mb': 1}, 'interfaces': []})
        self.assertIn('at cpu/count', str(exc))


class PinnedTo010Test(_InspectionTestCase):
    """Release 0.10 knows no inspection: nothing is inspected or stored."""

    conductor_config = {None: {'pin_release_version': '0.10'}}

    def test_inspection_is_refused_and_nodes_get_no_inspect(self):
        node = self.manageable()
        self.assertEqual('no-inspect', node.inspect_interface)
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                self.rpcapi.inspect_hardware, self.context,
                                node.uuid)
        self.assertIn('0.11', str(exc))
        self.assertNodeUnchanged(node)

    def test_the_fake_inspect_interface_cannot_be_chosen(self):
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                self.create_node, inspect_interface='fake')
        self.assertIn('0.11', str(exc))
