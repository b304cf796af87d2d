"""The provision state machine: legal moves, refusals and its shape."""

import ddt
from oslotest import base as oslotest_base

from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states as s
from ironic_steps.common import step_kinds
from ironic_steps.db.sqlalchemy import models


def state_constants():
    """Every state string the states module defines (events excluded)."""
    return {name: value for name, value in vars(s).items()
            if name.isupper() and not name.startswith('EVENT_')
            and isinstance(value, str)}


@ddt.ddt
class TransitionTest(oslotest_base.BaseTestCase):

    @ddt.data(
        (s.ENROLL, s.EVENT_DEPLOY, 'manage'),
        (s.AVAILABLE, s.EVENT_DONE, 'deploy, manage'),
        (s.ACTIVE, s.EVENT_DEPLOY, 'delete, rebuild, rescue, service'),
        (s.DEPLOYWAIT, s.EVENT_DONE, 'abort, delete, fail, resume'),
        (s.MANAGEABLE, s.EVENT_DEPLOY, 'adopt, clean, inspect, provide'),
        (s.INSPECTWAIT, s.EVENT_MANAGE, 'abort, done, fail, resume'),
        (s.INSPECTFAIL, s.EVENT_DEPLOY, 'inspect, manage'),
        (s.DEPLOYING, s.EVENT_RESUME, 'done, fail, hold, wait'),
        (s.SERVICEHOLD, s.EVENT_DONE, 'abort, unhold'),
        (s.SERVICEFAIL, s.EVENT_DONE, 'abort, delete, rescue, service'),
    )
    @ddt.unpack
    def test_an_illegal_move_names_state_event_and_allowed_events(
            self, state, event, allowed):
        exc = self.assertRaises(exception.InvalidStateRequested,
                                state_machine.next_state, state, event,
                                node='node-1')
        self.assertEqual(
            "The requested action '%s' cannot be performed on node node-1 "
            "while it is in state '%s'. Actions allowed in that state: %s."
            % (event, state, allowed), str(exc))
        # Chained, so the automaton's own explanation is not lost.
        self.assertIsNotNone(exc.__cause__)

    def test_an_unknown_state_allows_nothing(self):
        exc = self.assertRaises(exception.InvalidStateRequested,
                                state_machine.next_state, 'limbo',
                                s.EVENT_DEPLOY)
        self.assertIn("state 'limbo'", str(exc))
        self.assertIn('allowed in that state: none', str(exc))

    def test_deploying_alternates_with_wait_call_back(self):
        state = s.AVAILABLE
        walked = []
        for event in (s.EVENT_DEPLOY, s.EVENT_WAIT, s.EVENT_RESUME,
                      s.EVENT_WAIT, s.EVENT_RESUME, s.EVENT_DONE):
            state = state_machine.next_state(state, event)
            walked.append(state)
        self.assertEqual([s.DEPLOYING, s.DEPLOYWAIT, s.DEPLOYING,
                          s.DEPLOYWAIT, s.DEPLOYING, s.ACTIVE], walked)
        self.assertEqual(s.ACTIVE, state_machine.TARGETS[s.DEPLOYWAIT])
        self.assertEqual(s.ACTIVE, state_machine.TARGETS[s.DEPLOYING])

    @ddt.data(s.DEPLOYING, s.DEPLOYWAIT)
    def test_a_deploy_can_fail_while_running_or_waiting(self, state):
        self.assertEqual(s.DEPLOYFAIL,
                         state_machine.next_state(state, s.EVENT_FAIL))

    @ddt.data(s.EVENT_DEPLOY, s.EVENT_REBUILD)
    def test_a_failed_deploy_can_be_retried(self, event):
        self.assertEqual(s.DEPLOYING,
                         state_machine.next_state(s.DEPLOYFAIL, event))

    @ddt.data(s.CLEANWAIT, s.DEPLOYWAIT, s.INSPECTWAIT)
    def test_an_operator_may_abort_a_flow_that_waits(self, state):
        self.assertIn(state_machine.next_state(state, s.EVENT_ABORT),
                      s.FAILURE_STATES)

    def test_an_inspection_heads_back_to_manageable(self):
        walked, state, target = [], s.MANAGEABLE, None
        for event in (s.EVENT_INSPECT, s.EVENT_WAIT, s.EVENT_RESUME,
                      s.EVENT_DONE):
            new = state_machine.next_state(state, event)
            target = state_machine.target_after(state, target, new)
            state = new
            walked.append((state, target))
        self.assertEqual([(s.INSPECTING, s.MANAGEABLE),
                          (s.INSPECTWAIT, s.MANAGEABLE),
                          (s.INSPECTING, s.MANAGEABLE),
                          (s.MANAGEABLE, None)], walked)

    @ddt.data(s.INSPECTING, s.INSPECTWAIT)
    def test_an_inspection_can_fail_while_running_or_waiting(self, state):
        self.assertEqual(s.INSPECTFAIL,
                         state_machine.next_state(state, s.EVENT_FAIL))

    @ddt.data((s.EVENT_MANAGE, s.MANAGEABLE), (s.EVENT_INSPECT, s.INSPECTING))
    @ddt.unpack
    def test_a_failed_inspection_is_managed_or_inspected_again(
            self, event, state):
        self.assertEqual(state,
                         state_machine.next_state(s.INSPECTFAIL, event))

    def test_manual_cleaning_keeps_heading_back_to_manageable(self):
        walked, target = [], s.MANAGEABLE
        state = state_machine.next_state(s.MANAGEABLE, s.EVENT_CLEAN)
        for event in (s.EVENT_WAIT, s.EVENT_RESUME):
            new = state_machine.next_state(state, event)
            target = state_machine.target_after(state, target, new)
            state = new
            walked.append((state, target))
        self.assertEqual([(s.CLEANWAIT, s.MANAGEABLE),
                          (s.CLEANING, s.MANAGEABLE)], walked)
        self.assertEqual(s.MANAGEABLE,
                         state_machine.next_state(state, s.EVENT_MANAGE))

    def test_a_flow_started_from_a_stable_state_gets_the_usual_target(self):
        self.assertEqual(s.AVAILABLE, state_machine.target_after(
            s.MANAGEABLE, None, s.CLEANING))
        self.assertEqual(s.AVAILABLE, state_machine.target_after(
            s.DELETING, s.AVAILABLE, s.CLEANING))
        self.assertIsNone(state_machine.target_after(
            s.CLEANING, s.MANAGEABLE, s.MANAGEABLE))

    def test_stable_states_head_nowhere(self):
        for state in s.STABLE_STATES + s.FAILURE_STATES:
            self.assertNotIn(state, state_machine.TARGETS)


