"""Adopting a node through the real conductor and database: a machine
already running its workload becomes active without a deploy."""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects
from tests import base


class AdoptionTest(base.ConductorTestCase):

    def manageable(self, **fields):
        node = self.make_available(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def adopt(self, node):
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'adopt')

    def test_a_manageable_node_becomes_active_without_a_deploy(self):
        # Given a manageable node, powered on by whoever installed it
        node = self.manageable()
        node.power_state = states.POWER_ON
        node.last_error = 'from before'
        node.save()
        # When it is adopted
        self.adopt(node)
        # Then it is active, no step ran, its power untouched
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.target_provision_state)
        self.assertIsNone(node.last_error)
        self.assertEqual(states.POWER_ON, node.power_state)
        self.assertFalse(node.deploy_step)
        self.assertNotIn('deploy_steps', node.driver_internal_info)
        self.assertEqual([], objects.NodeStepHistory.list_by_node(
            self.context, node.id, flow='deploy'))

    def test_a_node_that_cannot_be_managed_fails_and_may_retry(self):
        # Given a redfish node without a BMC address, manageable anyway
        node = self.create_node(driver='redfish', driver_info={})
        node.provision_state = states.MANAGEABLE
        node.power_state = states.POWER_ON
        node.save()
        # When it is adopted, the adoption fails, naming why
        self.adopt(node)
        failed = self.wait_for_state(node, states.ADOPTFAIL)
        self.assertIn('Failed to adopt node %s' % node.uuid,
                      failed.last_error)
        self.assertIn('redfish_address', failed.last_error)
        self.assertIsNone(failed.power_state)
        # Given the address now, adopting again works through the power
        # interface: still failing here (no BMC answers), as it should
        failed.driver_info = {'redfish_address': 'http://127.0.0.1:9'}
        failed.save()
        self.adopt(failed)
        self.wait_for_state(node, states.ADOPTFAIL)
        # And manage gives it back to the operator
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.assertIsNone(self.wait_for_state(
            node, states.MANAGEABLE).last_error)

    def test_only_a_manageable_or_failed_adoption_may_be_adopted(self):
        node = self.make_available()
        exc = self.assertRaises(exception.InvalidStateRequested, self.adopt,
                                node)
        self.assertIn("'available'", str(exc))
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_pinned_before_its_release_adoption_is_refused(self):
        node = self.manageable()
        self.config(pin_release_version='0.10')
        exc = self.assertRaises(exception.NotInPinnedRelease, self.adopt,
                                node)
        self.assertIn('0.11', str(exc))
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.MANAGEABLE, stored.provision_state)
        self.assertIsNone(stored.reservation)
