"""Node locks: where a task's exclusive lock on a node is taken.

Whatever the backend, the node's ``reservation`` column names the holder
while it holds the lock: the API shows it, every write of a task is fenced
by it (``Node.save`` writes only while the column still names the task's
holder, else :class:`~ironic_steps.common.exception.NodeLockLost`), and
the conductors' recovery finds abandoned work by it.  The backends differ
in what makes the lock exclusive and in how a dead holder's lock is freed
(``[conductor] lock_backend``):

``database`` (:class:`DatabaseLocks`, the default)
    The column is the lock: a conditional UPDATE takes it from NULL.  A
    dead conductor's locks are freed by the live ones once its heartbeats
    stop (``heartbeat_timeout`` + ``heartbeat_interval``), and its flows
    failed where they stood.

``tooz`` (:class:`ToozLocks`)
    An exclusive lock in a lock service (Redis, etcd) is taken first, then
    the column is written; it is dropped in the reverse order.  The
    service's lock is a lease its holder renews every half of
    ``lock_backend_timeout``: a holder that dies, or loses the service,
    loses its locks within that bound, whatever the database says.  The
    next taker finds the column still naming the old holder, overwrites it
    (the old holder's writes are fenced from then on) and the task fails
    the flow the old holder was running, where it stood.  So the lock
    service says *who may hold* the node, the column *who does*.

A backend has four verbs: :meth:`take` a lock, say one was
:meth:`dropped` (the column is dropped by the task's last save, in the
same statement as its other writes), :meth:`free` the lock of a holder
with no running work, and :meth:`free_all` of a dead holder's.
"""

import threading
import time
import urllib.parse
import uuid as uuid_lib

from oslo_log import log
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.db import api as db_api
from ironic_steps import objects

LOG = log.getLogger(__name__)


class DatabaseLocks:
    """The ``reservation`` column alone is the lock."""

    def take(self, context, host, node_id):
        """Lock node ``node_id`` (database id or UUID) for ``host``.

        :returns: (the node, fresh from the database; the holder whose
            stale lock was overwritten, or None).
        :raises NodeLocked: naming the holder.
        :raises NodeNotFound:
        """
        return objects.Node.reserve(context, host, node_id), None

    def dropped(self, host, node):
        """``host``'s lock on ``node`` is no longer in the column (dropped,
        or taken over): let go of whatever else stands for it."""

    def free(self, host, row):
        """Drop ``host``'s lock on ``row`` (id, uuid), which no work of
        ``host`` holds; False if the lock could not be freed now."""
        return db_api.get_instance().release_node(host, row.id)

    def free_all(self, host):
        """Drop every lock of dead conductor ``host``.

        :returns: the UUIDs of the nodes freed.
        """
        return db_api.get_instance().release_all_reservations(host)

    def stop(self):
        """Let go of the backend (the process is stopping)."""


