"""/v1/allocations and /v1/nodes/{node}/allocation: ask for a node, give
it back.

From API 1.52, as in Ironic: below it GET is answered 404 and any other
method 405; PATCH from 1.57 (405 below), backfilling a deployed ``node``
from 1.58 (400 below), ``owner`` from 1.60.  While the services are
pinned to a release without allocations every path here answers 404, as
an unknown one would.

Reads go to the database through :class:`objects.Allocation`; so do
changes of ``name`` and ``extra``, which concern no node.  Creating an
allocation and deleting one go through the conductor
(``flask.g.rpcapi``), which finds the allocation a node, or releases the
node it holds, under that node's lock.  An allocation is named by UUID
(either case) or by name.  The view, the schema, the JSON patch and the
paging are the shared machinery with the allocation's declarations
(:mod:`allocation_view`, :mod:`allocation_schema`).
"""

import flask

from ironic_steps.api import allocation_schema
from ironic_steps.api import allocation_view
from ironic_steps.api import body
from ironic_steps.api import identifiers
from ironic_steps.api import lanes
from ironic_steps.api import node_ident
from ironic_steps.api import pagination
from ironic_steps.api import patching
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects

blueprint = flask.Blueprint('allocations', __name__,
                            url_prefix='/v1/allocations')
node_blueprint = flask.Blueprint('node_allocation', __name__,
                                 url_prefix='/v1/nodes/<node>/allocation')

_VIEW = allocation_view.VIEW
_UPDATE_VERSION = versions.at(versions.MINOR_57_ALLOCATION_UPDATE)
_BACKFILL_VERSION = versions.at(versions.MINOR_58_ALLOCATION_BACKFILL)
_OWNER_VERSION = versions.at(versions.MINOR_60_ALLOCATION_OWNER)
#: List filters -> the version that introduced them.
_FILTERS = {'node': allocation_view.VERSION,
            'resource_class': allocation_view.VERSION,
            'state': allocation_view.VERSION,
            'owner': _OWNER_VERSION}
_LIST_PARAMS = frozenset(pagination.PARAMS + ('fields',) + tuple(_FILTERS))


@blueprint.before_request
def _check_version():
    versions.hide_while_pinned_before(allocation_view.RELEASE)
    versions.check_endpoint(flask.g.version, allocation_view.VERSION,
                            flask.request.path, flask.request.method,
                            changes_405=True)


@node_blueprint.before_request
def _check_node_version():
    versions.hide_while_pinned_before(allocation_view.RELEASE)
    versions.check_endpoint(flask.g.version, allocation_view.VERSION,
                            flask.request.path)


def _get(context, ident):
    """The allocation ``ident`` (a URL's) names.

    :raises AllocationNotFound: also for what is neither a UUID nor a
        name, which no allocation can be called.
    """
    if identifiers.is_uuid(ident):
        return objects.Allocation.get_by_uuid(context, ident.lower())
    if not identifiers.is_name(ident):
        raise exception.AllocationNotFound(allocation=ident)
    return objects.Allocation.get_by_name(context, ident)


def _node_uuid_of(context, ident, version, find=node_ident.get_row):
    """The UUID of the node ``ident`` names in a request's body or query
    (a query's ``find`` hides the nodes the caller may not see).

    :raises InvalidParameterValue: (400) if no node is called so.
    """
    try:
        return find(context, ident, version).uuid
    except (exception.NodeNotFound, exception.InvalidUuidOrName) as exc:
        raise exception.InvalidParameterValue(
            err='Node %s could not be found' % ident) from exc


def _filters(context, args, version):
    filters = {}
    for name, needed in _FILTERS.items():
        if name not in args:
            continue
        versions.require(version, needed[1],
                         'Filtering allocations by %s' % name)
        if name == 'node':
            filters['node_uuid'] = _node_uuid_of(
                context, args[name], version,
                find=tenancy.filter_node_row)
            continue
        if name == 'state' and args[name] not in states.ALLOCATION_STATES:
            raise exception.InvalidParameterValue(
                err='Unknown allocation state %r; states: %s' % (
                    args[name], ', '.join(states.ALLOCATION_STATES)))
        filters[name] = args[name]
    return filters


@blueprint.get('')
@lanes.reads_pages
def list_allocations():
    context, version = flask.g.context, flask.g.version
    project = tenancy.list_project('allocation', context)
    args = flask.request.args
    query.check_known(args, _LIST_PARAMS)
    fields = _VIEW.parse_fields(args.get('fields'), version)
    filters = _filters(context, args, version)
    if project is not None:
        if filters.setdefault('owner', project) != project:
            return responses.json_response({'allocations': []})
    page = pagination.parse(args)
    if page.sort_key in _VIEW.fields:
        _VIEW.check_fields([page.sort_key], version)
    marker = pagination.marker_item(
        page, lambda uuid: objects.Allocation.get_by_uuid(context, uuid),
        'allocation')
    allocations = objects.Allocation.list(
        context, filters=filters, limit=page.limit, marker=marker,
        sort_key=page.sort_key, sort_dir=page.sort_dir)
    base = responses.public_url()
    return responses.json_response(pagination.collection(
        'allocations', _VIEW.bodies(allocations, version, fields, base),
        base + '/v1/allocations', args, page, allocations))


