"""The redfish inspect interface against a real Redfish BMC emulator.

A started conductor inspects a redfish node through sushy, over HTTP,
against sushy-tools' emulator process with our backend; what the node
gets is compared with what the BMC shows over plain HTTP.
"""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects
from tests.functional import test_redfish_driver

GIB = 1024 ** 3


class RedfishInspectionTest(test_redfish_driver.RedfishTestCase):

    def inspect(self, node, ends_in=states.MANAGEABLE):
        self.rpcapi.inspect_hardware(self.context, node.uuid)
        return self.wait_for_state(node, ends_in, timeout=30)

    def members(self, link):
        """The bodies of a collection's members, over plain HTTP."""
        return [self.emulator.get(member['@odata.id']) for member in
                self.emulator.get(link['@odata.id'])['Members']]

    def test_the_bmcs_view_of_the_hardware_is_recorded(self):
        node = self.manageable()
        self.assertEqual('redfish', node.inspect_interface)
        node = self.inspect(node)
        self.assertIsNone(node.last_error)
        system = self.emulator.system(self.system_id())
        nic_mac, = [nic['MACAddress'].lower() for nic in self.members(
            system['EthernetInterfaces'])]
        # Logical CPUs, as Ironic counts them: every processor's threads.
        threads = sum(int(processor['TotalThreads']) for processor in
                      self.members(system['Processors']))
        smallest_disk = min(int(drive.split(':')[1]) * 10 ** 9
                            for drive in self.emulator.drives)
        self.assertEqual(
            {'cpus': threads, 'cpu_arch': 'x86_64',
             'memory_mb': system['MemorySummary']['TotalSystemMemoryGiB']
             * 1024,
             'local_gb': int(smallest_disk / GIB) - 1,
             'capabilities': 'boot_mode:uefi'}, node.properties)
        inventory = objects.NodeInventory.get_by_node_id(
            self.context, node.id).inventory_data
        self.assertEqual({'cpu', 'memory', 'disks', 'interfaces',
                          'system_vendor', 'boot'}, set(inventory))
        self.assertEqual('Emulated Xeon', inventory['cpu']['model_name'])
        self.assertEqual(len(self.emulator.drives), len(inventory['disks']))
        self.assertEqual([nic_mac], [interface['mac_address'] for interface
                                     in inventory['interfaces']])
        self.assertEqual({'manufacturer': system['Manufacturer'],
                          'system_uuid': system['UUID']},
                         inventory['system_vendor'])
        self.assertEqual({'current_boot_mode': 'uefi'}, inventory['boot'])
        # The inventory names no NIC it booted from: every NIC gets a port
        # (add_ports = pxe), none marked as booting, as in Ironic.
        self.assertEqual([(nic_mac, False)], [
            (port.address, port.pxe_enabled) for port in objects.Port.list(
                self.context, filters={'node_uuid': node.uuid})])

    def test_a_bmc_that_fails_leaves_the_node_inspect_failed(self):
        node = self.manageable()
        self.emulator.fail_requests(self.system_id(), status=500,
                                    message='The BMC is on fire')
        node = self.inspect(node, ends_in=states.INSPECTFAIL)
        self.assertIn('Failed to inspect hardware of node %s' % node.uuid,
                      node.last_error)
        self.assertIn('The BMC is on fire', node.last_error)
        self.assertNotIn('memory_mb', node.properties or {})
        self.assertEqual([], objects.Port.list(
            self.context, filters={'node_uuid': node.uuid}))
        # Once the BMC answers, inspecting again works.
        self.emulator.clear_faults()
        node = self.inspect(node)
        self.assertIsNone(node.last_error)
        self.assertEqual(65536, node.properties['memory_mb'])


class RedfishInspectionRulesTest(test_redfish_driver.RedfishTestCase):
    """Inspection rules (API 1.96) applied to what the BMC shows."""

    inspect = RedfishInspectionTest.inspect

    def test_a_rule_on_the_bmcs_view_tags_the_node(self):
        objects.InspectionRule(self.context, conditions=[
            {'op': 'matches', 'args': {
                'value': '{inventory[cpu][model_name]}',
                'regex': 'Emulated.*'}},
            # Interpolated values are strings, as in Ironic.
            {'op': 'eq', 'args': {
                'values': ['{inventory[memory][physical_mb]}', '65536']}}],
            actions=[
            {'op': 'add-trait', 'args': {'name': 'CUSTOM_EMULATED'}},
            {'op': 'set-attribute', 'args': {
                'path': 'extra/vendor',
                'value': '{inventory[system_vendor][manufacturer]}'}}]
        ).create()
        node = self.inspect(self.manageable())
        self.assertIsNone(node.last_error)
        self.assertEqual(['CUSTOM_EMULATED'], node.traits)
        system = self.emulator.system(self.system_id())
        self.assertEqual({'vendor': system['Manufacturer']}, node.extra)


class RedfishAgentInspectionTest(test_redfish_driver.RedfishTestCase):
    """The agent inspect interface on a redfish node: the agent boots from
    the deploy ISO in the BMC's virtual CD drive; the test posts its
    inventory as the agent would, through the conductor."""

    DEPLOY_ISO = 'http://127.0.0.1:9/images/ironic-python-agent.iso'
    INVENTORY = {'cpu': {'count': 4, 'architecture': 'x86_64'},
                 'memory': {'physical_mb': 16384},
                 'disks': [{'name': '/dev/sda', 'size': 100 * GIB}],
                 'interfaces': [{'name': 'eth0',
                                 'mac_address': '52:54:00:aa:00:01'}]}

    def waiting(self):
        node = self.manageable(inspect_interface='agent')
        node.driver_info = dict(node.driver_info, deploy_iso=self.DEPLOY_ISO)
        node.save()
        self.rpcapi.inspect_hardware(self.context, node.uuid)
        return self.wait_for_state(node, states.INSPECTWAIT, timeout=30)

    def test_the_agent_boots_from_the_deploy_iso_and_its_report_ejects_it(
            self):
        node = self.waiting()
        system = self.system_id()
        media = self.emulator.virtual_media(system)
        self.assertEqual((self.DEPLOY_ISO, True),
                         (media['Image'], media['Inserted']))
        self.assertEqual(['Cd'], self.emulator.boot_sources(system))
        self.assertEqual('On', self.emulator.power_state(system))

        self.rpcapi.continue_inspection(self.context, node.uuid,
                                        self.INVENTORY, {})
        node = self.wait_for_state(node, states.MANAGEABLE, timeout=30)
        self.assertEqual((4, 16384, 99), tuple(node.properties[key] for key
                         in ('cpus', 'memory_mb', 'local_gb')))
        self.assertFalse(self.emulator.virtual_media(system)['Inserted'])
        self.assertEqual('Off', self.emulator.power_state(system))

    def test_without_a_deploy_iso_the_inspection_is_refused_naming_it(self):
        node = self.manageable(inspect_interface='agent')
        exc = self.assertRaises(exception.MissingParameterValue,
                                self.rpcapi.inspect_hardware, self.context,
                                node.uuid)
        self.assertIn('driver_info/deploy_iso', str(exc))
        self.assertIn('agent inspect interface', str(exc))
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual((states.MANAGEABLE, 'Off'), (
            node.provision_state,
            self.emulator.power_state(self.system_id())))
