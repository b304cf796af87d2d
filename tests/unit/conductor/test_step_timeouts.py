"""Per-step timeouts (the x-steps extension): declared, overridden, enforced.

The clock is oslo's time override, moved by the steps themselves (a step
that "takes" ten seconds advances it by ten), so nothing sleeps.
"""

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import registry
from ironic_steps.conductor import step_polling
from ironic_steps.conductor import step_runner
from ironic_steps.drivers import base
from ironic_steps import objects
from tests import base as tests_base
from tests import plugins


class TimedDeploy(base.DeployInterface):
    """``slow`` takes ``slow_seconds``; ``build`` is polled until told."""

    def __init__(self):
        self.slow_seconds = 0
        self.done = False

    @base.deploy_step(priority=100, timeout=30)
    def slow(self, task):
        timeutils.advance_time_seconds(self.slow_seconds)

    @base.deploy_step(priority=0, timeout=60)
    def build(self, task):
        return base.poll_step(task, self.check_build)

    def check_build(self, task):
        return base.DONE if self.done else 'building'

    @base.deploy_step(priority=0, argsinfo={
        'seconds': {'description': 'how long it takes', 'required': True}})
    def untimed(self, task, seconds):
        timeutils.advance_time_seconds(seconds)


class StepTimeoutTest(tests_base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        timeutils.set_time_override(timeutils.utcnow())
        self.addCleanup(timeutils.clear_time_override)
        self.interface = TimedDeploy()
        self.useFixture(plugins.HardwarePlugin('timed',
                                               deploy=self.interface))
        self.config(enabled_hardware_types=['fake-hardware', 'timed'])

    def advance(self, seconds):
        """Time passes; the conductor's heart beats meanwhile."""
        timeutils.advance_time_seconds(seconds)
        registry.heartbeat(self.manager.host)

    def deploy(self, deploy_steps=None, driver='timed', **fields):
        node = self.make_available(driver=driver, **fields)
        self.rpcapi.do_node_deploy(self.context, node.uuid,
                                   deploy_steps=deploy_steps)
        return node

    def test_a_step_that_returns_after_its_timeout_fails_naming_it(self):
        self.interface.slow_seconds = 31
        node = self.wait_for_state(self.deploy(), states.DEPLOYFAIL)
        self.assertIn('Deploy step deploy.slow timed out', node.last_error)
        self.assertIn('its timeout is 30 seconds', node.last_error)
        self.assertIn('taken 31.0', node.last_error)
        self.assertNotIn(step_runner.DEADLINE_KEY,
                         node.driver_internal_info)

    def test_a_step_within_its_timeout_is_done(self):
        self.interface.slow_seconds = 29
        node = self.wait_for_state(self.deploy(), states.ACTIVE)
        self.assertIsNone(node.last_error)

    def test_a_requested_timeout_overrides_the_declared_one(self):
        self.interface.slow_seconds = 31
        node = self.wait_for_state(self.deploy([
            {'interface': 'deploy', 'step': 'slow', 'priority': 100,
             'args': {}, 'timeout': 45}]), states.ACTIVE)
        self.assertIsNone(node.last_error)
        self.interface.slow_seconds = 0
        node = self.wait_for_state(self.deploy([
            {'interface': 'deploy', 'step': 'untimed', 'priority': 50,
             'args': {'seconds': 6}, 'timeout': 5}]), states.DEPLOYFAIL)
        self.assertIn('deploy.untimed timed out: its timeout is 5 seconds',
                      node.last_error)

    def test_a_bad_requested_timeout_is_refused_before_anything_changes(
            self):
        node = self.make_available(driver='timed')
        for timeout in (0, -1, 'soon', True):
            exc = self.assertRaises(
                exception.InvalidRequestedSteps, self.rpcapi.do_node_deploy,
                self.context, node.uuid, deploy_steps=[
                    {'interface': 'deploy', 'step': 'slow', 'priority': 100,
                     'args': {}, 'timeout': timeout}])
            self.assertIn('deploy.slow: timeout must be None or a positive '
                          'number of seconds', str(exc))
            self.assertNodeUnchanged(node)

    def test_a_polled_step_past_its_timeout_fails_at_its_next_check(self):
        node = self.deploy([{'interface': 'deploy', 'step': 'build',
                             'priority': 50, 'args': {}}])
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(60, node.driver_internal_info[
            step_runner.DEADLINE_KEY]['timeout'])
        self.advance(61)
        with self.manager._acquire(self.context, node.uuid) as task:
            step_polling.check_polled_step(task)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('Deploy step deploy.build timed out: its timeout is '
                      '60 seconds', node.last_error)
        self.assertNotIn(base.POLLING_KEY, node.driver_internal_info)

    def test_an_agent_step_past_its_timeout_fails_at_the_periodic_check(
            self):
        # fake-hardware's write_image waits for its agent's call-back.
        node = self.deploy([{'interface': 'deploy', 'step': 'write_image',
                             'priority': 80, 'args': {}, 'timeout': 120}],
                           driver='fake-hardware')
        self.wait_for_state(node, states.DEPLOYWAIT)
        self.advance(100)
        self.manager.housekeeping.check_wait_timeouts(self.context)
        self.wait_for_state(node, states.DEPLOYWAIT)
        self.advance(21)
        self.manager.housekeeping.check_wait_timeouts(self.context)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('Deploy step deploy.write_image timed out: its timeout '
                      'is 120 seconds', node.last_error)

    def test_an_agent_calling_back_after_the_timeout_fails_the_step(self):
        node = self.deploy([{'interface': 'deploy', 'step': 'write_image',
                             'priority': 80, 'args': {}, 'timeout': 120}],
                           driver='fake-hardware')
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.advance(121)
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('deploy.write_image timed out', node.last_error)
        self.assertEqual('write_image', node.deploy_step['step'])
        # node.deploy_step stays Ironic's: no extension keys in it.
        self.assertNotIn('timeout', node.deploy_step)


class PinnedBeforeTheExtensionTest(StepTimeoutTest):
    """Pinned to 0.5, declared timeouts are not enforced and the
    extension's calls and keys are refused, as 0.5 would."""

    def setUp(self):
        super().setUp()
        self.config(pin_release_version='0.5')

    def test_a_step_that_returns_after_its_timeout_fails_naming_it(self):
        self.interface.slow_seconds = 31
        node = self.wait_for_state(self.deploy(), states.ACTIVE)
        self.assertIsNone(node.last_error)

    def test_a_requested_timeout_overrides_the_declared_one(self):
        node = self.make_available(driver='timed')
        exc = self.assertRaises(
            exception.InvalidRequestedSteps, self.rpcapi.do_node_deploy,
            self.context, node.uuid, deploy_steps=[
                {'interface': 'deploy', 'step': 'slow', 'priority': 100,
                 'args': {}, 'timeout': 45}])
        self.assertIn('unknown key(s) timeout', str(exc))
        self.assertNodeUnchanged(node)

    test_a_bad_requested_timeout_is_refused_before_anything_changes = (
        test_a_requested_timeout_overrides_the_declared_one)

    def test_a_polled_step_past_its_timeout_fails_at_its_next_check(self):
        self.config(step_poll_timeout=1000, group='conductor')
        node = self.deploy([{'interface': 'deploy', 'step': 'build',
                             'priority': 50, 'args': {}}])
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        # No deadline: its poll's own timeout (step_poll_timeout) rules.
        self.assertNotIn(step_runner.DEADLINE_KEY, node.driver_internal_info)
        self.assertIsNone(
            node.driver_internal_info[base.POLLING_KEY]['timeout'])

    def test_an_agent_step_past_its_timeout_fails_at_the_periodic_check(
            self):
        self.skipTest('a requested timeout is refused while pinned')

    test_an_agent_calling_back_after_the_timeout_fails_the_step = (
        test_an_agent_step_past_its_timeout_fails_at_the_periodic_check)

    def test_preview_and_resume_are_not_sent_to_conductors_of_0_5(self):
        node = self.make_available(driver='timed')
        for call in (lambda: self.rpcapi.preview_steps(
                         self.context, node.uuid, 'deploy'),
                     lambda: self.rpcapi.resume_node_deploy(
                         self.context, node.uuid)):
            exc = self.assertRaises(exception.NotInPinnedRelease, call)
            self.assertIn('0.5', str(exc))
        self.assertNodeUnchanged(objects.Node.get(self.context, node.uuid))
