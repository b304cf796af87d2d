"""A task: one unit of work on one node, under its lock.

Every conductor operation that changes a node does it inside a task::

    with task_manager.acquire(context, node_uuid, purpose='deploy') as task:
        task.process_event(states.EVENT_DEPLOY)   # validated move
        task.node.save()                          # one transaction
        task.hand_over(worker, deployments.do_node_deploy)

``acquire`` takes the node's exclusive reservation (a conditional UPDATE of
``nodes.reservation``, so two conductors or two threads can never both hold
it), loads the node and builds its driver.  Leaving the ``with`` block
releases the lock, unless the work was handed over to a worker thread with
:meth:`TaskManager.hand_over`: the worker then owns the lock and releases
it when the function returns, whatever happens, or earlier, with the last
write of the work (:meth:`TaskManager.save_and_release`).

``acquire(..., shared=True)`` takes no lock: for reading only.

Every lock a task takes or drops is also told to :data:`HELD`, so that a
conductor can tell a lock that stands for running work from one the
database still shows after its work ended without dropping it (the
database was lost at that moment): see :meth:`HeldLocks.abandoned`.
"""

import collections
import contextlib
import threading
import time

from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import excutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.common import outage
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.conductor import locks
from ironic_steps.conf import CONF
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

LOG = log.getLogger(__name__)


class HeldLocks:
    """The node locks this process's tasks hold, by holder (host).

    A lock is counted from just before its conditional UPDATE is sent
    until just after it is dropped, so a lock the database shows for a
    holder and that is not counted here belongs to no running work.
    """

    def __init__(self):
        self._mutex = threading.Lock()
        self._held = collections.Counter()    # (host, id or uuid) -> count
        self._lost = {}                       # (host, node id) -> reason

    def _change(self, host, keys, by):
        with self._mutex:
            for key in keys:
                self._held[(host, key)] += by
                if self._held[(host, key)] <= 0:
                    del self._held[(host, key)]

    @contextlib.contextmanager
    def taking(self, host, key):
        """Around the UPDATE that takes the lock by ``key`` (id or UUID);
        once it is taken, :meth:`taken` counts it by id and UUID."""
        self._change(host, [key], +1)
        try:
            yield
        finally:
            self._change(host, [key], -1)

    def taken(self, host, node):
        self._change(host, [node.id, node.uuid], +1)

    def dropped(self, host, node):
        self._change(host, [node.id, node.uuid], -1)

    def holding(self, host):
        """How many locks ``host``'s tasks hold or are taking."""
        with self._mutex:
            return sum(count for (holder, key), count in self._held.items()
                       if holder == host and isinstance(key, int))

    def lost(self, host, node, reason):
        """The lock on ``node`` could not be dropped, for ``reason``; no
        work holds it any more."""
        with self._mutex:
            self._lost[(host, node.id)] = reason
        self.dropped(host, node)

    @contextlib.contextmanager
    def abandoned(self, host, rows):
        """Of ``rows`` (id, uuid) the database shows locked by ``host``,
        those no task of this process holds, each with why its work ended
        (None if unknown).  Nothing can take a lock meanwhile, so the
        caller may drop theirs safely inside the block."""
        with self._mutex:
            yield [(row, self._lost.pop((host, row.id), None))
                   for row in rows
                   if (host, row.id) not in self._held
                   and (host, row.uuid) not in self._held]


#: The locks held by this process's tasks.
HELD = HeldLocks()


def step_suffix(node):
    """' (step INTERFACE.STEP)' for a node amid a step, else ''."""
    step = node.deploy_step or node.clean_step
    if not step:
        return ''
    return ' (step %s.%s)' % (step.get('interface'), step.get('step'))


def _reserve(context, host, node_id, retry):
    """(the node, locked for ``host``; the stale holder it was taken from
    or None)."""
    attempts = CONF.conductor.node_locked_retry_attempts if retry else 1
    for attempt in range(1, attempts + 1):
        try:
            with HELD.taking(host, node_id):
                node, stale = locks.backend().take(context, host, node_id)
                HELD.taken(host, node)
                return node, stale
        except exception.NodeLocked:
            if attempt == attempts:
                raise
            time.sleep(CONF.conductor.node_locked_retry_interval)


