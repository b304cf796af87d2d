"""What a running step may do besides returning: wait, and say how far.

A step that cannot finish in one call either waits for the node's agent
(:func:`wait_for_agent`: its heartbeats finish the step) or for the
conductor to poll its work (:func:`poll_step`, :func:`update_poll`); any
step may report its progress (:func:`report_progress`).  These read and
write the node's ``driver_internal_info`` only; the conductor acts on what
they record.  Driver authors reach them as ``base.poll_step`` and so on.
"""

import json

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF


#: Where a step that waits to be polled is described, in the node's
#: ``driver_internal_info`` (see :func:`poll_step`).
POLLING_KEY = 'step_polling'
#: Where a deploy interface keeps the agent command a waiting in-band step
#: runs, in ``driver_internal_info``; forgotten when the step stops waiting.
AGENT_COMMAND_KEY = 'agent_command'
#: The result of a poll check whose work is finished, or of an agent's
#: heartbeat that says its step is done (:meth:`DeployInterface.heartbeat`).
DONE = True


def wait_for_agent(task):
    """From a running step: the node's agent finishes it and heartbeats.

    The step returns what this returns; the node waits for its agent's
    heartbeat (``wait call-back`` / ``clean wait``), and the deploy
    interface's :meth:`DeployInterface.heartbeat` says whether the step
    is done.

    :returns: the wait state of the running flow.
    :raises InvalidStep: when not called from a running step.
    """
    return running_flow(task, 'wait_for_agent').wait_state


def running_flow(task, caller):
    """The flow (:class:`~ironic_steps.common.step_kinds.Flow`) whose step
    runs on ``task.node``: its kind, its wait state, where its progress is
    kept.

    :param caller: what needs to know, named in the error.
    :raises InvalidStep: when no step runs on the node.
    """
    node = task.node
    flow = step_kinds.running_in(node.provision_state)
    if flow is None:
        *others, last = step_kinds.FLOWS
        raise exception.InvalidStep(
            reason='%s called on node %s in state %s, not from a running '
                   '%s or %s step' % (caller, node.uuid, node.provision_state,
                                      ', '.join(others), last))
    return flow


def running_step_index(task, caller):
    """``(kind, index)`` of the step running on ``task.node`` (see
    :func:`running_flow`)."""
    flow = running_flow(task, caller)
    return flow.kind, (task.node.driver_internal_info or {}).get(
        flow.index_key)


def poll_step(task, check, timeout=None, **kwargs):
    """Finish the running step later, when ``check`` says it is done.

    For a step that starts work outside the node's lock and has no agent
    to call back: a BIOS change applied at the next reboot, a volume a BMC
    builds, a firmware update task.  The step returns what this returns;
    the node waits, and the conductor that owns it calls
    ``check(task, **kwargs)`` once every ``[conductor] step_poll_interval``
    seconds (the first time that long after this call), under the node's
    lock, until it returns :data:`DONE`; then
    the flow goes on with the next step.  ``check`` returns None, or a
    short status text (kept, and named should time run out), while the
    work goes on, and raises to fail the step with its message; an
    exception with a true ``transient`` attribute (such as
    :class:`~ironic_steps.common.exception.BMCUnavailable`) is kept as the
    status instead, and the check is asked again next interval.

    :param check: a method of one of the node's interfaces (stored by
        name, so a conductor restart or takeover goes on polling).
    :param timeout: seconds the work may take before the step fails; None
        for ``[conductor] step_poll_timeout``.
    :param kwargs: JSON-serialisable arguments of ``check``.
    :returns: the wait state of the running flow.
    :raises InvalidStep: when not called from a running step, or ``check``
        is not a method of the node's interfaces.
    """
    node = task.node
    wait_state = running_flow(
        task, 'poll_step(%s)' % getattr(check, '__name__', check)).wait_state
    owner = getattr(check, '__self__', None)
    interface_type = getattr(owner, 'interface_type', None)
    if (interface_type is None
            or getattr(task.driver, interface_type, None) is not owner):
        raise exception.InvalidStep(
            reason='poll_step needs a method of one of node %s\'s '
                   'interfaces, got %r' % (node.uuid, check))
    if timeout is not None and (not isinstance(timeout, (int, float))
                                or isinstance(timeout, bool)
                                or timeout <= 0):
        raise exception.InvalidStep(
            reason='poll_step timeout must be a positive number of '
                   'seconds, got %r' % (timeout,))
    try:
        json.dumps(kwargs)
    except (TypeError, ValueError) as exc:
        raise exception.InvalidStep(
            reason='poll_step arguments of %s.%s must be JSON: %s' % (
                interface_type, check.__name__, exc)) from None
    node.driver_internal_info = {
        **(node.driver_internal_info or {}),
        POLLING_KEY: {'interface': interface_type, 'method': check.__name__,
                      'args': kwargs, 'timeout': timeout,
                      'started_at': timeutils.utcnow().isoformat(),
                      'status': None}}
    return wait_state


