"""The tooz lock backend where it differs from the database reservation:
recovery goes by the lease, and a lock service that is missing or
unreachable is said so.  (What every backend promises is in
test_lock_contract.py.)"""

import datetime
import time

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import locks
from ironic_steps.conductor import manager
from ironic_steps.conductor import registry
from ironic_steps.conductor import task_manager
from ironic_steps.conf import CONF
from ironic_steps import objects
from tests import base
from tests import clock
from tests import database_servers
from tests import lock_servers
from tests.unit.conductor import test_task_manager


class ToozRecoveryTest(base.TestCase):

    def setUp(self):
        super().setUp()
        lock_servers.RedisServer.require(self)
        self.url = lock_servers.RedisServer.shared().url
        self.config(lock_backend='tooz', lock_backend_url=self.url,
                    group='conductor')
        self.addCleanup(locks.stop)

    def test_a_restarted_conductor_waits_for_its_old_lease_then_fails_the_flow(
            self):
        # Given a node this conductor's previous process locked mid-deploy,
        # its lease still running
        node = self.create_node()
        node.provision_state = states.DEPLOYING
        node.save()
        previous_process = locks.ToozLocks(self.url, timeout=30)
        previous_process.take(self.context, 'test-conductor', node.uuid)
        self.addCleanup(previous_process.stop)
        # When the conductor starts again
        conductor = manager.ConductorManager()
        conductor.start(self.context)
        self.addCleanup(conductor.stop)
        # Then it leaves the node alone while the lease says it is held
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual('test-conductor', node.reservation)
        self.assertEqual(states.DEPLOYING, node.provision_state)
        # and once the lease is gone, frees the node and fails its flow
        previous_process.stop()
        conductor.housekeeping.free_abandoned_locks(self.context)
        node = objects.Node.get(self.context, node.uuid)
        self.assertIsNone(node.reservation)
        self.assertEqual(states.DEPLOYFAIL, node.provision_state)
        self.assertIn('no running work', node.last_error)

    def test_a_dead_conductor_s_nodes_are_freed_once_their_lease_is_gone(
            self):
        # Given two conductors that stopped heartbeating mid-deploy: one
        # whose leases ran out, one whose leases still run (only its
        # database heartbeats stopped)
        nodes = {}
        for host in ('dead-conductor', 'cut-off-conductor'):
            objects.Conductor.register(host, {'fake-hardware': {}})
            nodes[host] = self.create_node()
            nodes[host].provision_state = states.DEPLOYING
            nodes[host].save()
        dead = locks.ToozLocks(self.url, timeout=30)
        dead.take(self.context, 'dead-conductor', nodes['dead-conductor'].uuid)
        dead.stop()
        cut_off = locks.ToozLocks(self.url, timeout=30)
        self.addCleanup(cut_off.stop)
        cut_off.take(self.context, 'cut-off-conductor',
                     nodes['cut-off-conductor'].uuid)
        self.config(heartbeat_timeout=60, group='conductor')
        conductor = manager.ConductorManager()
        conductor.start(self.context)
        self.addCleanup(conductor.stop)
        manual = clock.ManualClock()
        # The started heart stops, or it would beat on after the test.
        conductor._heart.stop()
        conductor._heart = registry.Heart(conductor.host, clock=manual)
        manual.advance(60)
        # When this conductor, steady, looks for dead ones after the timeout
        timeutils.set_time_override(
            timeutils.utcnow() + datetime.timedelta(seconds=120))
        self.addCleanup(timeutils.clear_time_override)
        conductor.housekeeping.take_over_from_dead_conductors(self.context)
        # Then the node whose lease is gone is freed, its flow failed
        node = objects.Node.get(self.context, nodes['dead-conductor'].uuid)
        self.assertIsNone(node.reservation)
        self.assertEqual(states.DEPLOYFAIL, node.provision_state)
        self.assertIn('dead-conductor stopped heartbeating', node.last_error)
        # and the one whose lease runs is left to its holder
        node = objects.Node.get(self.context, nodes['cut-off-conductor'].uuid)
        self.assertEqual('cut-off-conductor', node.reservation)
        self.assertEqual(states.DEPLOYING, node.provision_state)

    def test_a_node_in_no_flow_is_taken_over_untouched(self):
        node = self.create_node()
        gone = locks.ToozLocks(self.url, timeout=30)
        gone.take(self.context, 'gone-conductor', node.uuid)
        gone.stop()
        with task_manager.acquire(self.context, node.uuid,
                                  host='test-conductor', retry=False) as task:
            self.assertEqual('test-conductor', task.node.reservation)
            self.assertEqual(states.ENROLL, task.node.provision_state)
            self.assertIsNone(task.node.last_error)


