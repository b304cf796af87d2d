"""Run a plan of steps on a node, one at a time, recording progress.

The runner is the same for every kind of step; a flow
(:class:`ironic_steps.common.step_kinds.Flow`) names what differs (node
field, bookkeeping keys, wait state).  Each step goes through
three small pieces:

1. :func:`_record_current` saves ``node.<kind>_step`` and
   ``driver_internal_info['<kind>_step_index']`` *before* the step runs
   (one transaction), so a crash always shows which step was running;
   the step's progress (number, start) rides on the same save;
2. the interface executes the step;
3. :func:`_interpret` turns what happened into one :class:`Outcome`;
   a step that ended goes into the node's step history (one INSERT, in
   the transaction of the node's next save: see :mod:`step_history`).

Then the node waits (``wait call-back`` / ``clean wait``), fails, or the
next step runs.  When the plan is exhausted the flow finishes: the current
step is cleared and the bookkeeping removed, in one transaction.  Waiting,
failing and finishing are a task's last write, so they drop the node's lock
in the same statement.

A step with a timeout (the ``x-steps`` extension: declared in its
decorator, or asked for) gets a deadline in ``driver_internal_info``
(:data:`DEADLINE_KEY`), written with its record.  A running step cannot
be interrupted (Python cannot stop a thread), so the deadline is checked
whenever the step hands control back: a step that returns after it fails,
done or not; a waiting step fails when its call-back or poll comes after
it, or when the conductor's periodic check finds it passed
(:func:`overdue`).  ``last_error`` names the step and its limit.
"""

import datetime
import enum
import functools

from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.conductor import agent_steps
from ironic_steps.conductor import agent_token
from ironic_steps.conductor import reserved_steps
from ironic_steps.conductor import step_history
from ironic_steps.conductor import steps as steps_mod
from ironic_steps.drivers import base

LOG = log.getLogger(__name__)


class Outcome(enum.Enum):
    DONE = 'done'
    WAIT = 'wait'
    FAILED = 'failed'
    #: A ``hold`` step parked the flow until an operator's unhold.
    HOLD = 'hold'


def clear_progress(node, flow):
    """Forget the flow's plan, index, current step, and the agent's token
    and URL (saved with the node's next save)."""
    info = dict(node.driver_internal_info or {})
    info.pop(flow.steps_key, None)
    info.pop(flow.index_key, None)
    info.pop(agent_token.TOKEN_KEY, None)
    info.pop(agent_token.URL_KEY, None)
    info.pop(base.POLLING_KEY, None)
    info.pop(DEADLINE_KEY, None)
    info.pop(base.PROGRESS_KEY, None)
    info.pop(agent_steps.REFRESHED_KEY, None)
    info.pop(base.AGENT_COMMAND_KEY, None)
    info.pop(flow.requested_key, None)
    if flow.disable_ramdisk_key:
        info.pop(flow.disable_ramdisk_key, None)
    node.driver_internal_info = info
    setattr(node, flow.step_field, {})


def stop_waiting(node):
    """Forget what a waiting step waited for: its agent's token, its poll
    and its agent command (saved with the node's next save), so none of
    them resumes it."""
    agent_token.forget(node)
    info = node.driver_internal_info or {}
    if any(key in info for key in _WAITED_FOR):
        node.driver_internal_info = {k: v for k, v in info.items()
                                     if k not in _WAITED_FOR}


def store_plan(task, flow, plan):
    """Put ``plan`` in the node's bookkeeping (saved with the next step)."""
    info = dict(task.node.driver_internal_info or {})
    info[flow.steps_key] = [step.to_dict() for step in plan]
    info[flow.index_key] = None
    task.node.driver_internal_info = info
    step_history.start_flow(task.node, flow, len(plan))


def keep_requested(node, flow, requested_steps):
    """Keep the caller's steps while the flow runs (see
    :attr:`step_kinds.Flow.requested_key`); saved with the node's next save."""
    node.driver_internal_info = {**(node.driver_internal_info or {}),
                                 flow.requested_key: requested_steps}


