"""The fake agent heartbeats once the node is parked, and only once."""

import threading

from ironic_steps.drivers.modules import fake_agent
from tests import base


class FakeAgentTest(base.TestCase):

    def run_agent(self, stages):
        self.config(agent_delay=0, group='fake')
        sent, done = [], threading.Event()
        remaining = list(stages)

        def stage(node_uuid, kind, step_index):
            current = remaining.pop(0) if remaining else fake_agent.MOVED_ON
            if not remaining:
                done.set()
            return current

        agent = fake_agent.FakeAgent(send=sent.append, stage=stage)
        self.addCleanup(agent.stop)
        agent.expect_heartbeat('node-1', 1)
        self.assertTrue(done.wait(10))
        agent.stop()
        return sent

    def test_a_busy_node_is_not_heartbeated_until_it_is_parked(self):
        sent = self.run_agent([fake_agent.BUSY, fake_agent.BUSY,
                               fake_agent.PARKED])
        self.assertEqual(['node-1'], sent)

    def test_a_deploy_that_moved_on_gets_no_heartbeat(self):
        self.assertEqual([], self.run_agent([fake_agent.BUSY,
                                             fake_agent.MOVED_ON]))
