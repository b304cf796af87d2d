"""Steps that wait for out-of-band work, checked by the conductor.

A step that starts work on a BMC (a BIOS change applied at the next reboot,
a volume being built, a firmware update task) has no agent to call back.
It asks to be polled (:func:`ironic_steps.drivers.base.poll_step`): its
node waits in the flow's wait state, its ``driver_internal_info`` naming
the interface method that checks the work, the method's arguments, when the
wait began and how long it may last.  This module is the one place that
polls, for every flow and every driver:

* each waiting step is checked once every ``[conductor]
  step_poll_interval`` seconds, the first time that long after it began
  to wait, by the conductor that owns its node on the hash ring; the
  conductor looks for due checks several times per interval
  (:func:`look_spacing`), so a check is late by a fraction of the
  interval at most, and a thousand waiting nodes cost a thousand checks
  per interval, not a thousand looks;
* at most ``[conductor] step_poll_batch_size`` checks run at once, each on
  a worker under the node's lock; due nodes beyond it are taken in turn
  from where the last look stopped, so every node gets its turn however
  many wait; a node whose check still runs, or that someone else holds, is
  skipped until a later look, so checks never overlap and a slow BMC never
  holds up another node or the API;
* the check says done (the flow goes on with the next step, in the same
  worker), not yet (a changed status text is saved, to be named should
  time run out, with whatever else the check changed on the node, such as
  the arguments of its next stage), or raises (the step fails with its
  message, unless the exception is ``transient``, as
  :class:`~ironic_steps.common.exception.BMCUnavailable` is: a BMC that
  restarts during its own firmware update is asked again next interval);
  a step still waiting after its timeout fails without asking again.

A heartbeat never resumes a polled step, and the agent call-back timeout
does not apply to one: its own timeout does, and so does the step's
timeout when it has one (:func:`step_runner.overdue`), checked first.
"""

import threading
import time

from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import flows
from ironic_steps.conductor import reserved_steps
from ironic_steps.conductor import step_history
from ironic_steps.conductor import step_runner
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps import objects

LOG = log.getLogger(__name__)

_COLUMNS = ('uuid', 'driver', 'provision_state', 'driver_internal_info',
            'reservation')
#: Looks per ``step_poll_interval``: how late a due check may start, as a
#: fraction of the interval, against how often the waiting rows are read.
_LOOKS_PER_INTERVAL = 5


def look_spacing():
    """Seconds between two looks of the poller (the periodic's spacing)."""
    return CONF.conductor.step_poll_interval / _LOOKS_PER_INTERVAL


def is_polled(node):
    """Whether ``node`` (a Node or a row) waits for a polled step."""
    return base.POLLING_KEY in (node.driver_internal_info or {})


def _interval(polling):
    """Seconds from a poll's start to its first check (a reserved wait
    says its own), and between checks."""
    return polling.get('interval') or CONF.conductor.step_poll_interval


def _timeout(polling):
    return polling.get('timeout') or CONF.conductor.step_poll_timeout


def _elapsed(polling):
    started = timeutils.parse_isotime(polling['started_at'])
    return (timeutils.utcnow(with_timezone=True) - started).total_seconds()


