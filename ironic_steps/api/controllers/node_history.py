"""/v1/nodes/{node}/history: what happened to a node (read only).

From API 1.78, as in Ironic (below it the paths do not exist: 404), and
not at all while the services are pinned to a release before 0.10 (404
as any unknown path).  The events are the node's step history, shown as
Ironic shows its node history (see :mod:`history_view`); they are kept
and dropped with it (``[conductor] step_history_max_entries`` per node).
Reading needs ``baremetal:node:history:get``.

The list pages as every collection does (:mod:`pagination`): ``limit``,
``marker`` (an event's UUID), ``sort_dir``; ``sort_key`` is
``created_at`` (the default) or ``uuid``, which sort alike, in the order
the events were recorded.  ``?detail=True`` shows whole events;
``?fields`` picks fields (on one event too).
"""

import flask

from ironic_steps.api import history_view
from ironic_steps.api import node_ident
from ironic_steps.api import pagination
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps import objects
from ironic_steps.objects import step_history

blueprint = flask.Blueprint('node_history', __name__,
                            url_prefix='/v1/nodes/<ident>/history')

_VIEW = history_view.VIEW
_RULE = 'baremetal:node:history:get'
_LIST_PARAMS = pagination.PARAMS + ('detail', 'fields')
#: Both sort by id: events are recorded one at a time, under the node's
#: lock, and an event's UUID holds its id.
_SORT_KEYS = ('created_at', 'uuid')


@blueprint.before_request
def _check_version():
    versions.hide_while_pinned_before(history_view.RELEASE)
    versions.check_endpoint(flask.g.version, history_view.VERSION,
                            flask.request.path)


def _page(args, node_uuid):
    """The page asked for, and the id of the entry it starts after."""
    page = pagination.parse(args, default_sort_key='created_at')
    if page.sort_key not in _SORT_KEYS:
        raise exception.InvalidParameterValue(
            err='sort_key must be one of %s, got %r' % (
                ', '.join(_SORT_KEYS), page.sort_key))
    after = None
    if page.marker is not None:
        after = step_history.entry_id(page.marker)
        if after is None:
            raise exception.InvalidParameterValue(
                err='marker %s is not the UUID of an event of node %s'
                    % (page.marker, node_uuid))
    return page, after


@blueprint.get('')
def list_history(ident):
    context, version = flask.g.context, flask.g.version
    tenancy.authorize_ident(_RULE, context, ident, flask.g.version)
    args = flask.request.args
    query.check_known(args, _LIST_PARAMS)
    fields = _VIEW.list_fields_for(args, version, detail_path=False)
    node = node_ident.get_row(context, ident, version)
    page, after = _page(args, node.uuid)
    events = [history_view.event_of(entry)
              for entry in objects.NodeStepHistory.page_by_node(
                  context, node.id, page.limit, after=after,
                  newest_first=page.sort_dir == 'desc')]
    return responses.json_response(pagination.collection(
        'history', history_view.bodies(events, version, fields, node.uuid),
        responses.public_url() + flask.request.path, args, page, events))


@blueprint.get('/<event>')
def show_event(ident, event):
    context, version = flask.g.context, flask.g.version
    tenancy.authorize_ident(_RULE, context, ident, flask.g.version)
    query.check_known(flask.request.args, ('fields',))
    fields = _VIEW.parse_fields(flask.request.args.get('fields'), version)
    node = node_ident.get_row(context, ident, version)
    entry = objects.NodeStepHistory.get_by_event_uuid(context, node, event)
    return responses.json_response(history_view.body(
        history_view.event_of(entry), version, fields, node.uuid))