def update_poll(task, **kwargs):
    """From a poll check: the arguments the next check gets.

    For work in stages (one BMC task after another): the check starts the
    next stage and records what the next check must look at.  The step's
    start and timeout stay as they were.
    :raises InvalidStep: when the node's step is not polled.
    """
    polling = (task.node.driver_internal_info or {}).get(POLLING_KEY)
    if not polling:
        raise exception.InvalidStep(
            reason='update_poll on node %s, whose step is not polled'
                   % task.node.uuid)
    try:
        json.dumps(kwargs)
    except (TypeError, ValueError) as exc:
        raise exception.InvalidStep(
            reason='poll arguments of %s.%s must be JSON: %s' % (
                polling['interface'], polling['method'], exc)) from None
    task.node.driver_internal_info = {
        **task.node.driver_internal_info,
        POLLING_KEY: {**polling, 'args': kwargs}}


#: Where the progress of the running flow is shown, in the node's
#: ``driver_internal_info`` (see :mod:`ironic_steps.conductor.step_history`).
PROGRESS_KEY = 'step_progress'
#: The longest progress message kept.
MAX_PROGRESS_MESSAGE = 255


def report_progress(task, percent=None, message=None):
    """From a running step (or its poll check): how far it has got.

    Anyone watching the node sees ``percent`` and ``message`` in the
    ``step_progress`` of its ``driver_internal_info``.  Optional: a step
    that never calls it shows only its number and start.  Call it as
    often as is convenient: the node is saved (with whatever else the
    step changed on it so far) at most once per ``[conductor]
    step_progress_interval`` seconds per step; a report in between is
    kept on the node and saved with its next save (the next report past
    the interval, a poll check's, the step's end).

    :param percent: None, or a number from 0 to 100.
    :param message: None, or a short text (cut at 255 characters).
    :returns: whether the node was saved.
    :raises InvalidStep: for a percent out of range or not a number.
    """
    if percent is not None and (not isinstance(percent, (int, float))
                                or isinstance(percent, bool)
                                or not 0 <= percent <= 100):
        raise exception.InvalidStep(
            reason='report_progress percent must be a number from 0 to '
                   '100, got %r' % (percent,))
    node = task.node
    current = (node.driver_internal_info or {}).get(PROGRESS_KEY)
    if (not current or not current.get('started_at')
            or current.get('outcome')):
        return False   # pinned to a release without progress, or no step
    now = timeutils.utcnow()
    node.driver_internal_info = {
        **node.driver_internal_info,
        PROGRESS_KEY: {**current, 'percent': percent,
                       'message': None if message is None
                       else str(message)[:MAX_PROGRESS_MESSAGE],
                       'updated_at': now.isoformat()}}
    # Per task: a step runs in one; each poll check gets its own.
    saved_at = getattr(task, '_progress_saved_at', None)
    if (saved_at is not None and (now - saved_at).total_seconds()
            < CONF.conductor.step_progress_interval):
        return False
    node.save()
    task._progress_saved_at = now
    return True
