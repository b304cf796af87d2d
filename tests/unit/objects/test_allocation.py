"""The Allocation object against a real database: a node is given to one
allocation at most, in the same transaction that makes the allocation its
instance, and deleting the allocation releases the node.

Its fingerprint is recorded with the others in test_node.py.
"""

import datetime

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects
from tests import base


class AllocationTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1', resource_class='gold')

    def new(self, **fields):
        allocation = objects.Allocation(
            self.context, resource_class='gold', state=states.ALLOCATING,
            **fields)
        allocation.create()
        return allocation

    def give_node(self, allocation):
        allocation.node_id = self.node.id
        allocation.state = states.ACTIVE
        allocation.save()

    def test_a_new_allocation_holds_no_node(self):
        allocation = self.new(traits=['CUSTOM_GPU'], extra={'a': 1})
        loaded = objects.Allocation.get_by_uuid(self.context,
                                                allocation.uuid)
        self.assertIsNone(loaded.node_uuid)
        self.assertEqual(['CUSTOM_GPU'], loaded.traits)
        self.assertEqual({'a': 1}, loaded.extra)

    def test_giving_a_node_makes_the_allocation_its_instance(self):
        allocation = self.new(traits=['CUSTOM_GPU'])
        self.give_node(allocation)
        self.assertEqual(self.node.uuid, allocation.node_uuid)
        node = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual(allocation.uuid, node.instance_uuid)
        self.assertEqual(['CUSTOM_GPU'], node.instance_info['traits'])
        self.assertEqual(
            {self.node.uuid: allocation.uuid},
            objects.Allocation.uuids_of_nodes(self.context,
                                              [self.node.uuid]))

    def test_a_node_given_away_cannot_be_given_again(self):
        self.give_node(self.new())
        second = self.new()
        self.assertRaises(exception.NodeAssociated, self.give_node, second)
        self.assertIsNone(objects.Allocation.get_by_uuid(
            self.context, second.uuid).node_uuid)

    def test_names_are_unique(self):
        self.new(name='web-1')
        self.assertRaises(exception.AllocationDuplicateName, self.new,
                          name='web-1')

    def test_an_outcome_is_written_once_whoever_decides_second(self):
        first = self.new()
        second = objects.Allocation.get_by_uuid(self.context, first.uuid)
        other = self.create_node(name='node-2', resource_class='gold')
        self.give_node(first)
        # A conductor that took the allocation over, deciding late
        second.node_id = other.id
        second.state = states.ACTIVE
        self.assertRaises(exception.AllocationAlreadyDecided, second.save)
        second.node_id = None
        second.state = states.ERROR
        second.last_error = 'no node'
        self.assertRaises(exception.AllocationAlreadyDecided, second.save)
        # The first outcome stands, and the other node was not touched
        stored = objects.Allocation.get_by_uuid(self.context, first.uuid)
        self.assertEqual((states.ACTIVE, self.node.uuid, None),
                         (stored.state, stored.node_uuid, stored.last_error))
        self.assertIsNone(objects.Node.get(self.context,
                                           other.uuid).instance_uuid)

    def test_an_unsettled_allocation_is_listed_and_claimed_once(self):
        allocation = self.new()
        self.new(name='decided')
        self.give_node(objects.Allocation.get_by_name(self.context,
                                                      'decided'))
        just_before = allocation.created_at.replace(
            tzinfo=None) - datetime.timedelta(seconds=1)
        self.assertEqual([], objects.Allocation.list_unsettled(
            self.context, just_before))
        later = timeutils.utcnow() + datetime.timedelta(seconds=1)
        unsettled, = objects.Allocation.list_unsettled(self.context, later)
        self.assertEqual(allocation.uuid, unsettled.uuid)
        # Two conductors claim it from the same reading: one gets it
        self.assertEqual([True, False], [
            objects.Allocation.claim(self.context, unsettled)
            for _ in range(2)])
        # Claimed, it is fresh again
        self.assertEqual([], objects.Allocation.list_unsettled(
            self.context, timeutils.utcnow() - datetime.timedelta(
                seconds=1)))

    def test_deleting_it_releases_the_node(self):
        allocation = self.new()
        self.give_node(allocation)
        allocation.destroy()
        self.assertIsNone(objects.Node.get(self.context,
                                           self.node.uuid).instance_uuid)
        self.assertRaises(exception.AllocationNotFound,
                          objects.Allocation.get_by_uuid, self.context,
                          allocation.uuid)

    def test_the_list_filters_by_node_and_state(self):
        held = self.new()
        self.give_node(held)
        self.new()
        self.assertEqual([held.uuid], [a.uuid for a in objects.Allocation.list(
            self.context, filters={'node_uuid': self.node.uuid})])
        self.assertEqual(2, len(objects.Allocation.list(
            self.context, filters={'resource_class': 'gold'})))
        self.assertEqual([held.uuid], [a.uuid for a in objects.Allocation.list(
            self.context, filters={'state': states.ACTIVE})])