def replace_plan(node, flow, plan, index):
    """Put ``plan`` in place of the stored one, its step ``index`` the
    running one (the agent's steps became known while it waited)."""
    node.driver_internal_info = {
        **(node.driver_internal_info or {}),
        flow.steps_key: [step.to_dict() for step in plan],
        flow.index_key: index}


def load_plan(node, flow):
    info = node.driver_internal_info or {}
    return [steps_mod.Step.from_dict(step)
            for step in info.get(flow.steps_key) or ()]


def has_plan(node, flow):
    return bool((node.driver_internal_info or {}).get(flow.steps_key))


def current_index(node, flow):
    return (node.driver_internal_info or {}).get(flow.index_key)


#: Where the running step's time limit is kept, when it has one:
#: ``{'step': 'interface.step', 'timeout': seconds, 'started_at': ISO,
#: 'deadline': ISO}`` (UTC).
DEADLINE_KEY = 'step_deadline'


#: What a waiting step waits for, besides its agent's token: its poll,
#: its deadline, the agent's command it runs.
_WAITED_FOR = (base.POLLING_KEY, DEADLINE_KEY, base.AGENT_COMMAND_KEY)


def _record_current(task, flow, index, step):
    _mark_current(task, flow, index, step)
    task.node.save()


def _mark_current(task, flow, index, step):
    info = dict(task.node.driver_internal_info or {})
    info[flow.index_key] = index
    info.pop(DEADLINE_KEY, None)
    if step.timeout is not None:
        started = timeutils.utcnow()
        info[DEADLINE_KEY] = {
            'step': step.label, 'timeout': step.timeout,
            'started_at': started.isoformat(),
            'deadline': (started + datetime.timedelta(
                seconds=step.timeout)).isoformat()}
    step_history.start_step(info, index, step)
    task.node.driver_internal_info = info
    setattr(task.node, flow.step_field, step.public_dict())


def mark_first_step(task, flow, plan):
    """Set ``plan``'s first step (the plan just stored) as the running
    one, unsaved: the save that starts the flow then records it, and the
    worker's ``run(task, flow, first_marked=True)`` runs it without
    writing first (a flow's start costs one write, not two).  Its clock
    (progress, deadline) starts at that save, a worker's hand-over
    before the step runs."""
    if plan:
        _mark_current(task, flow, 0, plan[0])


def overdue(node, flow):
    """Why the running step of ``node`` failed its timeout, or None."""
    limit = (node.driver_internal_info or {}).get(DEADLINE_KEY)
    if not limit:
        return None
    now = timeutils.utcnow()
    if now <= timeutils.parse_isotime(limit['deadline']).replace(
            tzinfo=None):
        return None
    took = (now - timeutils.parse_isotime(limit['started_at']).replace(
        tzinfo=None)).total_seconds()
    return ('%s step %s timed out: its timeout is %s seconds and it has '
            'taken %.1f' % (flow.title, limit['step'], limit['timeout'],
                            took))


def reason(exc):
    """What an error of a step says, for last_error."""
    if isinstance(exc, exception.StepFailed):
        return exc.kwargs.get('reason', str(exc))
    if isinstance(exc, exception.IronicStepsException):
        return str(exc)
    return '%s: %s' % (type(exc).__name__, exc)


def _interpret(flow, step, run):
    """Run ``run()`` and classify it: (Outcome, error message or None)."""
    try:
        result = run()
    except Exception as exc:
        LOG.warning('%s step %s failed: %s', flow.title, step.label, exc,
                    exc_info=not isinstance(exc, exception.IronicStepsException))
        return Outcome.FAILED, '%s step %s failed: %s' % (
            flow.title, step.label, reason(exc))
    if result is None:
        return Outcome.DONE, None
    if result == flow.wait_state:
        return Outcome.WAIT, None
    if result == flow.hold_state and reserved_steps.is_reserved(step.name):
        return Outcome.HOLD, None
    return Outcome.FAILED, (
        '%s step %s returned %r; a step must return None (done) or %r '
        '(continues asynchronously)'
        % (flow.title, step.label, result, flow.wait_state))


