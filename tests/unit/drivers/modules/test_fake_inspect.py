"""The fake machine the ``fake`` inspect interface finds: what it takes
from the node, and what it makes up."""

import types

import ddt
import testtools

from ironic_steps.conductor import inventory_records
from ironic_steps.drivers.modules import fake_inspect

UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'


def node(uuid=UUID, **properties):
    return types.SimpleNamespace(uuid=uuid, properties=properties)


@ddt.ddt
class FakeInventoryTest(testtools.TestCase):

    def test_it_is_built_from_the_nodes_properties(self):
        found = fake_inspect.inventory(
            node(cpus='4', memory_mb=2048, local_gb=40, cpu_arch='aarch64'),
            'bios')
        self.assertEqual({'count': 4, 'architecture': 'aarch64'},
                         {key: found['cpu'][key]
                          for key in ('count', 'architecture')})
        self.assertEqual(2048, found['memory']['physical_mb'])
        self.assertEqual(40, inventory_records.local_gb(found['disks']))
        self.assertEqual('bios', found['boot']['current_boot_mode'])
        inventory_records.check(node(), found)

    @ddt.data({'cpus': -1}, {'cpus': 'many'}, {'cpus': True}, {})
    def test_what_the_node_does_not_say_well_gets_a_default(self, props):
        found = fake_inspect.inventory(node(**props), 'uefi')
        self.assertEqual(fake_inspect.DEFAULTS['cpus'], found['cpu']['count'])

    def test_each_node_has_its_own_mac_addresses_and_boots_from_eth0(self):
        one = fake_inspect.mac_addresses(UUID)
        other = fake_inspect.mac_addresses(
            '5d7c3a4e-93b1-4c2f-a0f6-2b8e9d1c7f40')
        self.assertEqual(['02:1b:e2:6c:0b:03', '06:f2:4d:2e:ae:87'], one)
        self.assertFalse(set(one) & set(other))
        found = fake_inspect.inventory(node(), 'uefi')
        self.assertEqual(one[0], found['boot']['pxe_interface'])
        self.assertEqual(one, [interface['mac_address']
                               for interface in found['interfaces']])
