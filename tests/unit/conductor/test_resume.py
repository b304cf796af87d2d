"""Resuming a failed deploy from the failed step (the x-steps extension).

A test hardware type whose steps record that they ran, through the real
conductor, runner and SQLite.
"""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import base
from ironic_steps import objects
from tests import base as tests_base
from tests import plugins


class RecordingDeploy(base.DeployInterface):
    """Four steps; ``failing`` names the one that fails, once."""

    def __init__(self):
        self.ran = []
        self.failing = None

    def _run(self, name):
        self.ran.append(name)
        if name == self.failing:
            self.failing = None
            raise exception.StepFailed(reason='%s broke' % name)

    @base.deploy_step(priority=100)
    def deploy(self, task):
        self._run('deploy')

    @base.deploy_step(priority=80)
    def build_raid(self, task):
        self._run('build_raid')

    @base.deploy_step(priority=60)
    def write_image(self, task):
        self._run('write_image')

    @base.deploy_step(priority=40)
    def install_bootloader(self, task):
        self._run('install_bootloader')


class RamdiskDeploy(RecordingDeploy):
    """The same, but what ``deploy`` boots does not survive a failure."""

    @base.deploy_step(priority=100, resumable=False)
    def deploy(self, task):
        self._run('deploy')


ALL = ['deploy', 'build_raid', 'write_image', 'install_bootloader']


class ResumeTest(tests_base.ConductorTestCase):

    interface = RecordingDeploy

    def setUp(self):
        super().setUp()
        self.deploy_interface = self.interface()
        self.useFixture(plugins.HardwarePlugin(
            'recording', deploy=self.deploy_interface))
        self.config(enabled_hardware_types=['fake-hardware', 'recording'])

    def fail_at(self, name):
        node = self.make_available(driver='recording')
        self.deploy_interface.failing = name
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.deploy_interface.ran.clear()
        return node

    def test_resume_runs_only_the_failed_step_and_those_after_it(self):
        node = self.fail_at('write_image')
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(['write_image', 'install_bootloader'],
                         self.deploy_interface.ran)
        self.assertIsNone(node.last_error)
        self.assertNotIn('deploy_steps', node.driver_internal_info)

    def test_the_preview_says_where_a_resume_starts(self):
        node = self.fail_at('write_image')
        resume = self.rpcapi.preview_steps(self.context, node.uuid,
                                           'deploy')['resume']
        self.assertTrue(resume['available'])
        self.assertEqual(2, resume['start_step']['index'])
        self.assertEqual('write_image', resume['failed_step']['step'])
        self.assertEqual(['kept', 'kept', 'runs', 'runs'],
                         [s['action'] for s in resume['steps']])
        self.assertNodeUnchanged(node)

    def test_a_plain_redeploy_still_starts_at_the_first_step(self):
        node = self.fail_at('write_image')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(ALL, self.deploy_interface.ran)

    def test_a_resume_that_fails_again_can_be_resumed_again(self):
        node = self.fail_at('write_image')
        self.deploy_interface.failing = 'install_bootloader'
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('install_bootloader broke', node.last_error)
        self.deploy_interface.ran.clear()
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(['install_bootloader'], self.deploy_interface.ran)

    def test_only_a_failed_deploy_with_its_plan_resumes(self):
        node = self.make_available(driver='recording')
        exc = self.assertRaises(exception.NothingToResume,
                                self.rpcapi.resume_node_deploy,
                                self.context, node.uuid)
        self.assertIn('it is available, not deploy failed', str(exc))
        self.assertNodeUnchanged(node)
        # A deploy failed before its first step ran leaves no plan.
        node.provision_state = states.DEPLOYFAIL
        node.save()
        node = objects.Node.get(self.context, node.uuid)
        exc = self.assertRaises(exception.NothingToResume,
                                self.rpcapi.resume_node_deploy,
                                self.context, node.uuid)
        self.assertIn('failed before running a deploy step', str(exc))
        self.assertNodeUnchanged(node)
        self.assertEqual([], self.deploy_interface.ran)


class ResumeAcrossANonResumableStepTest(ResumeTest):
    """Every test above, where ``deploy`` is not resumable, plus these."""

    interface = RamdiskDeploy

    def test_resume_runs_only_the_failed_step_and_those_after_it(self):
        node = self.fail_at('write_image')
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        # What deploy set up is lost: it and every later step run again.
        self.assertEqual(ALL, self.deploy_interface.ran)

    def test_the_preview_says_where_a_resume_starts(self):
        node = self.fail_at('write_image')
        resume = self.rpcapi.preview_steps(self.context, node.uuid,
                                           'deploy')['resume']
        self.assertEqual((0, 'deploy'), (resume['start_step']['index'],
                                         resume['start_step']['step']))
        self.assertIn('deploy.deploy is not resumable', resume['reason'])
        self.assertEqual(['runs'] * 4, [s['action'] for s in resume['steps']])

    def test_a_failure_of_the_non_resumable_step_itself_resumes_there(self):
        node = self.fail_at('deploy')
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(ALL, self.deploy_interface.ran)

    def test_a_resume_that_fails_again_can_be_resumed_again(self):
        node = self.fail_at('write_image')
        self.deploy_interface.failing = 'install_bootloader'
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.DEPLOYFAIL)
        self.deploy_interface.ran.clear()
        self.rpcapi.resume_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(ALL, self.deploy_interface.ran)
