"""A conductor recovers nodes left behind by a crash or a silent agent."""

import datetime
import time

import fixtures
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from ironic_steps.common import states
from ironic_steps.conductor import manager
from ironic_steps.conductor import registry
from ironic_steps.db import api as db_api
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import models
from ironic_steps import fake_agent
from ironic_steps import objects
from tests import base
from tests import clock


class WaitTimeoutTest(base.ConductorTestCase):

    def _park_in_wait(self):
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        return self.wait_for_state(node, states.DEPLOYWAIT)

    def _wait_past_the_timeout(self):
        """A deploy parked 61 s under a 60 s timeout, then checked."""
        self.config(deploy_callback_timeout=60, group='conductor')
        node = self._park_in_wait()
        node.provision_updated_at = timeutils.utcnow() - datetime.timedelta(
            seconds=61)
        node.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        return objects.Node.get(self.context, node.uuid)

    def test_deploy_waiting_longer_than_the_timeout_fails_naming_the_step(self):
        node = self._wait_past_the_timeout()
        self.assertEqual(states.DEPLOYFAIL, node.provision_state)
        self.assertIn('Timeout reached', node.last_error)
        self.assertIn('deploy.write_image', node.last_error)
        self.assertEqual('write_image', node.deploy_step['step'])

    def test_a_step_whose_agent_never_called_back_is_a_timeout_in_history(
            self):
        node = self._wait_past_the_timeout()
        last = objects.NodeStepHistory.list_by_node(self.context,
                                                    node.id)[-1]
        self.assertEqual(('write_image', 'timeout', node.last_error),
                         (last.step, last.outcome, last.error))

    def test_deploy_waiting_less_than_the_timeout_is_left_alone(self):
        self.config(deploy_callback_timeout=60, group='conductor')
        node = self._park_in_wait()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        self.assertEqual(states.DEPLOYWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_a_node_waiting_for_the_fake_agent_is_adopted_by_its_owner(
            self):
        # Given a node waiting for the agent of a conductor that is gone
        # (the agent died with it: this one never heard of the node)
        node = self._park_in_wait()
        fake_agent.stop()
        self.assertEqual(set(), fake_agent.start().serving())
        # When the node's new owner adopts the waiting nodes
        self.config(agent_delay=0, group='fake')
        self.manager.housekeeping.adopt_agents(self.context)
        # Then the agent heartbeats there and the deploy goes on
        self.wait_for_state(node, states.ACTIVE)

    def test_zero_timeout_waits_forever(self):
        self.config(deploy_callback_timeout=0, group='conductor')
        node = self._park_in_wait()
        node.provision_updated_at = datetime.datetime(2000, 1, 1)
        node.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        self.assertEqual(states.DEPLOYWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)


class CrashRecoveryTest(base.TestCase):

    def test_restarted_conductor_fails_the_flow_it_held_and_unlocks(self):
        # Given a node this conductor locked mid-deploy before it died
        node = self.create_node()
        node.provision_state = states.DEPLOYING
        node.deploy_step = {'interface': 'deploy', 'step': 'deploy',
                            'priority': 100, 'argsinfo': None, 'args': {}}
        node.save()
        db_api.get_instance().reserve_node('test-conductor', node.id)
        # and a node another conductor holds
        other = self.create_node()
        db_api.get_instance().reserve_node('other-conductor', other.id)
        # When the conductor starts again
        conductor = manager.ConductorManager()
        conductor.start(self.context)
        self.addCleanup(conductor.stop)
        # Then its node is failed where it stood and unlocked
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.DEPLOYFAIL, node.provision_state)
        self.assertIsNone(node.reservation)
        self.assertIn('restarted', node.last_error)
        self.assertIn('deploy.deploy', node.last_error)
        self.assertEqual('deploy', node.deploy_step['step'])
        # and the other conductor's lock is untouched
        self.assertEqual('other-conductor', objects.Node.get(
            self.context, other.uuid).reservation)