@blueprint.get('/<ident>')
def show(ident):
    context, version = flask.g.context, flask.g.version
    query.check_known(flask.request.args, ('fields',))
    fields = _VIEW.parse_fields(flask.request.args.get('fields'), version)
    return responses.json_response(_VIEW.body(tenancy.allocation(
        'baremetal:allocation:get', context, lambda: _get(context, ident),
        ident), version, fields))


def _backfilled_node(context, values, version):
    """The node a create body asks to backfill (taken out of ``values``),
    as a row; None if it names none.

    :raises InvalidParameterValue: before 1.58, or for an unknown node.
    """
    ident = values.pop('node', None)
    if ident is None:
        return None
    if version < _BACKFILL_VERSION:
        raise exception.InvalidParameterValue(
            err='Cannot name a node when creating an allocation before API '
                '%s; this request is %s' % (
                    versions.to_string(_BACKFILL_VERSION),
                    versions.to_string(version)))
    if not isinstance(ident, str):
        raise exception.InvalidParameterValue(
            err='node must be a node UUID or name, got %r' % (ident,))
    return objects.Node.get_row(context,
                                _node_uuid_of(context, ident, version))


@blueprint.post('')
def create():
    context, version = flask.g.context, flask.g.version
    values = body.json_body()
    if isinstance(values, dict):
        values = dict(values)
        node = _backfilled_node(context, values, version)
    else:
        node = None
    values = allocation_schema.SCHEMA.check_create(values, version,
                                                   'allocation')
    values = {field: value for field, value in values.items()
              if value is not None}
    tenancy.authorize_allocation_create(context, values, node)
    if not values.get('resource_class'):
        if node is None:
            raise exception.MissingParameterValue(
                err='An allocation needs a resource_class (unless it '
                    'backfills a node, whose resource class it takes).')
        values['resource_class'] = node.resource_class
    if values.get('candidate_nodes'):
        values['candidate_nodes'] = [
            _node_uuid_of(context, ident, version)
            for ident in values['candidate_nodes']]
    if 'uuid' not in values and node is not None and node.instance_uuid:
        # Backfilling a node deployed for an instance: the allocation is
        # that instance.
        values['uuid'] = node.instance_uuid
    allocation = flask.g.rpcapi.create_allocation(
        context, objects.Allocation(context, **values),
        node_uuid=None if node is None else node.uuid)
    return responses.json_response(
        _VIEW.body(allocation, version), status=201,
        headers={'Location': responses.url('allocations', allocation.uuid)})


@blueprint.patch('/<ident>')
def update(ident):
    context, version = flask.g.context, flask.g.version
    versions.check_endpoint(version, _UPDATE_VERSION, flask.request.path,
                            'PATCH', changes_405=True)
    patch = body.json_body()
    allocation = tenancy.allocation('baremetal:allocation:update', context,
                                    lambda: _get(context, ident), ident)
    if patching.apply_changes(allocation, patch, allocation_schema.SCHEMA,
                              version, allocation_schema.empty):
        allocation.save()
    return responses.json_response(_VIEW.body(allocation, version))


@blueprint.delete('/<ident>')
def delete(ident):
    context = flask.g.context
    flask.g.rpcapi.destroy_allocation(context, tenancy.allocation(
        'baremetal:allocation:delete', context, lambda: _get(context, ident),
        ident))
    return responses.empty(204)


def _of_node(context, ident, version):
    """The allocation holding the node ``ident``.

    :raises NodeNotFound:
    :raises AllocationNotFound: if the node has none.
    """
    node = node_ident.get_row(context, ident, version)
    found = objects.Allocation.list(context,
                                    filters={'node_uuid': node.uuid})
    if not found:
        raise exception.AllocationNotFound(
            allocation='of node %s' % ident)
    return found[0]


@node_blueprint.get('')
def show_of_node(node):
    context, version = flask.g.context, flask.g.version
    query.check_known(flask.request.args, ('fields',))
    fields = _VIEW.parse_fields(flask.request.args.get('fields'), version)
    return responses.json_response(_VIEW.body(tenancy.allocation(
        'baremetal:allocation:get', context,
        lambda: _of_node(context, node, version), node), version, fields))


@node_blueprint.delete('')
def delete_of_node(node):
    context = flask.g.context
    flask.g.rpcapi.destroy_allocation(context, tenancy.allocation(
        'baremetal:allocation:delete', context,
        lambda: _of_node(context, node, flask.g.version), node))
    return responses.empty(204)
