"""/v1/nodes/{node}/x-steps/history: what steps ran on a node (read only).

An extension of ironic-steps, under ``x-steps``, a path segment Ironic
never uses: no Ironic client sees it, at any microversion, and it needs
none (it answers at every version the API speaks).  Each entry is one run
of one deploy or clean step, oldest first: the newest ``[conductor]
step_history_max_entries`` of the node, across its deploys and cleanings
(see :mod:`ironic_steps.objects.step_history`).  ``?flow=deploy|clean``
and ``?flow_run=<uuid>`` (a deploy's or cleaning's, as its progress names
it) narrow it down.  Reading needs ``baremetal:node:x-steps:history:get``.

Pinned to a release before the history (0.6, the first with a
NodeStepHistory object) the path does not exist: 404, as any unknown path.
"""

import datetime

import flask
from oslo_utils import uuidutils

from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import masking
from ironic_steps.common import step_kinds
from ironic_steps import objects
from ironic_steps import release_mappings

blueprint = flask.Blueprint('step_history', __name__,
                            url_prefix='/v1/nodes/<ident>/x-steps/history')

_FILTERS = ('flow', 'flow_run')
_FIELDS = ('flow', 'flow_run', 'interface', 'step', 'args', 'priority',
           'started_at', 'finished_at', 'duration', 'outcome', 'error')


@blueprint.before_request
def _check_release():
    versions.hide_while_pinned_before(
        release_mappings.first_release_with('NodeStepHistory', '1.0'))


def _filters(args):
    query.check_known(args, _FILTERS)
    flow = args.get('flow')
    if flow is not None and flow not in step_kinds.STEP_KINDS:
        raise exception.InvalidParameterValue(
            err='flow must be one of %s, got %r' % (
                ', '.join(step_kinds.STEP_KINDS), flow))
    flow_run = args.get('flow_run')
    if flow_run is not None and not uuidutils.is_uuid_like(flow_run):
        raise exception.InvalidParameterValue(
            err='flow_run must be the UUID of a deploy or cleaning (its '
                'step_progress names it), got %r' % (flow_run,))
    return {'flow': flow, 'flow_run': flow_run}


def _time(value):
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value.isoformat()


def body(entry, node_uuid):
    """The JSON body of one history entry."""
    shown = {field: getattr(entry, field) for field in _FIELDS}
    shown['started_at'] = _time(entry.started_at)
    shown['finished_at'] = _time(entry.finished_at)
    # Stored masked already; masked again in case a secret's key is one
    # the rule learns to recognise after the entry was written.
    shown['args'] = masking.mask(entry.args or {})
    shown['error'] = masking.mask(entry.error)
    shown['node_uuid'] = node_uuid
    return shown


@blueprint.get('')
def list_history(ident):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:x-steps:history:get', context,
                            ident, flask.g.version)
    filters = _filters(flask.request.args)
    node = node_ident.get_row(context, ident, flask.g.version)
    entries = objects.NodeStepHistory.list_by_node(context, node.id,
                                                   **filters)
    return responses.json_response(
        {'history': [body(entry, node.uuid) for entry in entries]})