def run(task, flow, start_index=0, first_marked=False):
    """Run the stored plan from ``start_index``; see the module docstring.

    :param first_marked: the first step was recorded already, by the save
        that started the flow (:func:`mark_first_step`).
    :returns: the :class:`Outcome` that stopped the run.
    """
    plan = load_plan(task.node, flow)
    for index in range(start_index, len(plan)):
        step = plan[index]
        if not (first_marked and index == start_index == 0):
            _record_current(task, flow, index, step)
        execute = _executor(task, flow, step)
        if execute is None:
            return fail(task, flow, '%s step %s: node %s has no %s '
                        'interface with %s steps' % (
                            flow.title, step.label, task.node.uuid,
                            step.interface, flow.kind))
        outcome, error = _interpret(
            flow, step, lambda: execute(task, step.to_dict()))
        if outcome is not Outcome.FAILED:
            error = overdue(task.node, flow)
            outcome = Outcome.FAILED if error else outcome
        if outcome is Outcome.WAIT:
            return wait(task, flow, step)
        if outcome is Outcome.HOLD:
            return hold(task, step)
        if outcome is Outcome.FAILED:
            return fail(task, flow, error)
        step_history.end_step(task, flow, step_history.SUCCESS)
        LOG.debug('%s step %s of node %s done', flow.title, step.label,
                  task.node.uuid)
    return finish(task, flow)


def _executor(task, flow, step):
    """What runs ``step``: the agent, through the deploy interface, for an
    in-band step; the conductor for a reserved one (:mod:`reserved_steps`);
    else its interface.  None when the node has no such
    interface (a stored plan may outlive a driver change made while it
    waited)."""
    if step.in_band:
        deploy = task.driver.deploy
        return lambda task, step_dict: deploy.execute_in_band_step(
            task, step_dict, flow.kind)
    if reserved_steps.is_reserved(step.name):
        return lambda task, step_dict: reserved_steps.execute(
            task, step_dict, flow)
    return getattr(getattr(task.driver, step.interface, None),
                   'execute_%s_step' % flow.kind, None)


def wait(task, flow, step=None):
    """The current step goes on asynchronously: park the node."""
    task.process_event(states.EVENT_WAIT)
    # Before the node shows it waits: its agent may heartbeat at once.
    agent_token.park(task.node)
    task.save_and_release()
    LOG.info('Node %s waits for %s', task.node.uuid,
             step.label if step else 'its agent')
    return Outcome.WAIT


def hold(task, step):
    """A ``hold`` step: park the node, unlocked, until an operator's
    unhold (which goes on with the next step) or abort."""
    task.process_event(states.EVENT_HOLD)
    task.save_and_release()
    LOG.info('Node %s is held by step %s until an unhold', task.node.uuid,
             step.label)
    return Outcome.HOLD


def prepare_then_run(task, flow):
    """Boot what runs the flow's steps (the deploy interface's
    ``flow.prepare``, unless the flow runs without its agent); run them
    now, or once its agent reports (the plan is then made again, with the
    agent's steps)."""
    if flow.prepare and not flow.without_ramdisk(task.node):
        prepare = getattr(task.driver.deploy, flow.prepare)
        if prepare(task) == flow.wait_state:
            return wait(task, flow)
    return run(task, flow)


def start_requested(task, worker, flow, event, target, requested_steps,
                    disable_ramdisk, run_flow):
    """Start a flow that runs exactly the caller's steps (manual
    cleaning, servicing): check them, then move the node with ``event``,
    heading for ``target``; ``run_flow(task)`` goes on in ``worker``.

    :raises InvalidRequestedSteps: before anything changes, if a step
        cannot run on this node (or needs the agent ``disable_ramdisk``
        leaves off).
    :raises InvalidStateRequested: before anything changes, if the node's
        state does not take ``event``.
    """
    node = task.node
    state_machine.next_state(node.provision_state, event, node=node.uuid)
    plan = steps_mod.manual_plan(task, requested_steps, disable_ramdisk,
                                 kind=flow.kind)
    clear_progress(node, flow)
    store_plan(task, flow, plan)
    keep_requested(node, flow, requested_steps)
    if disable_ramdisk:
        node.driver_internal_info = {**node.driver_internal_info,
                                     flow.disable_ramdisk_key: True}
    task.start_work(event, worker, run_flow, target=target)


