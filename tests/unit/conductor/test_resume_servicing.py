"""Resuming a failed servicing from the failed step (the x-steps
extension, release 0.13), through the real conductor, runner and SQLite."""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import base
from tests import base as tests_base
from tests import plugins


class RecordingService(base.DeployInterface):
    """Three service steps; ``failing`` names the one that fails, once."""

    def __init__(self):
        self.ran = []
        self.failing = None

    def _run(self, name, **args):
        self.ran.append((name, args))
        if name == self.failing:
            self.failing = None
            raise exception.StepFailed(reason='%s broke' % name)

    @base.deploy_step(priority=100)
    def deploy(self, task):
        pass

    @base.service_step(argsinfo={'level': {'description': 'a level',
                                           'required': True}})
    def flash(self, task, level):
        self._run('flash', level=level)

    @base.service_step()
    def tune(self, task):
        self._run('tune')

    @base.service_step()
    def check(self, task):
        self._run('check')


STEPS = [{'interface': 'deploy', 'step': 'flash', 'args': {'level': 3}},
         {'interface': 'deploy', 'step': 'tune', 'args': {}},
         {'interface': 'deploy', 'step': 'check', 'args': {}}]


class ServiceResumeTest(tests_base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        self.interface = RecordingService()
        self.useFixture(plugins.HardwarePlugin(
            'recording', deploy=self.interface))
        self.config(enabled_hardware_types=['fake-hardware', 'recording'])

    def fail_at(self, name):
        node = self.make_available(driver='recording')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.interface.failing = name
        self.rpcapi.do_node_service(self.context, node.uuid, STEPS)
        node = self.wait_for_state(node, states.SERVICEFAIL)
        self.interface.ran.clear()
        return node

    def test_resume_runs_the_failed_step_and_those_after_it(self):
        node = self.fail_at('tune')
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual([('tune', {}), ('check', {})], self.interface.ran)
        self.assertIsNone(node.last_error)
        self.assertEqual({}, node.service_step)
        self.assertNotIn('service_steps', node.driver_internal_info)

    def test_the_preview_of_a_servicing_says_where_a_resume_starts(self):
        node = self.fail_at('check')
        resume = self.rpcapi.preview_steps(
            self.context, node.uuid, 'service', STEPS)['resume']
        self.assertTrue(resume['available'])
        self.assertEqual((2, 'check'), (resume['start_step']['index'],
                                        resume['start_step']['step']))
        self.assertEqual(['kept', 'kept', 'runs'],
                         [s['action'] for s in resume['steps']])
        # Not in a deploy's preview: the deploy did not fail.
        self.assertIsNone(self.rpcapi.preview_steps(
            self.context, node.uuid, 'deploy')['resume'])
        self.assertNodeUnchanged(node)

    def test_a_failure_at_the_first_step_resumes_with_its_arguments(self):
        node = self.fail_at('flash')
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual([('flash', {'level': 3}), ('tune', {}),
                          ('check', {})], self.interface.ran)

    def test_a_resumed_servicing_that_fails_again_resumes_again(self):
        node = self.fail_at('tune')
        self.interface.failing = 'check'
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.SERVICEFAIL)
        self.assertIn('check broke', node.last_error)
        self.interface.ran.clear()
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual([('check', {})], self.interface.ran)

    def test_pinned_to_0_12_a_servicing_is_not_resumed(self):
        node = self.fail_at('tune')
        self.config(pin_release_version='0.12')
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                self.rpcapi.resume_node_deploy,
                                self.context, node.uuid)
        self.assertIn('0.13', str(exc))
        self.assertNodeUnchanged(node)
        self.assertEqual([], self.interface.ran)
