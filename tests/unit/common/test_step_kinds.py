"""The flow table: each flow's facts agree with the state machine, and
drivers learn their flow from it."""

import types

import testtools

from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.drivers import base


class FlowTableTest(testtools.TestCase):

    def test_there_is_one_flow_per_kind_of_step(self):
        self.assertEqual(set(step_kinds.STEP_KINDS),
                         set(step_kinds.FLOWS))
        for kind, flow in step_kinds.FLOWS.items():
            self.assertEqual(kind, flow.kind)

    def test_every_flow_runs_waits_and_resumes_in_the_state_machine(self):
        for flow in step_kinds.FLOWS.values():
            self.assertEqual(flow.wait_state, state_machine.next_state(
                flow.running_state, states.EVENT_WAIT), flow.kind)
            self.assertEqual(flow.running_state, state_machine.next_state(
                flow.wait_state, states.EVENT_RESUME), flow.kind)

    def test_the_wait_and_agent_states_are_those_of_the_flows(self):
        self.assertEqual({states.DEPLOYWAIT, states.CLEANWAIT,
                          states.SERVICEWAIT},
                         set(step_kinds.WAIT_STATES))
        self.assertEqual({states.DEPLOYHOLD, states.CLEANHOLD,
                          states.SERVICEHOLD},
                         set(step_kinds.HOLD_STATES))
        self.assertEqual({states.DEPLOYING, states.DEPLOYWAIT,
                          states.DEPLOYHOLD, states.CLEANING,
                          states.CLEANWAIT, states.CLEANHOLD,
                          states.SERVICING, states.SERVICEWAIT,
                          states.SERVICEHOLD, states.RESCUEWAIT},
                         set(step_kinds.AGENT_STATES))

    def test_no_two_flows_share_a_state_or_a_key(self):
        for attribute in ('running_state', 'wait_state', 'hold_state',
                          'step_field',
                          'steps_key', 'index_key', 'requested_key',
                          'timeout_option'):
            values = [getattr(flow, attribute)
                      for flow in step_kinds.FLOWS.values()]
            self.assertEqual(len(values), len(set(values)), attribute)

    def test_a_flow_is_found_by_the_state_its_steps_run_in(self):
        self.assertIs(step_kinds.DEPLOY_FLOW,
                      step_kinds.running_in(states.DEPLOYING))
        self.assertIs(step_kinds.CLEAN_FLOW,
                      step_kinds.running_in(states.CLEANING))
        for state in (states.DEPLOYWAIT, states.ACTIVE, None):
            self.assertIsNone(step_kinds.running_in(state))


def _task(provision_state, **driver_internal_info):
    node = types.SimpleNamespace(uuid='n-1', provision_state=provision_state,
                                 driver_internal_info=driver_internal_info)
    return types.SimpleNamespace(node=node)


class DriverHelpersTest(testtools.TestCase):
    """What a running step reads of its flow (base.running_step_index)."""

    def test_a_running_step_knows_its_kind_and_index(self):
        self.assertEqual(('deploy', 3), base.running_step_index(
            _task(states.DEPLOYING, deploy_step_index=3), 'x'))
        self.assertEqual(('clean', 0), base.running_step_index(
            _task(states.CLEANING, clean_step_index=0,
                  deploy_step_index=5), 'x'))

    def test_a_step_waits_in_the_wait_state_of_its_flow(self):
        self.assertEqual(states.CLEANWAIT,
                         base.wait_for_agent(_task(states.CLEANING)))
        self.assertEqual(states.DEPLOYWAIT,
                         base.wait_for_agent(_task(states.DEPLOYING)))

    def test_outside_a_running_step_the_caller_is_named(self):
        exc = self.assertRaises(
            exception.InvalidStep, base.running_step_index,
            _task(states.DEPLOYWAIT), 'deploy.write_image')
        self.assertIn('deploy.write_image called on node n-1 in state '
                      'wait call-back, not from a running deploy, clean or '
                      'service step', str(exc))
