"""Rescuing and unrescuing a node through the real conductor and database,
with fake-hardware's fake rescue interface."""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects
from tests import base

PASSWORD = 's3cret-rescue'


class RescueTest(base.ConductorTestCase):

    def active(self, **fields):
        self.config(agent_delay=0, group='fake')
        node = self.make_available(**fields)
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        return self.wait_for_state(node, states.ACTIVE)

    def test_rescue_then_unrescue_goes_back_to_active(self):
        # Given an active node with the fake rescue interface
        node = self.active(rescue_interface='fake')
        # When it is rescued, it reboots into its rescue environment, the
        # password kept for the rescue interface
        self.rpcapi.do_node_rescue(self.context, node.uuid, PASSWORD)
        rescued = self.wait_for_state(node, states.RESCUE)
        self.assertIsNone(rescued.target_provision_state)
        self.assertIsNone(rescued.last_error)
        self.assertEqual(PASSWORD, rescued.instance_info['rescue_password'])
        self.assertEqual(states.POWER_ON, rescued.power_state)
        # When it is unrescued, it is active again and the password gone
        self.rpcapi.do_node_unrescue(self.context, node.uuid)
        back = self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn('rescue_password', back.instance_info)

    def test_a_failed_rescue_forgets_the_password_and_may_be_retried(self):
        node = self.active(rescue_interface='fake',
                           driver_info={'fake_fail_step': 'rescue.rescue'})
        self.rpcapi.do_node_rescue(self.context, node.uuid, PASSWORD)
        failed = self.wait_for_state(node, states.RESCUEFAIL)
        self.assertIn('Failed to rescue node %s' % node.uuid,
                      failed.last_error)
        self.assertIn('simulated failure', failed.last_error)
        self.assertNotIn('rescue_password', failed.instance_info)
        # Once the cause is gone, rescue again works
        failed.driver_info = {}
        failed.save()
        self.rpcapi.do_node_rescue(self.context, node.uuid, PASSWORD)
        self.wait_for_state(node, states.RESCUE)

    def test_a_failed_unrescue_is_unrescue_failed_and_can_be_torn_down(self):
        node = self.active(rescue_interface='fake')
        self.rpcapi.do_node_rescue(self.context, node.uuid, PASSWORD)
        rescued = self.wait_for_state(node, states.RESCUE)
        rescued.driver_info = {'fake_fail_step': 'rescue.unrescue'}
        rescued.save()
        self.rpcapi.do_node_unrescue(self.context, node.uuid)
        failed = self.wait_for_state(node, states.UNRESCUEFAIL)
        self.assertIn('Failed to unrescue node', failed.last_error)
        self.rpcapi.do_node_tear_down(self.context, node.uuid)
        gone = self.wait_for_state(node, states.AVAILABLE)
        self.assertEqual({}, gone.instance_info)

    def test_without_a_rescue_interface_nothing_changes(self):
        node = self.active(rescue_interface='no-rescue')
        self.assertRaises(exception.UnsupportedDriverExtension,
                          self.rpcapi.do_node_rescue, self.context,
                          node.uuid, PASSWORD)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.ACTIVE, stored.provision_state)
        self.assertNotIn('rescue_password', stored.instance_info)

    def test_an_empty_password_or_a_node_not_active_is_refused(self):
        node = self.active(rescue_interface='fake')
        self.assertRaises(exception.InvalidParameterValue,
                          self.rpcapi.do_node_rescue, self.context,
                          node.uuid, '  ')
        available = self.make_available(rescue_interface='fake')
        self.assertRaises(exception.InvalidStateRequested,
                          self.rpcapi.do_node_rescue, self.context,
                          available.uuid, PASSWORD)
        self.assertRaises(exception.InvalidStateRequested,
                          self.rpcapi.do_node_unrescue, self.context,
                          node.uuid)
        self.assertEqual(states.ACTIVE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_pinned_before_0_11_rescue_is_refused(self):
        node = self.active(rescue_interface='fake')
        self.config(pin_release_version='0.10')
        self.assertRaises(exception.NotInPinnedRelease,
                          self.rpcapi.do_node_rescue, self.context,
                          node.uuid, PASSWORD)
        self.assertEqual(states.ACTIVE, objects.Node.get(
            self.context, node.uuid).provision_state)
