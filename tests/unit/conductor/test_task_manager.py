"""Node locks, worker hand-over and admission of work at the door."""

import threading
import time

import ddt
from oslo_db import exception as db_exc
import testtools

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import task_manager
from ironic_steps.conductor import workers
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.drivers import base
from ironic_steps import objects
from tests import base as tests_base
from tests import plugins

TIMEOUT = 10
# Fixed, not generated: ddt puts it in the test id, which must not change
# between the test runner's listing and its workers.
MISSING_UUID = '5d7c3a4e-93b1-4c2f-a0f6-2b8e9d1c7f40'


def wait_until(predicate, what):
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError('Timed out waiting until %s' % what)
        time.sleep(0.01)


@ddt.ddt
class TaskManagerTest(tests_base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def stored(self):
        return objects.Node.get(self.context, self.node.uuid)

    def test_of_two_racing_threads_exactly_one_gets_the_lock(self):
        # Given two threads that try to lock the node at the same moment
        self.config(node_locked_retry_attempts=1, group='conductor')
        start = threading.Barrier(2, timeout=TIMEOUT)
        both_tried = threading.Barrier(2, timeout=TIMEOUT)
        results = []

        def contender():
            start.wait()
            try:
                with task_manager.acquire(self.context, self.node.uuid):
                    results.append(('locked', self.stored().reservation))
                    both_tried.wait()   # hold the lock until both tried
            except exception.NodeLocked as exc:
                results.append(('refused', str(exc)))
                both_tried.wait()

        threads = [threading.Thread(target=contender) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(TIMEOUT)
        # Then one held it and the other was told who holds it
        self.assertEqual([('locked', 'test-conductor')],
                         [r for r in results if r[0] == 'locked'])
        refused = [r for r in results if r[0] == 'refused']
        self.assertEqual(1, len(refused))
        self.assertIn('Node %s is locked by host test-conductor'
                      % self.node.uuid, refused[0][1])
        self.assertIsNone(self.stored().reservation)

    def test_a_lock_held_elsewhere_is_retried_then_refused(self):
        self.config(node_locked_retry_attempts=3, group='conductor')
        objects.Node.reserve(self.context, 'other-conductor', self.node.id)
        started = time.monotonic()
        exc = self.assertRaises(exception.NodeLocked, task_manager.acquire,
                                self.context, self.node.uuid)
        # Two waits of node_locked_retry_interval (0.01s) between 3 tries.
        self.assertGreaterEqual(time.monotonic() - started, 0.02)
        self.assertIn('locked by host other-conductor', str(exc))
        self.assertEqual('other-conductor', self.stored().reservation)

    def test_a_shared_task_takes_no_lock(self):
        with task_manager.acquire(self.context, self.node.uuid,
                                  shared=True) as task:
            self.assertIsNone(task.node.reservation)
            self.assertIsNone(self.stored().reservation)
            # so an exclusive task can still be taken meanwhile
            with task_manager.acquire(self.context, self.node.uuid):
                self.assertEqual('test-conductor',
                                 self.stored().reservation)
        self.assertIsNone(self.stored().reservation)

    def test_a_shared_task_may_not_change_the_state(self):
        with task_manager.acquire(self.context, self.node.uuid,
                                  shared=True) as task:
            self.assertRaises(exception.IronicStepsException,
                              task.process_event, states.EVENT_MANAGE)
            self.assertEqual(states.ENROLL, task.node.provision_state)

    @ddt.data('uuid', 'name', 'id')
    def test_the_lock_is_taken_and_released_by_any_identifier(self, key):
        with task_manager.acquire(self.context,
                                  getattr(self.node, key)) as task:
            self.assertEqual('test-conductor', task.node.reservation)
            self.assertEqual('test-conductor', self.stored().reservation)
        self.assertIsNone(self.stored().reservation)

    def test_the_lock_is_released_when_the_block_raises(self):
        def fail_inside():
            with task_manager.acquire(self.context, self.node.uuid):
                raise ValueError('oops')

        self.assertRaises(ValueError, fail_inside)
        self.assertIsNone(self.stored().reservation)

    def test_a_handed_over_worker_keeps_the_lock_until_it_ends(self):
        # Given work handed to a worker that blocks, then raises
        pool = workers.WorkerPool(1)
        self.addCleanup(pool.shutdown)
        proceed = threading.Event()
        self.addCleanup(proceed.set)

        def work(task):
            proceed.wait(TIMEOUT)
            raise RuntimeError('a bug in a flow')

        with pool.reserve() as worker, task_manager.acquire(
                self.context, self.node.uuid) as task:
            task.hand_over(worker, work)
        # Then leaving the block does not release the lock
        self.assertEqual('test-conductor', self.stored().reservation)
        # and the worker releases it although the work raised
        proceed.set()
        wait_until(lambda: self.stored().reservation is None,
                   'the worker released the lock')
        # and the worker's slot is free again
        wait_until(self._can_reserve(pool), 'the worker slot was freed')

    @staticmethod
    def _can_reserve(pool):
        def check():
            try:
                with pool.reserve():
                    return True
            except exception.NoFreeConductorWorker:
                return False
        return check

    def test_work_handed_over_in_a_block_that_raises_is_not_run(self):
        pool = workers.WorkerPool(1)
        self.addCleanup(pool.shutdown)
        ran = []

        def fail_after_hand_over():
            with pool.reserve() as worker, task_manager.acquire(
                    self.context, self.node.uuid) as task:
                task.hand_over(worker, ran.append)
                raise ValueError('changed my mind')

        self.assertRaises(ValueError, fail_after_hand_over)
        self.assertEqual([], ran)
        self.assertIsNone(self.stored().reservation)
        with pool.reserve():
            pass   # the worker was given back

    def test_the_last_save_of_a_task_drops_the_lock_with_it(self):
        with task_manager.acquire(self.context, self.node.uuid) as task:
            task.node.extra = {'done': True}
            task.save_and_release()
            stored = self.stored()
            self.assertIsNone(stored.reservation)
            self.assertEqual({'done': True}, stored.extra)
            # and the task can no longer change the node
            self.assertRaises(exception.IronicStepsException,
                              task.process_event, states.EVENT_MANAGE)
        self.assertIsNone(self.stored().reservation)

    def test_a_task_without_the_lock_cannot_save_with_release(self):
        # Given a task whose lock went with its last save, and a new holder
        with task_manager.acquire(self.context, self.node.uuid) as task:
            task.save_and_release()
            objects.Node.reserve(self.context, 'next-holder', self.node.id)
            # When it tries to save again, nothing is written
            task.node.extra = {'late': True}
            self.assertRaises(exception.IronicStepsException,
                              task.save_and_release)
        stored = self.stored()
        self.assertEqual('next-holder', stored.reservation)
        self.assertIsNone(stored.extra)

    def test_calls_after_release_see_the_node_unlocked(self):
        seen = []

        def look():
            seen.append(self.stored().reservation)

        def broken():
            raise RuntimeError('not the task owner\'s problem')

        # By the last save
        with task_manager.acquire(self.context, self.node.uuid) as task:
            task.call_after_release(broken)
            task.call_after_release(look)
            self.assertEqual([], seen)
            task.save_and_release()
            self.assertEqual([None], seen)
        # and by the end of the block, once each
        with task_manager.acquire(self.context, self.node.uuid) as task:
            task.call_after_release(look)
            self.assertEqual([None], seen)
        self.assertEqual([None, None], seen)

    @ddt.data(MISSING_UUID, 'no-such-node', 424242)
    def test_acquiring_a_missing_node_raises_node_not_found(self, ident):
        for shared in (False, True):
            exc = self.assertRaises(exception.NodeNotFound,
                                    task_manager.acquire, self.context,
                                    ident, shared=shared)
            self.assertIn(str(ident), str(exc))

    def test_locking_does_not_change_updated_at(self):
        node = self.stored()
        node.extra = {'touched': True}
        node.save()
        updated_at = self.stored().updated_at
        self.assertIsNotNone(updated_at)
        with task_manager.acquire(self.context, self.node.uuid):
            self.assertEqual(updated_at, self.stored().updated_at)
        self.assertEqual(updated_at, self.stored().updated_at)


class HandOverFailureTest(tests_base.TestCase):

    def test_a_hand_over_that_cannot_start_releases_the_lock(self):
        node = self.create_node()
        pool = workers.WorkerPool(1)
        reservation = pool.reserve()
        pool.shutdown()   # e.g. the conductor is stopping
        with testtools.ExpectedException(RuntimeError):
            with task_manager.acquire(self.context, node.uuid) as task:
                task.hand_over(reservation, lambda task: None)
        self.assertIsNone(objects.Node.get(self.context,
                                           node.uuid).reservation)


class WorkerPoolTest(tests_base.TestCase):

    def test_a_full_pool_refuses_at_once(self):
        pool = workers.WorkerPool(1)
        self.addCleanup(pool.shutdown)
        with pool.reserve():
            started = time.monotonic()
            self.assertRaises(exception.NoFreeConductorWorker, pool.reserve)
            self.assertLess(time.monotonic() - started, 1)

    def test_an_unused_reservation_is_given_back(self):
        pool = workers.WorkerPool(1)
        self.addCleanup(pool.shutdown)
        with pool.reserve():
            pass
        with pool.reserve():
            pass


class BlockingDeploy(base.DeployInterface):

    def __init__(self):
        self.running = threading.Event()
        self.release = threading.Event()

    @base.deploy_step(priority=50)
    def deploy(self, task):
        self.running.set()
        self.release.wait(TIMEOUT)


class WorkerAdmissionTest(tests_base.ConductorTestCase):

    def test_a_deploy_is_refused_when_every_worker_is_busy(self):
        # Given two available nodes and a conductor with one worker
        interface = BlockingDeploy()
        self.addCleanup(interface.release.set)
        self.useFixture(plugins.HardwarePlugin(
            'blocking-hw', deploy=interface))
        busy = self.make_available(driver='blocking-hw')
        other = self.make_available()
        self.config(workers_pool_size=1, group='conductor')
        self.manager.stop()
        self.manager.start(self.context)
        # When the first node's deploy holds the only worker
        self.rpcapi.do_node_deploy(self.context, busy.uuid)
        self.assertTrue(interface.running.wait(TIMEOUT))
        # Then the second node's deploy is refused and the node untouched
        before = objects.Node.get(self.context, other.uuid)
        self.assertRaises(exception.NoFreeConductorWorker,
                          self.rpcapi.do_node_deploy, self.context,
                          other.uuid)
        after = objects.Node.get(self.context, other.uuid)
        self.assertEqual(states.AVAILABLE, after.provision_state)
        self.assertIsNone(after.reservation)
        self.assertEqual(before.obj_to_primitive(), after.obj_to_primitive())
        # and once the worker is free, the first deploy finishes
        interface.release.set()
        self.wait_for_state(busy, states.ACTIVE)


class FencingTest(tests_base.TestCase):
    """A task whose lock was taken over writes nothing more."""

    def take_over(self, node, new_holder='conductor-b'):
        objects.Node.release(self.context, 'test-conductor', node.id)
        objects.Node.reserve(self.context, new_holder, node.id)

    def test_a_save_after_the_lock_was_taken_over_is_refused(self):
        node = self.create_node(extra={'rack': 1})
        task = task_manager.acquire(self.context, node.uuid)
        self.take_over(node)
        task.node.extra = {'rack': 2}
        self.addCleanup(task.release_resources)
        exc = self.assertRaises(exception.NodeLockLost, task.node.save)
        self.assertIn('no longer locked by test-conductor', str(exc))
        self.assertIn('conductor-b', str(exc))
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(({'rack': 1}, 'conductor-b'),
                         (stored.extra, stored.reservation))

    def test_the_last_save_of_a_taken_over_task_leaves_the_new_lock(self):
        node = self.create_node(extra={'rack': 1})
        held_before = task_manager.HELD.holding('test-conductor')
        task = task_manager.acquire(self.context, node.uuid)
        self.take_over(node)
        task.node.extra = {'rack': 2}
        self.assertRaises(exception.NodeLockLost, task.save_and_release)
        task.release_resources()   # nothing left to drop
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(({'rack': 1}, 'conductor-b'),
                         (stored.extra, stored.reservation))
        self.assertEqual(held_before,
                         task_manager.HELD.holding('test-conductor'))

    def test_a_release_whose_answer_was_lost_after_its_commit_succeeds(
            self):
        # The database commits the last save of a task, then the connection
        # drops before the answer: the write is tried again and finds the
        # node unlocked, which is its own doing, not a lost lock
        node = self.create_node(extra={'rack': 1})
        engine = sqlalchemy_api.get_engine()
        committed = engine.dialect.do_commit
        lost_answers = []

        def commit_then_lose_the_answer(dbapi_connection):
            committed(dbapi_connection)
            if not lost_answers:
                lost_answers.append(True)
                raise db_exc.DBConnectionError('connection lost')

        released = []
        task = task_manager.acquire(self.context, node.uuid)
        task.call_after_release(released.append, 'after release')
        task.node.extra = {'rack': 2}
        # A unique column too: the write goes through SQLAlchemy, as every
        # write to a database server does (on the embedded SQLite a lone
        # write of other columns goes to its driver, and no answer is
        # lost there).
        task.node.name = 'rack-2'
        self.config(db_retry_interval=0, group='database')
        self.patch(engine.dialect, 'do_commit', commit_then_lose_the_answer)
        task.save_and_release()
        self.assertEqual([True], lost_answers)
        self.assertEqual(['after release'], released)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(({'rack': 2}, 'rack-2', None),
                         (stored.extra, stored.name, stored.reservation))

    def test_a_node_read_without_a_lock_saves_as_before(self):
        node = self.create_node(extra={'rack': 1})
        node.extra = {'rack': 3}
        node.save()
        self.assertEqual({'rack': 3}, objects.Node.get(
            self.context, node.uuid).extra)
