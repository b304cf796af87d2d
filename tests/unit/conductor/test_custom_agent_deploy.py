"""The custom-agent deploy: the agent boots and runs only the user's steps.

A started conductor deploys fake-hardware nodes whose deploy interface is
``custom-agent`` (Ironic's; Metal3's ``customDeploy``), with the fake
ironic-python-agent (:class:`tests.fake_ipa.FakeIPA`) as the machine's
agent.  The ``direct`` interface is built on it, so what both share (the
agent's boot, heartbeats, tear-down) is specified by
``test_agent_heartbeat``; here, what differs: no image is written.
"""

from ironic_steps.common import exception
from ironic_steps.common import states
from tests.unit.conductor import test_agent_heartbeat as agent_tests

#: The plan of a custom-agent fake-hardware node before its agent
#: reports: the direct plan without the agent's image and its boot.
CUSTOM_AGENT_PLAN = ['deploy.deploy', 'management.set_instance_boot_device',
                     'boot.prepare_instance_boot', 'deploy.tear_down_agent',
                     'deploy.boot_instance', 'power.boot_instance']
#: What the user asks for: the agent's inject_files, off by default.
INJECT = agent_tests.request('deploy.inject_files', 85,
                             {'files': agent_tests.FILES})


class CustomAgentDeployTest(agent_tests.DirectDeployTestCase):

    deploy_interface = 'custom-agent'

    def deploy_to_agent_wait(self, deploy_steps=None, **fields):
        # No image at all: the interface has none of its own to write.
        return super().deploy_to_agent_wait(deploy_steps, instance_info={},
                                            **fields)

    def test_it_boots_the_agent_with_a_plan_that_writes_no_image(self):
        # When a custom-agent node without an image is deployed
        node = self.deploy_to_agent_wait()
        # Then it boots its agent and waits, its plan without write_image
        self.assertEqual(CUSTOM_AGENT_PLAN,
                         agent_tests.labels(agent_tests.node_plan(node)))
        self.assertIsNone(node.last_error)

    def test_only_the_users_steps_run_in_band_then_the_node_is_active(self):
        # Given a deploy asking the agent for inject_files
        node = self.deploy_to_step('deploy.inject_files',
                                   deploy_steps=[INJECT])
        # When the agent is done with it
        self.heartbeat(node)
        node = self.wait_for_state(node, states.ACTIVE)
        # Then the node is active: the agent ran the requested step and
        # the default one of its custom manager, wrote no image, and
        # installed no boot loader; its disks were synced
        self.assertIsNone(node.last_error)
        self.assertEqual(['deploy.upgrade_firmware', 'deploy.inject_files'],
                         self.ipa.steps_run('deploy'))
        self.assertEqual(
            ['deploy.get_deploy_steps', 'deploy.execute_deploy_step',
             'deploy.execute_deploy_step', 'standby.sync'], self.ipa.sent())
        self.assertEqual(states.POWER_ON, node.power_state)

    def test_the_agents_write_image_may_be_asked_for_as_any_step(self):
        # The direct interface shadows the agent's write_image; this one
        # does not, so a user may run it with arguments of their own.
        image_info = {'id': 'custom', 'urls': [
            agent_tests.IMAGE['image_source']]}
        node = self.deploy_to_step('deploy.write_image', deploy_steps=[
            agent_tests.request('deploy.write_image', 80,
                                {'image_info': image_info})])
        sent = self.ipa.sent('deploy.execute_deploy_step')[-1]['step']
        self.assertEqual({'image_info': image_info}, sent['args'])
        self.heartbeat(node)
        self.assertIsNone(self.wait_for_state(node,
                                              states.ACTIVE).last_error)


class PinnedCustomAgentTest(agent_tests.DirectTestCase):

    def test_pinned_to_0_13_a_node_cannot_get_it(self):
        self.config(pin_release_version='0.13')
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                self.create_node,
                                deploy_interface='custom-agent')
        self.assertIn('custom-agent', str(exc))
        self.assertIn('0.14', str(exc))
