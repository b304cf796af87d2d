"""The NodeInventory object: what a node's last inspection found, stored
and replaced against a real database.

Its fingerprint is recorded with the others in test_node.py.
"""

import ddt

from ironic_steps.common import exception
from ironic_steps import objects
from tests import base

NodeInventory = objects.NodeInventory
INVENTORY = {'cpu': {'count': 2, 'architecture': 'x86_64'},
             'memory': {'physical_mb': 2048}, 'interfaces': []}


@ddt.ddt
class NodeInventoryTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def test_a_node_never_inspected_has_none(self):
        exc = self.assertRaises(exception.NodeInventoryNotFound,
                                NodeInventory.get_by_node_id, self.context,
                                self.node.id)
        self.assertEqual(404, exc.code)

    def test_an_inventory_is_stored_and_replaced_whole(self):
        NodeInventory.replace(self.context, self.node.id, INVENTORY,
                              {'hook': 'data'})
        stored = NodeInventory.get_by_node_id(self.context, self.node.id)
        self.assertEqual((INVENTORY, {'hook': 'data'}),
                         (stored.inventory_data, stored.plugin_data))
        self.assertIsNotNone(stored.created_at)
        NodeInventory.replace(self.context, self.node.id, {'cpu': {}}, {})
        stored = NodeInventory.get_by_node_id(self.context, self.node.id)
        self.assertEqual(({'cpu': {}}, {}),
                         (stored.inventory_data, stored.plugin_data))

    @ddt.data(([], {}), ({}, 'text'))
    @ddt.unpack
    def test_what_is_not_a_json_object_is_refused(self, inventory, plugin):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                NodeInventory.replace, self.context,
                                self.node.id, inventory, plugin)
        self.assertIn('must be a JSON object', str(exc))
        self.assertRaises(exception.NodeInventoryNotFound,
                          NodeInventory.get_by_node_id, self.context,
                          self.node.id)

    def test_it_goes_with_its_node(self):
        NodeInventory.replace(self.context, self.node.id, INVENTORY, {})
        self.node.destroy()
        self.assertRaises(exception.NodeInventoryNotFound,
                          NodeInventory.get_by_node_id, self.context,
                          self.node.id)

    def test_a_node_that_does_not_exist_gets_none(self):
        self.assertRaises(exception.NodeNotFound, NodeInventory.replace,
                          self.context, 987654, INVENTORY, {})

    def test_pinned_to_0_10_nothing_is_stored(self):
        self.config(pin_release_version='0.10')
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                NodeInventory.replace, self.context,
                                self.node.id, INVENTORY, {})
        self.assertIn('0.11', str(exc))
        self.config(pin_release_version=None)
        self.assertRaises(exception.NodeInventoryNotFound,
                          NodeInventory.get_by_node_id, self.context,
                          self.node.id)
