"""The fake agent heartbeats a parked node, and only once."""

import logging
import threading

import fixtures
import oslo_messaging as messaging

from ironic_steps.common import exception
from ironic_steps import fake_agent
from tests import base


class FakeAgentTest(base.TestCase):

    def run_agent(self, stages, refusals=0, delay=0,
                  refusal=lambda node_uuid: exception.NodeLocked(
                      node=node_uuid, host='other')):
        """Expect one heartbeat; the first ``refusals`` sends fail with
        ``refusal(node_uuid)``.  Returns (heartbeats sent, stages read)."""
        self.config(agent_delay=delay, group='fake')
        sent, read, done = [], [], threading.Event()
        remaining = list(stages)

        def stage(node_uuid, kind, step_index):
            read.append(node_uuid)
            current = remaining.pop(0) if remaining else fake_agent.MOVED_ON
            if current == fake_agent.MOVED_ON:
                done.set()
            return current

        def send(node_uuid):
            sent.append(node_uuid)
            if len(sent) <= refusals:
                raise refusal(node_uuid)
            done.set()

        agent = fake_agent.FakeAgent(send=send, stage=stage)
        self.addCleanup(agent.stop)
        agent.expect_heartbeat('node-1', 1)
        self.assertTrue(done.wait(10))
        agent.stop()
        return sent, read

    def test_without_delay_the_parked_node_is_heartbeated_at_once(self):
        self.assertEqual((['node-1'], []), self.run_agent([]))

    def test_a_turned_away_heartbeat_waits_until_the_node_is_parked(self):
        sent, read = self.run_agent(
            [fake_agent.BUSY, fake_agent.BUSY, fake_agent.PARKED],
            refusals=1)
        self.assertEqual(['node-1', 'node-1'], sent)
        self.assertEqual(3, len(read))

    def test_a_heartbeat_nobody_answered_in_time_is_sent_again(self):
        # (Lost with a broker that went away: a real agent tries again,
        # and that is no error with a traceback.)
        log = self.useFixture(fixtures.FakeLogger(
            name='ironic_steps.fake_agent', level=logging.INFO))
        sent, _ = self.run_agent(
            [fake_agent.PARKED], refusals=1,
            refusal=lambda node_uuid: messaging.MessagingTimeout('lost'))
        self.assertEqual(['node-1', 'node-1'], sent)
        self.assertIn('no conductor answered the heartbeat', log.output)
        self.assertNotIn('Traceback', log.output)

    def test_after_a_delay_a_flow_that_moved_on_gets_no_heartbeat(self):
        sent, read = self.run_agent(
            [fake_agent.BUSY, fake_agent.MOVED_ON], delay=0.01)
        self.assertEqual([], sent)
        self.assertEqual(2, len(read))


class FakeAgentInspectionTest(base.TestCase):
    """Booted to be inspected, the agent reports once the node is parked
    in inspect wait, and not for a node that is not inspected."""

    def boot(self, stages):
        self.config(agent_delay=0, group='fake')
        reported, done = [], threading.Event()
        remaining = list(stages)

        def inspection_stage(node_uuid):
            current = remaining.pop(0) if remaining else fake_agent.MOVED_ON
            if current == fake_agent.MOVED_ON:
                done.set()
            return current

        def report(node_uuid):
            reported.append(node_uuid)
            done.set()

        def heartbeat(node_uuid):
            self.fail('an agent booted to inspect does not heartbeat')

        agent = fake_agent.FakeAgent(send=heartbeat, report=report,
                                     inspection_stage=inspection_stage)
        self.addCleanup(agent.stop)
        agent.ramdisk_booted('node-1')
        self.assertTrue(done.wait(10))
        agent.stop()
        return reported

    def test_it_reports_once_the_node_is_parked(self):
        self.assertEqual(['node-1'], self.boot(
            [fake_agent.BUSY, fake_agent.PARKED]))

    def test_a_node_that_is_not_inspected_gets_no_report(self):
        self.assertEqual([], self.boot([fake_agent.MOVED_ON]))
