"""Deploy interfaces written before deploy steps still deploy, with a warning.

Such an interface offers no deploy steps: the conductor calls its
``deploy()`` in one go and, if that waits, its ``continue_deploy()`` on
the agent's heartbeat.
"""

import fixtures

from ironic_steps.common import states
from ironic_steps.conductor import deployments
from ironic_steps.drivers import base
from tests import base as tests_base
from tests import plugins

WARNING = 'offers no deploy steps and is run the legacy way'


class WaitingLegacyDeploy(base.DeployInterface):
    """Legacy: deploy() hands over to an agent that calls back."""

    def __init__(self):
        self.calls = []

    def deploy(self, task):
        self.calls.append('deploy')
        task.node.extra = {'image_written': False}
        return states.DEPLOYWAIT

    def continue_deploy(self, task):
        self.calls.append('continue_deploy')
        task.node.extra = {'image_written': True}


class LegacyDeployTest(tests_base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        # The warning is logged once per process; start each test afresh.
        self.useFixture(fixtures.MockPatchObject(
            deployments, '_warned_legacy', set()))
        self.log = self.useFixture(fixtures.FakeLogger(
            name='ironic_steps.conductor.deployments'))

    def test_a_legacy_interface_deploys_without_deploy_steps(self):
        node = self.make_available(deploy_interface='fake-legacy')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)
        self.assertEqual(states.POWER_ON, node.power_state)
        self.assertEqual({}, node.deploy_step)
        self.assertNotIn('deploy_steps', node.driver_internal_info)
        self.assertNotIn('deploy_step_index', node.driver_internal_info)

    def test_the_deprecation_warning_is_logged_once_per_interface_class(self):
        # Given a legacy node deployed, then redeployed
        node = self.make_available(deploy_interface='fake-legacy')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        # Then the warning names the class once, and says what to do
        self.assertEqual(1, self.log.output.count(WARNING))
        self.assertIn('ironic_steps.drivers.modules.fake.FakeLegacyDeploy',
                      self.log.output)
        self.assertIn('@deploy_step', self.log.output)

    def test_a_deploy_with_steps_logs_no_deprecation_warning(self):
        self.config(agent_delay=0, group='fake')
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn(WARNING, self.log.output)

    def test_a_waiting_legacy_deploy_continues_on_heartbeat(self):
        # Given a legacy interface whose deploy() waits for its agent
        interface = WaitingLegacyDeploy()
        self.useFixture(plugins.HardwarePlugin(
            'legacy-hw', deploy=interface))
        node = self.make_available(driver='legacy-hw')
        # When the node is deployed, it waits for the call-back
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(['deploy'], interface.calls)
        self.assertEqual({'image_written': False}, node.extra)
        self.assertEqual({}, node.deploy_step)
        self.assertNotIn('deploy_steps', node.driver_internal_info)
        # When the agent heartbeats, continue_deploy() finishes the deploy
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(['deploy', 'continue_deploy'], interface.calls)
        self.assertEqual({'image_written': True}, node.extra)
        self.assertIsNone(node.last_error)
        self.assertEqual(1, self.log.output.count(WARNING))