class ToozLocks(DatabaseLocks):
    """A tooz lock (its lease) first, then the ``reservation`` column."""

    def __init__(self, url, timeout):
        self._url = _with_lock_timeout(url, timeout)
        self._coordinator = None
        self._mutex = threading.Lock()
        # (host, node UUID) -> the tooz lock taken for it by this process.
        self._held = {}

    def _lock_for(self, node_uuid):
        from tooz import coordination
        with self._mutex:
            if self._coordinator is None:
                member = '%s-%s' % (CONF.host, uuid_lib.uuid4().hex[:12])
                coordinator = coordination.get_coordinator(
                    self._url, member.encode())
                try:
                    coordinator.start(start_heart=True)
                except Exception as exc:
                    # tooz's, or its client's own (etcd3gw's at start).
                    raise exception.LockServiceUnavailable(
                        reason=exc or type(exc).__name__) from exc
                _answer_at_once(coordinator)
                self._coordinator = coordinator
            return self._coordinator.get_lock(
                ('ironic-steps-node-%s' % node_uuid.lower()).encode())

    def _try(self, lock):
        try:
            return lock.acquire(blocking=False)
        except Exception as exc:
            raise exception.LockServiceUnavailable(
                reason=exc or type(exc).__name__) from exc

    def take(self, context, host, node_id):
        node_uuid = (node_id if uuidutils.is_uuid_like(node_id)
                     else objects.Node.get(context, node_id).uuid)
        lock = self._lock_for(node_uuid)
        self._take_or_name_holder(context, lock, node_uuid)
        stale = None
        try:
            try:
                node = objects.Node.reserve(context, host, node_uuid)
            except exception.NodeLocked as exc:
                # We hold the service's lock, so the column's holder has
                # lost it: it died, or its lease ran out.
                stale = exc.kwargs['host']
                if (host, node_uuid) in self._held:
                    # Our own running task, whose lease ran out (the lock
                    # service lost it): the same tag cannot fence it.
                    raise
                LOG.warning('Node %s: the lock of %s expired in the lock '
                            'service; %s takes it over', node_uuid, stale,
                            host)
                node = objects.Node.reserve(context, host, node_uuid,
                                            replacing=stale)
        except BaseException:
            _release(lock, node_uuid)
            raise
        with self._mutex:
            self._held[(host, node_uuid)] = lock
        return node, stale

    #: While the lock service's lock is held and the column is not (yet,
    #: or no more) written: how often, and how long apart, to look again.
    _HOLDER_LOOKS = 25
    _HOLDER_LOOK_INTERVAL = 0.02

    def _take_or_name_holder(self, context, lock, node_uuid):
        """Take ``lock``, or raise NodeLocked naming who holds it.

        Its holder writes the column one statement after taking the lock
        and drops it one statement before letting go: in between, look
        again for a moment rather than name nobody.
        """
        for _look in range(self._HOLDER_LOOKS):
            if self._try(lock):
                return
            holder = objects.Node.get(context, node_uuid).reservation
            if holder:
                raise exception.NodeLocked(node=node_uuid, host=holder)
            time.sleep(self._HOLDER_LOOK_INTERVAL)
        raise exception.NodeLocked(node=node_uuid,
                                   host='(unknown: not yet written)')

    def dropped(self, host, node):
        with self._mutex:
            lock = self._held.pop((host, node.uuid), None)
        if lock is not None:
            _release(lock, node.uuid)

    def free(self, host, row):
        with self._mutex:
            lock = self._held.pop((host, row.uuid), None)
        if lock is None:
            # Not ours (a dead conductor's, or this host's before a
            # restart): free only once its lease is gone.
            lock = self._lock_for(row.uuid)
            if not self._try(lock):
                return False
        try:
            return db_api.get_instance().release_node(host, row.id)
        finally:
            _release(lock, row.uuid)

    def free_all(self, host):
        rows = objects.Node.list_fields(None, ('uuid',),
                                        filters={'reservation': host})
        return [row.uuid for row in rows if self.free(host, row)]

    def stop(self):
        with self._mutex:
            coordinator, self._coordinator = self._coordinator, None
            self._held.clear()
        if coordinator is not None:
            try:
                coordinator.stop()
            except Exception as exc:
                LOG.warning('Could not leave the lock service: %s', exc)


def _release(lock, node_uuid):
    try:
        if not lock.release():
            LOG.warning('The lock service no longer held the lock of node '
                        '%s (its lease ran out)', node_uuid)
    except Exception as exc:
        # Its lease runs out by itself.
        LOG.warning('Could not release the lock of node %s in the lock '
                    'service: %s', node_uuid, exc)


def _answer_at_once(coordinator):
    """Make a Redis client fail at once when Redis is down.

    tooz's Redis driver tries a command 15 times; redis-py (6 and later)
    retries each 3 times with a backoff of up to 10 seconds: a lock taken
    while Redis is down would wait about a minute before failing.  Without
    redis-py's own retries, tooz's fail within milliseconds.
    """
    client = getattr(coordinator, '_client', None)
    if client is not None and hasattr(client, 'set_retry'):
        from redis import backoff
        from redis import retry
        client.set_retry(retry.Retry(backoff.NoBackoff(), 0))


def _with_lock_timeout(url, timeout):
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query)
    if not any(name == 'lock_timeout' for name, value in query):
        query.append(('lock_timeout', str(timeout)))
    return urllib.parse.urlunsplit(
        parts._replace(query=urllib.parse.urlencode(query)))


_backend = None
_backend_key = None
_backend_mutex = threading.Lock()


def backend():
    """This process's node lock backend, as configured."""
    global _backend, _backend_key
    conf = CONF.conductor
    key = (conf.lock_backend, conf.lock_backend_url,
           conf.lock_backend_timeout)
    with _backend_mutex:
        if key != _backend_key:
            if _backend is not None:
                _backend.stop()
            if conf.lock_backend == 'tooz':
                if not conf.lock_backend_url:
                    raise exception.IronicStepsException(
                        '[conductor] lock_backend_url is required when '
                        'lock_backend is tooz')
                _backend = ToozLocks(conf.lock_backend_url,
                                     conf.lock_backend_timeout)
            else:
                _backend = DatabaseLocks()
            _backend_key = key
        return _backend


def stop():
    """Let go of the lock service (a conductor stopping, a test ending)."""
    global _backend, _backend_key
    with _backend_mutex:
        if _backend is not None:
            _backend.stop()
        _backend = _backend_key = None
