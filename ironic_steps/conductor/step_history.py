"""What a running flow shows (progress) and what it leaves (history).

Both follow one step from start to end, so one module owns them:

* **Progress** lives in the node's ``driver_internal_info`` under
  :data:`~ironic_steps.drivers.base.PROGRESS_KEY`, a key Ironic clients
  ignore, so anyone watching the node sees it with the node::

      {"flow": "deploy", "flow_run": "<uuid of this deploy attempt>",
       "number": 3, "total": 6, "step": "deploy.write_image",
       "started_at": "<ISO 8601, UTC>",
       "percent": null, "message": null, "updated_at": null,
       "outcome": null}

  :func:`start_flow` opens it with the plan, :func:`start_step` moves it
  to the next step (both saved with the node save that already records
  the current step: no statement of their own); a step may report its
  own ``percent`` and ``message`` (:func:`ironic_steps.drivers.base.
  report_progress`, ``updated_at`` saying when).  ``outcome`` is null
  while the step runs, then how it ended.  The progress goes when the
  flow finishes, and stays after a failure (naming the step, as the
  current step does, and ``failed``), as evidence.

* **History**: when a step ends, :func:`end_step` makes one
  :class:`~ironic_steps.objects.NodeStepHistory` entry, its start read
  from the progress, which the node's next save inserts in its own
  transaction (the save that records the next step, or the flow's end):
  no transaction of its own, and never a history the node disagrees
  with.  The node's bound is kept by a DELETE once per
  ``step_history_max_entries`` entries this conductor wrote for the node,
  not per step; between two, a node may hold up to twice its bound, which
  readers never see (they read the newest only).

  A flow that fails, times out or is aborted before its first step
  starts (a cleaning whose agent never came up, a plan that could not be
  made) leaves one entry the same way, for the flow, with no step
  (``NO_STEP``), so that the node's history shows why it ended.  An
  error between two steps, or after the last, leaves none: its step
  ended well, and ``last_error`` says the rest.

Pinned to a release before 0.6, neither is written.
"""

import threading

from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import masking
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps import objects
from ironic_steps.objects import step_history as outcomes
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: The release that brought progress and history.
RELEASE = '0.6'

_unpruned_lock = threading.Lock()
#: node UUID -> entries this conductor wrote since it last trimmed the
#: node's history (lost on restart: the trim then just comes later).
_unpruned = {}


def enabled():
    """Whether progress and history are written (not while pinned to a
    release whose services know neither)."""
    return not release_mappings.pinned_before(CONF, RELEASE)


def progress(node):
    """The progress on ``node`` (a dict), or None."""
    return (node.driver_internal_info or {}).get(base.PROGRESS_KEY)


def _now():
    return timeutils.utcnow().isoformat()


def start_flow(node, flow, total):
    """Open the progress of a new run of ``flow`` with ``total`` steps."""
    info = dict(node.driver_internal_info or {})
    if not enabled():
        info.pop(base.PROGRESS_KEY, None)
    else:
        info[base.PROGRESS_KEY] = {
            'flow': flow.kind, 'flow_run': uuidutils.generate_uuid(),
            'number': 0, 'total': total, 'step': None, 'started_at': None,
            'percent': None, 'message': None, 'updated_at': None,
            'outcome': None}
    node.driver_internal_info = info


def start_step(info, index, step):
    """Move the progress in ``info`` (a driver_internal_info being
    changed) to ``step``, the ``index``-th of the plan."""
    current = info.get(base.PROGRESS_KEY)
    if current is None or not enabled():
        return
    info[base.PROGRESS_KEY] = {
        **current, 'number': index + 1, 'step': step.label,
        'started_at': _now(), 'percent': None, 'message': None,
        'updated_at': None, 'outcome': None}


def forget(node):
    """Drop the progress (saved with the node's next save)."""
    info = node.driver_internal_info or {}
    if base.PROGRESS_KEY in info:
        node.driver_internal_info = {k: v for k, v in info.items()
                                     if k != base.PROGRESS_KEY}


def end_step(task, flow, outcome, error=None):
    """Record the end of the step the progress names, if it started; or,
    for a flow that fails or is aborted before its first step started,
    the end of the flow (an entry with no step).

    A failure to write is logged, never raised: the history must not
    fail a deploy.
    """
    node = task.node
    current = progress(node)
    if current and current.get('flow') != flow.kind:
        current = None   # another flow's, left after its failure
    step = getattr(node, flow.step_field) or {}
    if not enabled() or (current and current.get('outcome')):
        return
    started = bool(current and current.get('started_at'))
    if started and step:
        _record(task, flow, current['flow_run'], outcome, error,
                started_at=timeutils.parse_isotime(current['started_at']),
                interface=step['interface'], step=step['step'],
                args=masking.mask(step.get('args') or {}),
                priority=step.get('priority'))
    elif not started and not step and outcome != SUCCESS:
        _record(task, flow, current['flow_run'] if current
                else uuidutils.generate_uuid(), outcome, error,
                started_at=None, interface=outcomes.NO_STEP,
                step=outcomes.NO_STEP, args=None, priority=None)
    else:
        return
    if current:
        # Saved with the node's next save, the entry with it; an error
        # before then must not record the end twice.
        node.driver_internal_info = {
            **node.driver_internal_info,
            base.PROGRESS_KEY: {**current, 'outcome': outcome}}


def _record(task, flow, flow_run, outcome, error, started_at, **step):
    """Have the node's next save insert one entry (``started_at`` None:
    when it ends, for a flow's end)."""
    node = task.node
    finished_at = timeutils.utcnow(with_timezone=True)
    node.record_with_next_save(objects.NodeStepHistory.new_row(
        node_id=node.id, flow=flow.kind, flow_run=flow_run,
        started_at=started_at or finished_at, finished_at=finished_at,
        outcome=outcome, error=error and masking.mask_text(error), **step))
    try:
        _trim_now_and_then(task.context, node)
    except db_exc.DBError as exc:
        LOG.warning('Could not trim the step history of node %s: %s',
                    node.uuid, exc)


def _trim_now_and_then(context, node):
    bound = CONF.conductor.step_history_max_entries
    with _unpruned_lock:
        written = _unpruned.get(node.uuid, 0) + 1
        due = written >= bound
        _unpruned[node.uuid] = 0 if due else written
    if due:
        dropped = objects.NodeStepHistory.trim(context, node.id)
        LOG.debug('Dropped %d old step history entries of node %s',
                  dropped, node.uuid)


#: How each flow end names the outcome of the step it ends.
SUCCESS = outcomes.SUCCESS
FAILED = outcomes.FAILED
ABORTED = outcomes.ABORTED
TIMEOUT = outcomes.TIMEOUT
