"""Running a plan through the real conductor: progress, waits, failures.

The steps here belong to a test-only hardware type served by
:class:`tests.plugins.HardwarePlugin` as if it were installed.
"""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import base
from ironic_steps import objects
from tests import base as tests_base
from tests import plugins


def label(step):
    return '%s.%s' % (step['interface'], step['step'])


class Exploding(base.DeployInterface):

    @base.deploy_step(priority=90)
    def prepare(self, task):
        task.node.extra = {'prepared': True}

    @base.deploy_step(priority=50)
    def explode(self, task):
        raise RuntimeError('disk on fire')

    @base.deploy_step(priority=10)
    def never_reached(self, task):
        raise AssertionError('a step after a failed one ran')


class ReturnsNonsense(base.DeployInterface):

    @base.deploy_step(priority=50)
    def finish_up(self, task):
        return 'done'


class Recording(base.DeployInterface):
    """Each step records what the database says while it runs."""

    def __init__(self):
        self.seen = []

    def _record(self, task):
        stored = objects.Node.get(task.context, task.node.uuid)
        self.seen.append((stored.deploy_step,
                          stored.driver_internal_info['deploy_step_index'],
                          stored.provision_state))

    @base.deploy_step(priority=30)
    def one(self, task):
        self._record(task)

    @base.deploy_step(priority=20)
    def two(self, task):
        self._record(task)


class RecordingBoot(base.BootInterface):

    def __init__(self, recorder):
        self.recorder = recorder

    @base.deploy_step(priority=25)
    def between(self, task):
        self.recorder._record(task)


class TwoAsync(base.DeployInterface):

    @base.deploy_step(priority=90)
    def write_image(self, task):
        return states.DEPLOYWAIT

    @base.deploy_step(priority=80)
    def sync_step(self, task):
        pass

    @base.deploy_step(priority=70)
    def configure_agent(self, task):
        return states.DEPLOYWAIT

    @base.deploy_step(priority=60)
    def finish(self, task):
        task.node.extra = {'finished': True}


class Conflicting(base.DeployInterface):

    @base.deploy_step(priority=40)
    def partition(self, task):
        pass

    @base.deploy_step(priority=40)
    def write_image(self, task):
        pass


class StepRunnerTest(tests_base.ConductorTestCase):

    def deploy(self, deploy_interface, **interfaces):
        """Deploy an available node whose driver has these interfaces."""
        self.useFixture(plugins.HardwarePlugin(
            'test-hw', deploy=deploy_interface, **interfaces))
        node = self.make_available(driver='test-hw')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        return node

    def test_an_unexpected_exception_fails_the_deploy_naming_step_and_cause(
            self):
        # Given a plan whose second step raises a non-Ironic exception
        node = self.deploy(Exploding())
        # Then the deploy fails cleanly at that step
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertEqual(
            'Deploy step deploy.explode failed: RuntimeError: disk on fire',
            node.last_error)
        self.assertEqual({'interface': 'deploy', 'step': 'explode',
                          'priority': 50, 'argsinfo': None, 'args': {}},
                         node.deploy_step)
        self.assertEqual(1, node.driver_internal_info['deploy_step_index'])
        self.assertIsNone(node.target_provision_state)
        # and what the step before it did is kept
        self.assertEqual({'prepared': True}, node.extra)

    def test_a_step_returning_an_unexpected_value_fails_naming_it(self):
        node = self.deploy(ReturnsNonsense())
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('deploy.finish_up', node.last_error)
        self.assertIn("returned 'done'", node.last_error)
        self.assertEqual('finish_up', node.deploy_step['step'])

    def test_progress_is_saved_before_each_step_runs(self):
        # Given steps that read the node from the database while they run
        recorder = Recording()
        node = self.deploy(recorder, boot=RecordingBoot(recorder))
        node = self.wait_for_state(node, states.ACTIVE)
        # Then each saw itself as the current step, at its own index
        plan = [label(step) for step, _index, _state in recorder.seen]
        self.assertEqual(['deploy.one', 'boot.between', 'deploy.two'], plan)
        self.assertEqual([0, 1, 2],
                         [index for _step, index, _state in recorder.seen])
        self.assertEqual([states.DEPLOYING] * 3,
                         [state for _step, _index, state in recorder.seen])
        self.assertEqual({'interface': 'boot', 'step': 'between',
                          'priority': 25, 'argsinfo': None, 'args': {}},
                         recorder.seen[1][0])

    def test_two_async_steps_wait_twice_then_finish(self):
        node = self.deploy(TwoAsync())
        # When the first asynchronous step runs, the node waits there
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual('write_image', node.deploy_step['step'])
        self.assertEqual(0, node.driver_internal_info['deploy_step_index'])
        # A heartbeat runs the synchronous step and waits at the next one
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual('configure_agent', node.deploy_step['step'])
        self.assertEqual(2, node.driver_internal_info['deploy_step_index'])
        self.assertEqual(states.ACTIVE, node.target_provision_state)
        # The second heartbeat finishes the plan
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual({'finished': True}, node.extra)
        self.assertEqual({}, node.deploy_step)
        self.assertNotIn('deploy_steps', node.driver_internal_info)
        self.assertNotIn('deploy_step_index', node.driver_internal_info)
        self.assertIsNone(node.last_error)

    def test_a_heartbeat_while_nothing_waits_changes_nothing(self):
        node = self.deploy(TwoAsync())
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.ACTIVE)
        before = node.obj_to_primitive()
        # The flow is over: its token is forgotten, the heartbeat refused.
        self.assertRaises(exception.InvalidAgentToken, self.rpcapi.heartbeat,
                          self.context, node.uuid,
                          agent_token=self._agent_tokens[node.uuid])
        self.assertEqual(before, objects.Node.get(
            self.context, node.uuid).obj_to_primitive())

    def test_steps_that_cannot_be_ordered_refuse_the_deploy_clearly(self):
        exc = self.assertRaises(exception.DriverStepConflict, self.deploy,
                                Conflicting())
        self.assertEqual(409, exc.code)
        self.assertIn('deploy.partition, deploy.write_image', str(exc))
        self.assertIn('same priority 40', str(exc))
        self.assertIn('bug in the driver', str(exc))
        node = objects.Node.list(self.context)[0]
        self.assertEqual(states.AVAILABLE, node.provision_state)
        self.assertFalse(node.deploy_step)
        self.assertNotIn('deploy_steps', node.driver_internal_info or {})
