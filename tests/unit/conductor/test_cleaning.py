"""Manual cleaning, aborts and call-back timeouts, through the real conductor.

Cleaning is a peer of deploying: the same runner, heartbeat, timeout and
abort, found through the conductor's table of waiting flows.
"""

import datetime

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import flows
from ironic_steps import objects
from tests import base

ERASE = {'interface': 'deploy', 'step': 'erase_devices',
         'args': {'passes': 2}}
METADATA = {'interface': 'deploy', 'step': 'erase_devices_metadata'}
BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Off'}]}}


class ManualCleaningTest(base.ConductorTestCase):

    def make_manageable(self, **fields):
        node = self.create_node(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def clean_to_wait(self, node, clean_steps=(BIOS, ERASE, METADATA)):
        self.rpcapi.do_node_clean(self.context, node.uuid, list(clean_steps))
        return self.wait_for_state(node, states.CLEANWAIT)

    def test_steps_run_in_order_through_clean_wait_back_to_manageable(self):
        node = self.clean_to_wait(self.make_manageable())
        # Given order, not priority: bios ran first, erase waits.
        self.assertEqual('erase_devices', node.clean_step['step'])
        self.assertEqual(states.MANAGEABLE, node.target_provision_state)
        self.assertEqual(BIOS['args']['settings'],
                         node.driver_internal_info['fake_bios_settings'])
        self.assertEqual(
            ['bios.apply_configuration', 'deploy.erase_devices',
             'deploy.erase_devices_metadata'],
            ['%s.%s' % (s['interface'], s['step'])
             for s in node.driver_internal_info['clean_steps']])
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual({}, node.clean_step)
        self.assertIsNone(node.target_provision_state)
        self.assertEqual(2, node.driver_internal_info['fake_erase_passes'])
        self.assertNotIn('clean_steps', node.driver_internal_info)
        self.assertNotIn('agent_secret_token', node.driver_internal_info)

    def test_the_fake_agent_serves_cleaning_as_it_serves_deploys(self):
        self.config(agent_delay=0, group='fake')
        node = self.make_manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid, [ERASE])
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual(2, node.driver_internal_info['fake_erase_passes'])

    def test_a_failing_step_ends_in_clean_failed_naming_it(self):
        node = self.make_manageable(
            driver_info={'fake_fail_step': 'deploy.erase_devices_metadata'})
        self.rpcapi.do_node_clean(self.context, node.uuid, [METADATA])
        node = self.wait_for_state(node, states.CLEANFAIL)
        self.assertEqual('erase_devices_metadata', node.clean_step['step'])
        self.assertIn('deploy.erase_devices_metadata', node.last_error)
        self.assertIn('simulated failure', node.last_error)
        # The operator takes the node back.
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.assertIsNone(self.wait_for_state(
            node, states.MANAGEABLE).last_error)

    def test_a_refused_request_changes_nothing(self):
        node = self.make_manageable()
        exc = self.assertRaises(
            exception.InvalidRequestedSteps, self.rpcapi.do_node_clean,
            self.context, node.uuid, [METADATA, {'interface': 'raid',
                                                 'step': 'wipe'}])
        self.assertIn('raid.wipe', str(exc))
        self.assertNodeUnchanged(node)

    def test_manual_cleaning_needs_a_manageable_node(self):
        node = self.make_available()
        exc = self.assertRaises(exception.InvalidStateRequested,
                                self.rpcapi.do_node_clean, self.context,
                                node.uuid, [METADATA])
        self.assertIn("'clean'", str(exc))
        self.assertIn("'available'", str(exc))
        # The state is what is wrong, even when the steps are wrong too.
        exc = self.assertRaises(exception.InvalidStateRequested,
                                self.rpcapi.do_node_clean, self.context,
                                node.uuid, [{'interface': 'x', 'step': 'y'}])
        self.assertIn("'available'", str(exc))

    def test_an_abortable_waiting_step_is_aborted_to_clean_failed(self):
        node = self.clean_to_wait(self.make_manageable())
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'abort')
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.CLEANFAIL, node.provision_state)
        self.assertIn('aborted by request', node.last_error)
        self.assertIn('deploy.erase_devices', node.last_error)
        self.assertEqual('erase_devices', node.clean_step['step'])
        # A late heartbeat does not resurrect it.
        self.assertRaises(exception.InvalidAgentToken, self.rpcapi.heartbeat,
                          self.context, node.uuid, agent_token=token)
        self.assertEqual(states.CLEANFAIL, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_a_step_that_is_not_abortable_cannot_be_aborted(self):
        node = self.make_manageable()
        node.clean_step = {'interface': 'deploy', 'step': 'slow',
                           'abortable': False}
        node.provision_state = states.CLEANWAIT
        node.save()
        exc = self.assertRaises(exception.StepNotAbortable,
                                self.rpcapi.do_provisioning_action,
                                self.context, node.uuid, 'abort')
        self.assertIn('deploy.slow', str(exc))
        self.assertEqual(states.CLEANWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_abort_is_refused_where_nothing_waits(self):
        node = self.make_manageable()
        exc = self.assertRaises(exception.InvalidStateRequested,
                                self.rpcapi.do_provisioning_action,
                                self.context, node.uuid, 'abort')
        self.assertIn("'abort'", str(exc))


class AbortDeployTest(base.ConductorTestCase):

    def test_a_deploy_waiting_for_its_agent_is_aborted_to_deploy_failed(self):
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'abort')
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.DEPLOYFAIL, node.provision_state)
        self.assertIsNone(node.target_provision_state)
        self.assertIn('Deploy aborted by request during step '
                      'deploy.write_image', node.last_error)
        self.assertNotIn('agent_secret_token', node.driver_internal_info)
        self.assertRaises(exception.InvalidAgentToken, self.rpcapi.heartbeat,
                          self.context, node.uuid, agent_token=token)
        self.assertEqual(states.DEPLOYFAIL, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_a_deploy_waiting_for_its_agent_may_be_torn_down(self):
        # As in Ironic: Metal3 tears a waiting deploy down ("deleted")
        # where abort is not served (before API 1.110).
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.rpcapi.do_node_tear_down(self.context, node.uuid)
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual(({}, None), (node.instance_info,
                                      node.instance_uuid))
        self.assertNotIn('agent_secret_token', node.driver_internal_info)
        self.assertRaises(exception.InvalidAgentToken, self.rpcapi.heartbeat,
                          self.context, node.uuid, agent_token=token)
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)


