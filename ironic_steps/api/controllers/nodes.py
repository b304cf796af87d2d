"""/v1/nodes: create, list, show, update and delete nodes.

Reads go to the database through :class:`objects.Node` (one query for a
node, one for a page of nodes, reading only the columns the page shows,
and a node's traits only when they are shown);
every change goes through the conductor (``flask.g.rpcapi``, a
:class:`rpcapi.ConductorAPI`), which owns node locks and checks states;
conductor calls take the node's UUID, which routes them.
Provision state changes live in :mod:`node_states`.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import node_patch
from ironic_steps.api import node_schema
from ironic_steps.api import node_view
from ironic_steps.api import pagination
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps import objects

blueprint = flask.Blueprint('nodes', __name__, url_prefix='/v1/nodes')

#: List filters -> the version that introduced them.
_FILTERS = {
    'provision_state': versions.MIN_VERSION,
    'maintenance': versions.MIN_VERSION,
    'driver': (1, versions.MINOR_16_DRIVER_FILTER),
    'resource_class': (1, versions.MINOR_21_RESOURCE_CLASS),
}
_LIST_PARAMS = frozenset(pagination.PARAMS + ('fields', 'detail')
                         + tuple(_FILTERS))


def _filters(args, version):
    filters = {}
    for name, needed in _FILTERS.items():
        if name not in args:
            continue
        if version < needed:
            raise errors.FeatureNotInVersion(
                feature='Filtering nodes by %s' % name,
                needed=versions.to_string(needed),
                version=versions.to_string(version))
        filters[name] = (query.boolean(args, name) if name == 'maintenance'
                         else args[name])
    return filters


def _list(detail_path):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:node:list', context)
    args = flask.request.args
    query.check_known(args, _LIST_PARAMS)
    fields = node_view.VIEW.list_fields_for(args, version, detail_path)
    filters = _filters(args, version)
    page = pagination.parse(args)
    if page.sort_key in node_view.FIELDS:
        node_view.check_fields([page.sort_key], version)
    marker = pagination.marker_item(
        page, lambda uuid: objects.Node.get_by_uuid(context, uuid), 'node')
    nodes = objects.Node.list_fields(
        context, fields + ('uuid',), filters=filters, limit=page.limit,
        marker=marker, sort_key=page.sort_key, sort_dir=page.sort_dir)
    base = responses.public_url()
    path = '/v1/nodes/detail' if detail_path else '/v1/nodes'
    return responses.json_response(pagination.collection(
        'nodes', [node_view.to_dict(node, fields, base) for node in nodes],
        base + path, args, page, nodes))


@blueprint.get('')
def list_nodes():
    return _list(detail_path=False)


@blueprint.get('/detail')
def list_nodes_detail():
    return _list(detail_path=True)


@blueprint.get('/<ident>')
def show(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:node:get', context)
    query.check_known(flask.request.args, ('fields',))
    fields = (node_view.parse_fields(flask.request.args.get('fields'),
                                     version)
              or node_view.visible_fields(version))
    node = node_ident.get_row(context, ident, with_traits='traits' in fields)
    return responses.json_response(node_view.to_dict(node, fields))


def _driver_is_input(call, *args):
    """An unknown driver in a request body is a bad request, not a 404."""
    try:
        return call(*args)
    except exception.DriverNotFound as exc:
        raise exception.InvalidParameterValue(
            err=errors.message_of(exc)) from exc


@blueprint.post('')
def create():
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:node:create', context)
    values = node_schema.check_create(body.json_body(), version)
    if values.get('uuid') is None:
        values.pop('uuid', None)
    node = _driver_is_input(flask.g.rpcapi.create_node, context,
                            objects.Node(context, **values))
    return responses.json_response(
        node_view.to_dict(node, node_view.visible_fields(version)),
        status=201, headers={'Location': responses.url('nodes', node.uuid)})


@blueprint.patch('/<ident>')
def update(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:node:update', context)
    patch = body.json_body()
    node = node_ident.get_node(context, ident)
    changes = node_patch.changes(node, patch, version)
    if changes:
        for field, value in changes.items():
            setattr(node, field, value)
        node = _driver_is_input(flask.g.rpcapi.update_node, context, node)
    return responses.json_response(
        node_view.to_dict(node, node_view.visible_fields(version)))


@blueprint.delete('/<ident>')
def delete(ident):
    context = flask.g.context
    policy.authorize('baremetal:node:delete', context)
    node = node_ident.get_row(context, ident)
    flask.g.rpcapi.destroy_node(context, node.uuid)
    return responses.empty(204)