class TaskManager:

    def __init__(self, context, node_id, shared=False, purpose='unspecified',
                 retry=True, host=None):
        self.context = context
        self.host = host or CONF.host
        self.purpose = purpose
        self.shared = shared
        self._handed_over = None
        self._after_release = []
        stale = None
        if shared:
            self.node = objects.Node.get(context, node_id)
        else:
            self.node, stale = _reserve(context, self.host,
                                        self._node_key(node_id), retry)
        try:
            self.driver = driver_factory.build_driver_for_task(self.node)
            if stale is not None:
                self._stop_work_of(stale)
        except Exception:
            with excutils.save_and_reraise_exception():
                self.release_resources()

    @property
    def ports(self):
        """The node's ports, as read-only rows, read once per task (an
        agent is told them with each step)."""
        if not hasattr(self, '_ports'):
            self._ports = objects.Port.list_rows(
                self.context, filters={'node_uuid': self.node.uuid})
        return self._ports

    # The node's cached BIOS settings, handed to its BIOS interface (see
    # ironic_steps.drivers.bios, which drivers call): drivers do not
    # import objects.

    def cached_bios_settings(self):
        """The node's cached BIOS settings, ``{name: value}``."""
        return {setting.name: setting.value for setting in
                objects.BIOSSetting.list_by_node(self.context,
                                                 self.node.id)}

    def replace_bios_settings(self, settings):
        """Make ``settings`` (a settings map) the node's cached BIOS
        settings, in one transaction, written at once.

        :raises NotInPinnedRelease: while pinned to a release without
            the cache.
        """
        objects.BIOSSetting.replace_all(self.context, self.node.id, settings)

    def sync_firmware_components(self, readings):
        """Merge ``readings`` into the node's firmware component cache
        (see :mod:`ironic_steps.drivers.firmware`), written at once.

        :raises NotInPinnedRelease: while pinned to a release without
            the cache.
        """
        objects.FirmwareComponent.sync(self.context, self.node.id, readings)

    def _stop_work_of(self, stale):
        """The lock was taken from ``stale``, whose lease in the lock
        service ran out: the flow it was running is gone (or will be
        fenced at its next write); fail it where it stood."""
        state = self.node.provision_state
        if state not in states.WORKING_STATES:
            return
        self.node.last_error = (
            'Conductor %s lost its lock on the node (its lease in the lock '
            'service ran out) while the node was %s%s; the operation was '
            'stopped' % (stale, state, step_suffix(self.node)))
        self.process_event(states.EVENT_FAIL)
        self.node.save()
        LOG.warning('Node %s: %s', self.node.uuid, self.node.last_error)

    @staticmethod
    def _node_key(node_id):
        # Reservations are taken by database id or UUID; a name is resolved.
        if isinstance(node_id, int) or uuidutils.is_uuid_like(node_id):
            return node_id
        return objects.Node.get(None, node_id).id

    def process_event(self, event, target=None):
        """Move the node's provision state by ``event`` (in memory).

        The caller saves the node; the move is checked against the state
        machine first.
        :param target: where the flow this event starts is heading, when
            that is not the state machine's usual target (manual cleaning
            heads back to ``manageable``).
        :raises InvalidStateRequested: naming the state and the event.
        """
        if self.shared:
            raise exception.IronicStepsException(
                'Changing the state of node %s needs an exclusive lock '
                '(task for %s)' % (self.node.uuid, self.purpose))
        node = self.node
        new_state = state_machine.next_state(node.provision_state, event,
                                             node=node.uuid)
        node.target_provision_state = target or state_machine.target_after(
            node.provision_state, node.target_provision_state, new_state)
        node.provision_state = new_state
        self.node.provision_updated_at = timeutils.utcnow()

    def start_work(self, event, reservation, fn, target=None):
        """Begin a long operation: move by ``event``, clear the last error,
        save (one transaction, with any other field set before), then run
        ``fn(task)`` on the reserved worker after the block."""
        self.process_event(event, target=target)
        self.node.last_error = None
        self.node.save()
        self.hand_over(reservation, fn)

    def hand_over(self, reservation, fn, *args):
        """Run ``fn(task, *args)`` on a reserved worker after the block.

        The worker inherits the node lock and releases it when ``fn``
        returns or raises.
        """
        if self.shared:
            raise exception.IronicStepsException(
                'Only an exclusive task can hand work over')
        self._handed_over = (reservation, fn, args)

    def call_after_release(self, fn, *args):
        """Call ``fn(*args)`` once this task has dropped the node's lock.

        For telling something outside the task that the node is free to
        act on (the fake agent heartbeats a parked node): told earlier, it
        would find the node still locked and have to look again.  Errors
        are logged, not raised: the task's own work is done by then.
        """
        self._after_release.append((fn, args))

    def _call_after_release(self):
        calls, self._after_release = self._after_release, []
        for fn, args in calls:
            try:
                fn(*args)
            except Exception:
                LOG.exception('After releasing node %s (%s): %s failed',
                              self.node.uuid, self.purpose, fn)

    def _run_handed_over(self, fn, args):
        # The worker's log lines carry the id of the request that started
        # the work.
        self.context.update_store()
        try:
            fn(self, *args)
        except exception.NodeLockLost as exc:
            # Its conductor was taken for dead and the node taken over:
            # what the new holder does stands.
            LOG.warning('%s of node %s stopped: %s', self.purpose,
                        self.node.uuid, exc)
            if not self.shared:
                self._lock_gone()
        except db_exc.DBConnectionError as exc:
            # Not a bug, and the same for every node at work: no traceback.
            # The flow stopped where its record cannot show it: keep the
            # lock, so that nothing starts on a node in a working state,
            # and leave it to HeldLocks.abandoned, which fails the flow
            # once the database answers.
            reason = outage.gist(exc)
            LOG.error('%s of node %s stopped: the database was lost: %s',
                      self.purpose, self.node.uuid, reason)
            if not self.shared:
                self.shared = True
                HELD.lost(self.host, self.node, reason)
        except Exception:
            # Flows handle their own failures; this is the last resort so
            # that a bug never leaves a node locked without a trace.
            LOG.exception('Unexpected error in %s of node %s',
                          self.purpose, self.node.uuid)
        finally:
            try:
                self.release_resources()
            except db_exc.DBError:
                pass   # logged, and left to HeldLocks.abandoned

    def save_and_release(self):
        """Save the node and drop the lock, in one statement.

        For the last write of a task whose work ended or is parked: the
        lock needs no transaction of its own.  Afterwards the task is
        shared, so nothing can change the node by mistake.
        """
        if self.shared:
            # Saving without the lock could overwrite whoever holds it now.
            raise exception.IronicStepsException(
                'Task for %s on node %s holds no lock to save with' % (
                    self.purpose, self.node.uuid))
        with self._dropping_lock():
            if not self.node.save(release=self.host):
                LOG.warning('Node %s was not locked by %s when %s ended',
                            self.node.uuid, self.host, self.purpose)
        self._call_after_release()

    @contextlib.contextmanager
    def _dropping_lock(self):
        """Around the statement that drops the lock: whatever happens, the
        task holds it no more; if the database could not be told, the lock
        is left to :meth:`HeldLocks.abandoned`."""
        try:
            yield
        except exception.NodeLockLost:
            # Taken over: there is no lock of ours left to drop.
            self._lock_gone()
            raise
        except db_exc.DBError as exc:
            self.shared = True
            HELD.lost(self.host, self.node, outage.gist(exc))
            LOG.error('Node %s: could not drop the lock of %s for %s: %s; '
                      'it will be freed once the database answers',
                      self.node.uuid, self.host, self.purpose, exc)
            raise
        self._lock_gone()

    def _lock_gone(self):
        """The column no longer shows this task's lock: nor does anything
        else."""
        self.shared = True
        HELD.dropped(self.host, self.node)
        locks.backend().dropped(self.host, self.node)

    def destroy_node(self):
        """Delete the node; its lock goes with its row, nothing to release."""
        if self.shared:
            raise exception.IronicStepsException(
                'Deleting node %s needs an exclusive lock' % self.node.uuid)
        with self._dropping_lock():
            self.node.destroy()

    def release_resources(self):
        if not self.shared:
            with self._dropping_lock():
                if not objects.Node.release(self.context, self.host,
                                            self.node.id):
                    LOG.warning('Node %s was not locked by %s when %s ended',
                                self.node.uuid, self.host, self.purpose)
        self._call_after_release()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is None and self._handed_over is not None:
            reservation, fn, args = self._handed_over
            try:
                reservation.submit(self._run_handed_over, fn, args)
                return
            except Exception:
                # No worker will ever release the lock: do it here.
                with excutils.save_and_reraise_exception():
                    self.release_resources()
        self.release_resources()


def acquire(context, node_id, shared=False, purpose='unspecified action',
            retry=True, host=None):
    """Take a task on ``node_id`` (id, UUID or name); see the module doc.

    :param host: the lock's tag, the conductor's name (default
        ``[DEFAULT] host``).

    :raises NodeLocked: if another task holds the node (after retries).
    :raises NodeNotFound:
    """
    return TaskManager(context, node_id, shared=shared, purpose=purpose,
                       retry=retry, host=host)