class TakeOverTest(base.ConductorTestCase):

    def deploying_node_locked_by_silent_conductor(self):
        """A deploying node locked by 'silent-conductor', whose last
        heartbeat is twice ``heartbeat_timeout`` (60 s) old."""
        dbapi = db_api.get_instance()
        dbapi.register_conductor('silent-conductor')
        node = self.create_node()
        node.provision_state = states.DEPLOYING
        node.save()
        dbapi.reserve_node('silent-conductor', node.id)
        self.config(heartbeat_timeout=60, group='conductor')
        stale = timeutils.utcnow() - datetime.timedelta(seconds=120)
        with sqlalchemy_api._writer() as session:
            session.execute(sa.update(models.Conductor).where(
                models.Conductor.hostname == 'silent-conductor').values(
                    updated_at=stale))
        return node

    def test_nodes_of_a_conductor_that_stopped_heartbeating_are_freed(self):
        dbapi = db_api.get_instance()
        # Given a conductor that locked a node mid-deploy, then went silent
        node = self.deploying_node_locked_by_silent_conductor()
        # and another node locked by a conductor that is alive
        dbapi.register_conductor('busy-conductor')
        busy = self.create_node()
        dbapi.reserve_node('busy-conductor', busy.id)
        # When a live conductor, its own heartbeats steady for a while,
        # looks for dead ones
        self.steady_for(60)
        self.manager.housekeeping.take_over_from_dead_conductors(self.context)
        # Then the silent one's flow is failed and its node unlocked
        node = objects.Node.get(self.context, node.uuid)
        self.assertIsNone(node.reservation)
        self.assertEqual(states.DEPLOYFAIL, node.provision_state)
        self.assertIn('silent-conductor stopped heartbeating',
                      node.last_error)
        # and the live one keeps its lock
        self.assertEqual('busy-conductor', objects.Node.get(
            self.context, busy.uuid).reservation)

    def test_a_conductor_whose_own_heartbeats_failed_lately_waits(self):
        # Given a node locked by a conductor whose heartbeat is stale
        node = self.deploying_node_locked_by_silent_conductor()
        # When this conductor's own heartbeats have gone through for less
        # than the timeout (the database was out, for it too)
        self.steady_for(59)
        self.manager.housekeeping.take_over_from_dead_conductors(self.context)
        # Then it does not judge the other dead yet
        self.assertEqual('silent-conductor', objects.Node.get(
            self.context, node.uuid).reservation)
        self.steady_for(60)
        self.manager.housekeeping.take_over_from_dead_conductors(self.context)
        self.assertIsNone(objects.Node.get(self.context,
                                           node.uuid).reservation)

    def steady_for(self, seconds):
        manual = clock.ManualClock()
        # The started heart stops, or it would beat on after the test.
        self.manager._heart.stop()
        self.manager._heart = registry.Heart(self.manager.host, clock=manual)
        manual.advance(seconds)


class HeartTest(base.ConductorTestCase):

    def test_a_heartbeat_that_fails_unexpectedly_does_not_stop_the_next(self):
        # Given a heart whose first heartbeat fails with an error that is
        # not an outage (a deadlock)
        self.config(heartbeat_interval=1, group='conductor')
        beats = []

        def heartbeat(hostname):
            if hostname == 'beating':   # not the test's own conductor
                beats.append(hostname)
                if len(beats) == 1:
                    raise db_exc.DBDeadlock()
            real_heartbeat(hostname)

        real_heartbeat = registry.heartbeat
        self.useFixture(fixtures.MonkeyPatch(
            'ironic_steps.conductor.registry.heartbeat', heartbeat))
        objects.Conductor.register('beating', {'fake-hardware': {}})
        before = objects.Conductor.get_by_hostname(
            self.context, 'beating').updated_at
        heart = registry.Heart('beating')
        heart.start()
        self.addCleanup(heart.stop)
        # When the beats go on
        deadline = time.monotonic() + 30
        while len(beats) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        heart.stop()
        # Then the one after the failure was written
        self.assertGreaterEqual(len(beats), 2)
        after = objects.Conductor.get_by_hostname(
            self.context, 'beating').updated_at
        self.assertGreater(after, before)