class WaitingFlowTableTest(base.ConductorTestCase):

    def test_every_wait_state_has_a_flow(self):
        self.assertEqual(set(step_kinds.WAIT_STATES), set(flows.BY_WAIT_STATE))
        for state, waiting in flows.BY_WAIT_STATE.items():
            self.assertEqual(state, waiting.flow.wait_state)

    def test_a_clean_step_waiting_too_long_times_out_like_a_deploy_step(self):
        self.config(clean_callback_timeout=60, group='conductor')
        node = self.create_node()
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.rpcapi.do_node_clean(self.context, node.uuid, [ERASE])
        node = self.wait_for_state(node, states.CLEANWAIT)
        # Not yet: the deploy timeout does not apply to cleaning.
        self.config(deploy_callback_timeout=1, group='conductor')
        node.provision_updated_at = timeutils.utcnow() - datetime.timedelta(
            seconds=30)
        node.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        self.assertEqual(states.CLEANWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)
        node.provision_updated_at = timeutils.utcnow() - datetime.timedelta(
            seconds=61)
        node.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.CLEANFAIL, node.provision_state)
        self.assertIn('Timeout reached', node.last_error)
        self.assertIn('deploy.erase_devices', node.last_error)
        self.assertIn('60 seconds', node.last_error)
        self.assertNotIn('agent_secret_token', node.driver_internal_info)