class ToozMisconfiguredTest(base.TestCase):

    def test_a_conductor_with_no_lock_service_url_does_not_start(self):
        self.config(lock_backend='tooz', group='conductor')
        self.addCleanup(locks.stop)
        conductor = manager.ConductorManager()
        failed = self.assertRaises(exception.IronicStepsException,
                                   conductor.start, self.context)
        self.assertIn('lock_backend_url', str(failed))

    def test_an_unreachable_etcd_answers_503_at_once(self):
        lock_servers.EtcdServer.require(self)
        self.config(lock_backend='tooz', group='conductor',
                    lock_backend_url='etcd3+http://127.0.0.1:%d' % (
                        database_servers.free_port()))
        self.addCleanup(locks.stop)
        node = self.create_node()
        failed = self.assertRaises(
            exception.LockServiceUnavailable, task_manager.acquire,
            self.context, node.uuid, host='test-conductor', retry=False)
        self.assertEqual(503, failed.code)
        self.assertIsNone(objects.Node.get(self.context,
                                           node.uuid).reservation)

    def test_a_redis_gone_away_answers_503_within_a_second(self):
        lock_servers.RedisServer.require(self)
        redis_server = self.useFixture(lock_servers.RedisServer())
        self.config(lock_backend='tooz', lock_backend_url=redis_server.url,
                    group='conductor')
        self.addCleanup(locks.stop)
        node = self.create_node()
        with task_manager.acquire(self.context, node.uuid,
                                  host='test-conductor', retry=False):
            pass
        redis_server.stop()
        started = time.monotonic()
        failed = self.assertRaises(
            exception.LockServiceUnavailable, task_manager.acquire,
            self.context, node.uuid, host='test-conductor', retry=False)
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertIn('lock service', str(failed))
        self.assertIsNone(objects.Node.get(self.context,
                                           node.uuid).reservation)


class _OnRedis:
    """Node locks in a Redis lock service (tooz) rather than the
    database alone."""

    def setUp(self):
        super().setUp()
        lock_servers.RedisServer.require(self)
        self.config(lock_backend='tooz', group='conductor',
                    lock_backend_url=lock_servers.RedisServer.shared().url)
        self.addCleanup(locks.stop)


class TaskManagerOnRedisTest(_OnRedis, test_task_manager.TaskManagerTest):
    """Every task manager test, with the locks in Redis."""

    def test_a_lock_held_elsewhere_is_retried_then_refused(self):
        # Held elsewhere is held by another process's lease: a column
        # naming a holder with no lease is taken over (see above).
        self.config(node_locked_retry_attempts=3, group='conductor')
        other_process = locks.ToozLocks(CONF.conductor.lock_backend_url,
                                        timeout=30)
        self.addCleanup(other_process.stop)
        other_process.take(self.context, 'other-conductor', self.node.uuid)
        started = time.monotonic()
        exc = self.assertRaises(exception.NodeLocked, task_manager.acquire,
                                self.context, self.node.uuid)
        self.assertGreaterEqual(time.monotonic() - started, 0.02)
        self.assertIn('locked by host other-conductor', str(exc))
        self.assertEqual('other-conductor', self.stored().reservation)


class FencingOnRedisTest(_OnRedis, test_task_manager.FencingTest):
    """A task whose column lock was taken writes nothing more, whatever
    its lease in the lock service says; its lease is let go."""
