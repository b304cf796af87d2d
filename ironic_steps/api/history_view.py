"""What an event of a node's history looks like in the API (from 1.78).

A node's history is not a store of its own: it is the node's step
history (:class:`objects.NodeStepHistory`), each entry shown as one event,
as Ironic shows its node history records:

``uuid``
    The entry's event UUID (made from its id: see
    :func:`objects.step_history.event_uuid`).
``created_at``
    When the step (or the flow) ended.
``severity``
    ``ERROR`` for a step that failed or timed out, ``INFO`` otherwise (a
    step that succeeded, or that an operator aborted).
``event_type``
    The flow, named by the state it runs in, as Ironic names its events'
    types: ``deploying`` or ``cleaning``.
``event``
    What ran and how it ended, with the error if there was one
    (:func:`event_text`), its secrets masked (a signed URL it quotes).
``conductor``, ``user``, ``project`` (1.113)
    Always null: the step history does not record which conductor ran a
    step, nor who asked for the flow (that needs columns of its own).
``state`` (1.115)
    The state the node ran the step in (``deploying``, ``cleaning``,
    ``servicing``).
``target_provision_state`` (1.115)
    Where the flow was taking the node: ``active`` for a deploy or a
    servicing; null for a cleaning, which the step history does not tell
    apart (automated, to ``available``, or manual, to ``manageable``).
``duration_seconds`` (1.115)
    Whole seconds the step ran, waits included (Ironic's: the seconds the
    node had been in its state when the event was recorded).

A plain list shows ``uuid``, ``created_at``, ``severity`` and ``event``,
the event cut to 255 characters as Ironic cuts it; ``?detail=True``, or
one event, shows every field whole.  The shared :mod:`view` machinery
checks ``?fields`` and shows the values; the links are Ironic's (a
``self`` link only).
"""

import collections

from ironic_steps.api import responses
from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps.common import masking
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.objects import step_history

#: The version node history appeared in; every field exists from it.
VERSION = v.at(v.MINOR_78_NODE_HISTORY)
#: The release that serves it: pinned before it, the paths do not exist.
RELEASE = '0.10'

#: In Ironic's order.
FIELDS = ('uuid', 'created_at', 'severity', 'event_type', 'event',
          'conductor', 'user', 'project', 'state', 'target_provision_state',
          'duration_seconds')
_LATER_FIELDS = {
    'project': v.at(v.MINOR_113_NODE_HISTORY_PROJECT),
    **dict.fromkeys(('state', 'target_provision_state', 'duration_seconds'),
                    v.at(v.MINOR_115_NODE_HISTORY_FIELDS)),
}

VIEW = view.View('history', FIELDS, since=_LATER_FIELDS, min_version=VERSION,
                 list_fields=('uuid', 'created_at', 'severity', 'event'),
                 times=('created_at',))

#: One event, as the view reads it.
Event = collections.namedtuple('Event', FIELDS)

INFO = 'INFO'
ERROR = 'ERROR'
#: The flow -> where it takes the node (see the module's docstring).
_TARGETS = {step_kinds.DEPLOY: states.ACTIVE, step_kinds.SERVICE: states.ACTIVE}
_SEVERITY = {step_history.SUCCESS: INFO, step_history.ABORTED: INFO,
             step_history.FAILED: ERROR, step_history.TIMEOUT: ERROR}
_ENDED = {step_history.SUCCESS: 'succeeded', step_history.FAILED: 'failed',
          step_history.TIMEOUT: 'timed out',
          step_history.ABORTED: 'was aborted'}

#: How long a plain list's events may be (Ironic's cut).
_LIST_EVENT_LENGTH = 255


def _seconds(duration):
    """``0.000012``, ``0.0042``, ``2.35``, ``12.3``, ``1234.5``."""
    if duration >= 10:
        return '%.1f' % duration
    if duration == 0 or duration >= 0.001:
        return '%.3g' % duration
    return '%.6f' % duration


def event_text(entry):
    """What the entry says happened: ``Deploy step deploy.write_image
    failed after 0.42 seconds: <why>``, ``Cleaning timed out before its
    first step: <why>``."""
    flow = step_kinds.FLOWS[entry.flow]
    ended = _ENDED.get(entry.outcome, entry.outcome)
    if not entry.is_step:
        text = '%s %s before its first step' % (flow.name, ended)
        return text + (': ' + entry.error if entry.error else '')
    said = '%s step %s.%s' % (flow.title, entry.interface, entry.step)
    took = _seconds(entry.duration)
    if entry.outcome == step_history.SUCCESS:
        return '%s succeeded in %s seconds' % (said, took)
    text = '%s %s after %s seconds' % (said, ended, took)
    if not entry.error:
        return text
    # The runner's errors open with what this text says already.
    return text + ': ' + entry.error.removeprefix(said + ' failed: ')


def event_of(entry):
    """The event a :class:`objects.NodeStepHistory` entry shows as."""
    running_state = step_kinds.FLOWS[entry.flow].running_state
    return Event(uuid=entry.event_uuid, created_at=entry.finished_at,
                 severity=_SEVERITY.get(entry.outcome, ERROR),
                 event_type=running_state,
                 event=masking.mask(event_text(entry)), conductor=None,
                 user=None, project=None, state=running_state,
                 target_provision_state=_TARGETS.get(entry.flow),
                 duration_seconds=int(entry.duration))


def body(event, version, fields, node_uuid, base_url=None, cut=False):
    """The body of ``event``, an event of the node ``node_uuid``:
    ``fields`` (checked already; None: every one) and its link.

    :param cut: cut a long ``event`` as a plain list does.
    """
    base_url = base_url or responses.public_url()
    shown = VIEW.values(event, fields or VIEW.visible_fields(version),
                        version, keys=Event._fields)
    if cut and len(shown.get('event') or '') > _LIST_EVENT_LENGTH:
        shown['event'] = shown['event'][:_LIST_EVENT_LENGTH - 4] + '...'
    shown['links'] = [{
        'href': '%s/v1/nodes/%s/history/%s' % (base_url, node_uuid,
                                               event.uuid),
        'rel': 'self'}]
    return shown


def bodies(events, version, fields, node_uuid):
    """:func:`body` of each of ``events``, as a list shows them (``fields``
    None: a detailed list, its events whole)."""
    base_url = responses.public_url()
    return [body(event, version, fields, node_uuid, base_url,
                 cut=fields is not None)
            for event in events]