class InvariantTest(oslotest_base.BaseTestCase):

    def test_every_state_string_fits_its_database_column(self):
        too_long = {name: value for name, value in state_constants().items()
                    if len(value) > models.STATE_LENGTH}
        self.assertEqual({}, too_long)
        for state in state_machine.MACHINE.states:
            self.assertLessEqual(len(state), models.STATE_LENGTH, state)

    def test_every_provision_state_is_in_the_machine(self):
        provision_states = set(s.STABLE_STATES + s.FAILURE_STATES
                               + step_kinds.UNDER_WAY_STATES)
        self.assertEqual(provision_states,
                         set(state_machine.MACHINE.states))

    def test_every_target_is_a_stable_state(self):
        for state, target in state_machine.TARGETS.items():
            self.assertIn(state, state_machine.MACHINE.states)
            self.assertIn(target, s.STABLE_STATES)


class ShapeCheckTest(oslotest_base.BaseTestCase):

    def test_the_real_table_passes(self):
        state_machine._check_shape(state_machine._TRANSITIONS)

    def test_an_unreachable_state_is_refused(self):
        table = state_machine._TRANSITIONS + (
            ('orphan', s.EVENT_MANAGE, s.MANAGEABLE),)
        exc = self.assertRaises(RuntimeError, state_machine._check_shape,
                                table)
        self.assertIn("unreachable ['orphan']", str(exc))
        self.assertIn('no way out of []', str(exc))

    def test_a_state_without_a_way_out_is_refused(self):
        table = state_machine._TRANSITIONS + (
            (s.ACTIVE, 'vanish', 'black hole'),)
        exc = self.assertRaises(RuntimeError, state_machine._check_shape,
                                table)
        self.assertIn("no way out of ['black hole']", str(exc))
        self.assertIn('unreachable []', str(exc))