class StepPoller:
    """Checks the polled steps of the nodes one conductor owns.

    :param acquire: ``acquire(context, node_uuid, **kwargs)``, the
        conductor's task factory (its locks carry the conductor's name).
    :param reserve_worker: claims a worker or raises NoFreeConductorWorker.
    :param owns: ``owns(node_uuid, driver)``, whether the node is this
        conductor's.
    :param clock: monotonic seconds; tests and benchmarks move it by hand.
    """

    def __init__(self, acquire, reserve_worker, owns, clock=time.monotonic):
        self._acquire = acquire
        self._reserve_worker = reserve_worker
        self._owns = owns
        self.clock = clock
        self._lock = threading.Lock()
        self._running = set()
        self._after_id = 0
        # node uuid -> (the poll's started_at, clock time its check is due):
        # a new poll of the same node (its next polled step) starts afresh.
        self._due = {}

    def _waiting(self, context):
        """Waiting rows with a polled step, locked or not, by id."""
        rows = []
        for state in flows.BY_WAIT_STATE:
            rows.extend(objects.Node.list_fields(
                context, _COLUMNS, filters={'provision_state': state}))
        return sorted((row for row in rows if is_polled(row)),
                      key=lambda row: row.id)

    def _is_due(self, row, now):
        """Whether the check of ``row`` is due (under ``self._lock``)."""
        polling = row.driver_internal_info[base.POLLING_KEY]
        started_at, due = self._due.get(row.uuid, (None, None))
        if started_at != polling['started_at']:
            # First seen (this poll, or by this conductor, as after a
            # takeover): due one interval after the step began to wait.
            wait = _interval(polling) - _elapsed(polling)
            due = now + max(0.0, wait)
            self._due[row.uuid] = (polling['started_at'], due)
        return due <= now

    def _next_turn(self, rows, room):
        """Up to ``room`` due rows, in turn after the last one checked."""
        now = self.clock()
        waiting = {row.uuid for row in rows}
        rows = ([row for row in rows if row.id > self._after_id]
                + [row for row in rows if row.id <= self._after_id])
        chosen = []
        with self._lock:
            for uuid in [uuid for uuid in self._due if uuid not in waiting]:
                del self._due[uuid]   # moved on: forget it
            for row in rows:
                if len(chosen) >= room:
                    break
                if (row.reservation is None
                        and row.uuid not in self._running
                        and self._owns(row.uuid, row.driver)
                        and self._is_due(row, now)):
                    chosen.append(row)
        if chosen:
            self._after_id = chosen[-1].id
        return chosen

    def run(self, context):
        """One look (the periodic task): start the checks that are due."""
        with self._lock:
            room = CONF.conductor.step_poll_batch_size - len(self._running)
        if room <= 0:
            return
        for row in self._next_turn(self._waiting(context), room):
            try:
                self._start_check(context, row.uuid)
            except exception.NoFreeConductorWorker:
                LOG.debug('No free worker to poll node %s; next time',
                          row.uuid)
                return

    def _start_check(self, context, node_uuid):
        with self._reserve_worker() as worker:
            try:
                task = self._acquire(context, node_uuid, retry=False,
                                     purpose='step poll')
            except (exception.NodeLocked, exception.NodeNotFound):
                return   # busy or gone: its turn comes again
            with task:
                with self._lock:
                    self._running.add(node_uuid)
                try:
                    task.hand_over(worker, self._check)
                except Exception:
                    with self._lock:
                        self._running.discard(node_uuid)
                    raise

    def _check(self, task):
        """Worker: ask the step's check and act on the answer."""
        uuid = task.node.uuid
        try:
            check_polled_step(task)
        finally:
            with self._lock:
                self._running.discard(uuid)
                if uuid in self._due:
                    # The interval runs from the end of this check, so a
                    # slow BMC is not asked again the moment it answers.
                    started_at, _due = self._due[uuid]
                    self._due[uuid] = (
                        started_at,
                        self.clock() + CONF.conductor.step_poll_interval)

    def running(self):
        """How many checks run now (for tests and logs)."""
        with self._lock:
            return len(self._running)


def check_polled_step(task):
    """Check the polled step of ``task.node`` (locked) once.

    :returns: the flow's :class:`step_runner.Outcome` when the step ended
        (done and the flow went on, or failed), None while it goes on or
        if the node no longer waits for a poll.
    """
    node = task.node
    waiting = flows.BY_WAIT_STATE.get(node.provision_state)
    polling = (node.driver_internal_info or {}).get(base.POLLING_KEY)
    if waiting is None or not polling:
        return None   # it moved on between the look and the lock
    flow = waiting.flow
    step = getattr(node, flow.step_field) or {}
    label = '%s.%s' % (step.get('interface', polling['interface']),
                       step.get('step', '?'))
    overdue = step_runner.overdue(node, flow)
    if overdue:
        # The step's own limit (x-steps), counted from when it started.
        return step_runner.fail(task, flow, overdue)
    timeout = _timeout(polling)
    if _elapsed(polling) > timeout:
        return step_runner.fail(
            task, flow,
            '%s step %s timed out after %s seconds waiting for out-of-band '
            'work; last status: %s' % (flow.title, label, timeout,
                                       polling.get('status') or 'none'),
            outcome=step_history.TIMEOUT)
    try:
        result = reserved_steps.check_of(task, polling)(
            task, **(polling.get('args') or {}))
    except Exception as exc:
        if getattr(exc, 'transient', False):
            # The hardware could not answer this time (a BMC restarting
            # during its own firmware update): ask again next interval;
            # the step's timeout bounds how long.
            LOG.warning('%s step %s of node %s: check failed, trying again '
                        'in %s seconds: %s', flow.title, label, node.uuid,
                        CONF.conductor.step_poll_interval, exc)
            result = 'check failed, to be tried again: %s' % exc
        else:
            return _check_failed(task, flow, label, exc)
    if result is base.DONE:
        LOG.info('%s step %s of node %s is done (polled)', flow.title,
                 label, node.uuid)
        step_runner.stop_waiting(node)
        task.process_event(states.EVENT_RESUME)
        return waiting.run_rest(task)
    status = None if result is None else str(result)[:255]
    # The check may have moved its work on (drivers.base.update_poll).
    current = node.driver_internal_info[base.POLLING_KEY]
    if status != current.get('status'):
        node.driver_internal_info = {
            **node.driver_internal_info,
            base.POLLING_KEY: {**current, 'status': status}}
    if node.obj_what_changed():
        node.save()
    return None


def _check_failed(task, flow, label, exc):
    LOG.warning('%s step %s of node %s failed while polled: %s',
                flow.title, label, task.node.uuid, exc,
                exc_info=not isinstance(exc, exception.IronicStepsException))
    return step_runner.fail(task, flow, '%s step %s failed: %s' % (
        flow.title, label, step_runner.reason(exc)))
