"""The node lock contract, run against every lock backend.

Whatever ``[conductor] lock_backend`` says, a node lock is exclusive, its
holder is visible in the node's ``reservation``, it is freed within the
backend's documented bound when its holder dies, a holder that lost it
can no longer write, and racing takers in several processes run a step
on a node exactly once.  :class:`LockContract` says it once; one test
class per backend runs it: the database reservation on SQLite and on
PostgreSQL, tooz on Redis and on etcd.  Holders that die or pause are
real processes (:mod:`tests.lock_taker`) sent SIGKILL or SIGSTOP.  MariaDB
runs it too, for both backends.
"""

import multiprocessing.util
import os
import signal
import threading
import time

import fixtures
from testtools import content

from ironic_steps.common import exception
from ironic_steps.conductor import locks
from ironic_steps.conductor import manager
from ironic_steps.conductor import task_manager
from ironic_steps import objects
from tests import base
from tests import lock_servers
from tests import lock_taker

# multiprocessing keeps the fork server's socket (tests.lock_taker) in a
# directory it makes once per process: made now, before oslotest points
# TMPDIR at a per-test directory that goes with its test.
multiprocessing.util.get_temp_dir()

#: Beyond a backend's bound, for a loaded machine.
_SLACK = 2.0


class LockContract:
    """Mixed into a base.TestCase, with :meth:`lock_options` saying how
    the backend is configured and :attr:`bound` how soon a dead holder's
    lock must be free."""

    def lock_options(self):
        """{group: {option: value}} for this backend, in this process and
        in every lock taker it starts."""
        raise NotImplementedError

    #: Seconds from a holder's death to its lock being free.
    bound = None

    def setUp(self):
        super().setUp()
        self.options = self.lock_options()
        for group, options in self.options.items():
            self.config(group=group, **options)
        self.addCleanup(locks.stop)
        self.node = self.create_node()

    # --- helpers --------------------------------------------------------

    def start_taker(self, mode, host, **settings):
        settings = dict(settings, mode=mode, host=host, node=self.node.uuid,
                        database=self.db.url, options=self.options)
        taker = lock_taker.start(settings)
        self.addCleanup(taker.stop)
        return taker

    def expect_line(self, taker, expected):
        said = taker.hear()
        if said != expected:
            taker.stop()
            self.fail('Lock taker said %r, not %r' % (said, expected))

    def set_deploying(self):
        self.node.provision_state = 'deploying'
        self.node.target_provision_state = 'active'
        self.node.deploy_step = {'interface': 'deploy', 'step': 'deploy'}
        self.node.save()

    def take_when_free(self, host, since, limit):
        """Take the node's lock for ``host`` as soon as it can be taken
        (the work of the lock's dead holder is failed first); seconds
        from ``since`` to then."""
        while True:
            node = objects.Node.get(self.context, self.node.uuid)
            if not (self.freed_by_others and (
                    node.reservation or node.provision_state == 'deploying')):
                try:
                    with task_manager.acquire(self.context, self.node.uuid,
                                              host=host, retry=False):
                        return time.monotonic() - since
                except exception.NodeLocked:
                    pass
            if time.monotonic() - since > limit:
                self.fail('The lock of node %s (reservation %s) was not '
                          'free %ss after its holder died' % (
                              self.node.uuid, node.reservation, limit))
            time.sleep(0.05)

    #: Whether a live conductor frees a dead holder's lock (rather than
    #: the next taker, once the lock service let the lease go).
    freed_by_others = False

    def start_survivor(self):
        """What frees a dead holder's lock besides the next taker."""

    # --- the contract ---------------------------------------------------

    def test_a_second_taker_is_refused_naming_the_holder(self):
        with task_manager.acquire(self.context, self.node.uuid,
                                  host='conductor-a', retry=False):
            locked = self.assertRaises(
                exception.NodeLocked, task_manager.acquire, self.context,
                self.node.uuid, host='conductor-b', retry=False)
            self.assertIn('conductor-a', str(locked))
            # Addressed by database id, it is the same lock.
            self.assertRaises(
                exception.NodeLocked, task_manager.acquire, self.context,
                self.node.id, host='conductor-b', retry=False)
        with task_manager.acquire(self.context, self.node.id,
                                  host='conductor-b', retry=False) as task:
            self.assertEqual('conductor-b', task.node.reservation)

    def test_the_reservation_names_the_holder_until_it_lets_go(self):
        with task_manager.acquire(self.context, self.node.uuid,
                                  host='conductor-a', retry=False) as task:
            self.assertEqual('conductor-a', objects.Node.get(
                self.context, self.node.uuid).reservation)
            task.node.extra = {'seen': True}
            task.node.save()
            self.assertEqual('conductor-a', objects.Node.get(
                self.context, self.node.uuid).reservation)
        self.assertIsNone(objects.Node.get(self.context,
                                           self.node.uuid).reservation)

    def test_the_last_save_lets_the_next_taker_in_at_once(self):
        task = task_manager.acquire(self.context, self.node.uuid,
                                    host='conductor-a', retry=False)
        task.node.extra = {'done': True}
        task.save_and_release()
        with task_manager.acquire(self.context, self.node.uuid,
                                  host='conductor-b', retry=False) as task:
            self.assertEqual({'done': True}, task.node.extra)

    def test_a_killed_holder_s_lock_is_free_within_the_bound(self):
        self.set_deploying()
        self.start_survivor()
        holder = self.start_taker('hold', 'doomed')
        self.expect_line(holder, 'held')
        self.assertEqual('doomed', objects.Node.get(
            self.context, self.node.uuid).reservation)
        os.kill(holder.pid, signal.SIGKILL)
        holder.process.join()
        freed_after = self.take_when_free('survivor', time.monotonic(),
                                          self.bound + _SLACK)
        self.addDetail('freed after', content.text_content(
            '%.2f s (bound %s s)' % (freed_after, self.bound)))
        node = objects.Node.get(self.context, self.node.uuid)
        # Its flow is gone: failed where it stood, naming the dead holder.
        self.assertEqual('deploy failed', node.provision_state)
        self.assertIn('doomed', node.last_error)
        self.assertIn('deploy.deploy', node.last_error)
        self.assertIsNone(node.reservation)

    def test_a_paused_holder_cannot_write_once_its_lock_was_taken(self):
        self.set_deploying()
        self.start_survivor()
        holder = self.start_taker('hold', 'paused')
        self.expect_line(holder, 'held')
        os.kill(holder.pid, signal.SIGSTOP)
        try:
            self.take_when_free('survivor', time.monotonic(),
                                self.bound + _SLACK)
        finally:
            os.kill(holder.pid, signal.SIGCONT)
        holder.tell('write')
        self.expect_line(holder, 'lost')
        node = objects.Node.get(self.context, self.node.uuid)
        self.assertNotIn('written_by', node.extra or {})
        self.assertEqual('deploy failed', node.provision_state)

    def test_racing_takers_in_several_processes_run_the_step_once(self):
        record = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'runs')
        open(record, 'w').close()
        takers = [self.start_taker('race', 'process-%d' % number,
                                   racers=4, record=record)
                  for number in range(3)]
        for taker in takers:
            self.expect_line(taker, 'ready')
        threads = [threading.Thread(target=lock_taker.run_step, args=(
            self.context, self.node.uuid, 'thread-%d' % number, record))
            for number in range(4)]
        for taker in takers:
            taker.tell('go')
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for taker in takers:
            self.expect_line(taker, 'done')
        with open(record) as runs:
            runs = runs.read().split()
        self.assertEqual(1, len(runs), runs)
        node = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual(runs[0], node.extra['step_ran_by'])
        self.assertIsNone(node.reservation)


