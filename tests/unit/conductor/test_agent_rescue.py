"""The ``agent`` rescue interface (release 0.12): the real conductor and
SQLite, fake hardware, and a fake ironic-python-agent on 127.0.0.1
(:class:`tests.fake_ipa.FakeIPA`) playing the rescue environment's agent,
which the conductor's agent client talks to over HTTP."""

import datetime

from oslo_utils import secretutils
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import agent_token
from ironic_steps import objects
from tests import base
from tests import fake_ipa

PASSWORD = 'r3scue-me'


class AgentRescueTest(base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        self.config(group='agent', **fake_ipa.QUICK_CLIENT)
        self.ipa = self.useFixture(fake_ipa.FakeIPA())

    def rescuing(self):
        """An active node with the agent rescue interface, asked to
        rescue: once it waits for its agent."""
        node = self.make_active(rescue_interface='agent')
        self.rpcapi.do_node_rescue(self.context, node.uuid, PASSWORD)
        return self.wait_for_state(node, states.RESCUEWAIT)

    def agent_calls_back(self, node):
        """As the rescue environment's agent: look up, then heartbeat."""
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.assertNotEqual(agent_token.MASK, token)
        self.ipa.token = token
        self.rpcapi.heartbeat(self.context, node.uuid,
                              callback_url=self.ipa.url,
                              agent_version='13.0.0', agent_token=token)

    def test_the_agent_gets_the_hashed_password_and_the_node_is_rescued(self):
        # Given a node booted into its rescue agent, waiting for it
        waiting = self.rescuing()
        self.assertEqual(states.POWER_ON, waiting.power_state)
        self.assertIsNone(waiting.reservation)
        # When its agent calls back
        self.agent_calls_back(waiting)
        # Then it is given the password, hashed, and the node is rescued
        rescued = self.wait_for_state(waiting, states.RESCUE)
        (params,) = self.ipa.sent('rescue.finalize_rescue')
        self.assertTrue(params['hashed'])
        self.assertNotIn(PASSWORD, str(params))
        self.assertEqual(params['rescue_password'],
                         secretutils.crypt_password(
                             PASSWORD, params['rescue_password']))
        self.assertIsNone(rescued.last_error)

    def test_unrescue_boots_the_instance_and_forgets_the_password(self):
        waiting = self.rescuing()
        self.agent_calls_back(waiting)
        self.wait_for_state(waiting, states.RESCUE)
        self.rpcapi.do_node_unrescue(self.context, waiting.uuid)
        active = self.wait_for_state(waiting, states.ACTIVE)
        self.assertNotIn('rescue_password', active.instance_info)
        self.assertNotIn('hashed_rescue_password', active.instance_info)
        self.assertEqual(states.POWER_ON, active.power_state)

    def test_an_agent_that_refuses_the_password_fails_the_rescue(self):
        waiting = self.rescuing()
        self.ipa.answer((500, {'faultcode': 'Server',
                               'faultstring': 'no rescue extension'}))
        self.agent_calls_back(waiting)
        failed = self.wait_for_state(waiting, states.RESCUEFAIL)
        self.assertIn('Failed to rescue node %s' % waiting.uuid,
                      failed.last_error)
        self.assertNotIn('hashed_rescue_password', failed.instance_info)

    def test_an_operator_aborts_a_rescue_waiting_for_its_agent(self):
        waiting = self.rescuing()
        self.rpcapi.do_provisioning_action(self.context, waiting.uuid,
                                           'abort')
        failed = self.wait_for_state(waiting, states.RESCUEFAIL)
        self.assertIn('aborted by request', failed.last_error)
        self.assertNotIn('rescue_password', failed.instance_info)
        # A late heartbeat of the old agent changes nothing.
        self.assertRaises(exception.IronicStepsException,
                          self.rpcapi.get_node_with_token, self.context,
                          waiting.uuid)

    def test_a_rescue_whose_agent_never_calls_back_times_out(self):
        self.config(rescue_callback_timeout=60, group='conductor')
        waiting = self.rescuing()
        waiting.provision_updated_at = (
            timeutils.utcnow() - datetime.timedelta(seconds=61))
        waiting.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        failed = objects.Node.get(self.context, waiting.uuid)
        self.assertEqual(states.RESCUEFAIL, failed.provision_state)
        self.assertIn('Timeout reached while waiting for the rescue agent',
                      failed.last_error)

    def test_pinned_to_0_11_the_agent_rescue_interface_is_not_offered(self):
        self.config(pin_release_version='0.11')
        self.assertRaisesRegex(
            exception.IronicStepsException, 'agent',
            self.create_node, rescue_interface='agent')