def fail(task, flow, error, outcome=step_history.FAILED):
    """Fail the flow; the current step stays on the node, as evidence.

    :param outcome: how the step's history entry names its end
        (``timeout`` for a step that ran out of time).
    """
    LOG.error('%s of node %s failed: %s', flow.name, task.node.uuid, error)
    step_history.end_step(task, flow, outcome, error)
    task.node.last_error = error
    stop_waiting(task.node)
    task.process_event(states.EVENT_FAIL)
    task.save_and_release()
    return Outcome.FAILED


#: The event that ends a flow heading somewhere other than the usual
#: place: manual cleaning goes back to manageable.
_DONE_EVENTS = {states.MANAGEABLE: states.EVENT_MANAGE}


def finish(task, flow):
    """Every step is done: clear the current step and the bookkeeping."""
    if flow.tear_down and not flow.without_ramdisk(task.node):
        getattr(task.driver.deploy, flow.tear_down)(task)
    clear_progress(task.node, flow)
    task.process_event(_DONE_EVENTS.get(task.node.target_provision_state,
                                        states.EVENT_DONE))
    task.save_and_release()
    LOG.info('%s of node %s done; it is now %s', flow.name, task.node.uuid,
             task.node.provision_state)
    return Outcome.DONE


def stop_flow(task, flow, reason):
    """End the flow's current step as aborted for ``reason`` (in the step
    history) and forget what it waited for, so that nothing resumes it;
    the caller moves the node on."""
    step_history.end_step(task, flow, step_history.ABORTED, reason)
    stop_waiting(task.node)


def abort(task, flow):
    """Stop a flow that waits for its agent, or is held, at the
    operator's request.

    The current step stays on the node, as evidence, and the agent token is
    forgotten, so a late heartbeat resumes nothing.
    :raises StepNotAbortable: if the flow may only stop between steps and
        the waiting step is not abortable (a held flow always may stop).
    """
    node = task.node
    step = getattr(node, flow.step_field) or {}
    label = '%s.%s' % (step.get('interface'), step.get('step'))
    if (flow.abort_needs_abortable_step and step
            and not step.get('abortable')
            and node.provision_state != flow.hold_state):
        raise exception.StepNotAbortable(node=node.uuid, step=label,
                                         flow=flow.name.lower())
    node.last_error = '%s aborted by request%s' % (
        flow.name, ' during step %s' % label if step else '')
    stop_flow(task, flow, node.last_error)
    task.process_event(states.EVENT_ABORT)
    task.save_and_release()
    LOG.info('%s of node %s aborted by request', flow.name, node.uuid)


def resume(task, flow):
    """Run the rest of the stored plan, after the step that waited (which
    fails instead if it came back after its timeout)."""
    error = overdue(task.node, flow)
    if error:
        return fail(task, flow, error)
    index = current_index(task.node, flow)
    if index is not None:
        step_history.end_step(task, flow, step_history.SUCCESS)
    return run(task, flow, start_index=0 if index is None else index + 1)


def continue_after_wait(task, worker, flow, fn):
    """Move a waiting node back to running; ``fn(task)`` goes on in
    ``worker``.

    The move is saved by the worker's first write (the next step's record,
    or the end of the flow), not here: one transaction fewer per wait, and
    should no worker start, the node simply goes on waiting.
    """
    task.process_event(states.EVENT_RESUME)
    task.hand_over(worker, fn)


def handle_error(task, flow, exc):
    """Fail the flow for an error outside any single step.

    Unsaved half-changes are dropped so only the failure is recorded.
    """
    LOG.error('%s of node %s failed: %s', flow.name, task.node.uuid, exc,
              exc_info=not isinstance(exc, exception.IronicStepsException))
    if task.node.provision_state not in (flow.running_state,
                                         flow.wait_state):
        return Outcome.FAILED
    task.node.obj_reset_changes()
    task.node.refresh()
    return fail(task, flow, '%s of node %s failed: %s' % (
        flow.name, task.node.uuid, exc))


def flow_boundary(flow):
    """Decorate a worker function: any error fails the flow cleanly."""
    def decorate(fn):
        @functools.wraps(fn)
        def guarded(task, *args):
            try:
                return fn(task, *args)
            except Exception as exc:
                return handle_error(task, flow, exc)
        return guarded
    return decorate