class _DatabaseLocks(LockContract):
    """The reservation column: a dead holder's lock is freed by a live
    conductor once its heartbeats stop."""

    freed_by_others = True
    # heartbeat_timeout + heartbeat_interval after the last heartbeat.
    bound = 3 + 1

    def lock_options(self):
        return {'conductor': {'lock_backend': 'database',
                              'heartbeat_interval': 1,
                              'heartbeat_timeout': 3}}

    def start_survivor(self):
        survivor = manager.ConductorManager(host='survivor')
        survivor.start(self.context)
        self.addCleanup(survivor.stop)


class DatabaseLocksOnSQLiteTest(_DatabaseLocks, base.TestCase):
    pass


class DatabaseLocksOnPostgreSQLTest(_DatabaseLocks, base.TestCase):
    database = base.PostgreSQLDatabase


class DatabaseLocksOnMariaDBTest(_DatabaseLocks, base.TestCase):
    database = base.MariaDBDatabase


class _ToozLocks(LockContract):
    """A lease in a lock service: a dead holder's lock is free once its
    lease runs out, whatever the conductors' heartbeats say."""

    lock_server = None
    # lock_backend_timeout after the holder's last renewal.
    bound = 2

    def lock_options(self):
        self.lock_server.require(self)
        url = self.lock_server.shared().url
        return {'conductor': {'lock_backend': 'tooz',
                              'lock_backend_url': url,
                              'lock_backend_timeout': 2,
                              # Far beyond the bound: only the lease can
                              # free the lock in time.
                              'heartbeat_timeout': 60}}


class ToozLocksOnRedisTest(_ToozLocks, base.TestCase):
    lock_server = lock_servers.RedisServer


class ToozLocksOnEtcdTest(_ToozLocks, base.TestCase):
    lock_server = lock_servers.EtcdServer


class ToozLocksOnRedisWithMariaDBTest(_ToozLocks, base.TestCase):
    """MariaDB takes a lock in two statements (no UPDATE ... RETURNING),
    a stale one included."""

    lock_server = lock_servers.RedisServer
    database = base.MariaDBDatabase
