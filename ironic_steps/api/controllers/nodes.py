"""/v1/nodes: create, list, show, update and delete nodes.

Reads go to the database through :class:`objects.Node` (one query for a
node, one for a page of nodes, reading only the columns the page shows,
and a node's traits only when they are shown);
every change goes through the conductor (``flask.g.rpcapi``, a
:class:`rpcapi.ConductorAPI`), which owns node locks and checks states;
conductor calls take the node's UUID, which routes them.
Provision state changes live in :mod:`node_states`, maintenance in
:mod:`node_maintenance`, what a ``parent_node`` may name and a node's
children in :mod:`node_family` (API 1.83).
"""

import flask
from oslo_utils import uuidutils

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import lanes
from ironic_steps.api import node_family
from ironic_steps.api import node_patch
from ironic_steps.api import node_schema
from ironic_steps.api import node_view
from ironic_steps.api import pagination
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps import objects

blueprint = flask.Blueprint('nodes', __name__, url_prefix='/v1/nodes')

#: List filters -> the version that introduced them, as Ironic gates them
#: (``retired`` and ``description_contains`` it does not gate).
_FILTERS = {
    'maintenance': versions.MIN_VERSION,
    'associated': versions.MIN_VERSION,
    'instance_uuid': versions.MIN_VERSION,
    'retired': versions.MIN_VERSION,
    'description_contains': versions.MIN_VERSION,
    'provision_state': versions.at(versions.MINOR_9_PROVISION_STATE_FILTER),
    'driver': versions.at(versions.MINOR_16_DRIVER_FILTER),
    'resource_class': versions.at(versions.MINOR_21_RESOURCE_CLASS),
    'fault': versions.at(versions.MINOR_42_FAULT),
    'conductor_group': versions.at(versions.MINOR_46_NODE_CONDUCTOR_GROUP),
    'conductor': versions.at(versions.MINOR_49_CONDUCTORS),
    'owner': versions.at(versions.MINOR_50_NODE_OWNER),
    'lessee': versions.at(versions.MINOR_65_NODE_LESSEE),
    'chassis_uuid': versions.MIN_VERSION,
    'shard': versions.at(versions.MINOR_82_NODE_SHARD),
    'sharded': versions.at(versions.MINOR_82_NODE_SHARD),
    'parent_node': versions.at(versions.MINOR_83_PARENT_CHILD_NODES),
    'include_children': versions.at(versions.MINOR_83_PARENT_CHILD_NODES),
    'instance_name': versions.at(versions.MINOR_104_NODE_INSTANCE_NAME),
}
_BOOLEAN_FILTERS = frozenset(['maintenance', 'associated', 'retired',
                              'sharded', 'include_children'])
#: Filters the database names otherwise (``?shard=a,b``: any of them).
_DB_FILTERS = {'shard': 'shard_in'}
_LIST_PARAMS = frozenset(pagination.PARAMS + ('fields', 'detail')
                         + tuple(_FILTERS))


def _compute(nodes, fields):
    """How this request computes the computed fields of ``nodes`` (those
    its bodies show), showing ``fields`` (None: all of them): if it shows
    ``allocation_uuid``, what the rows read with it, else one allocation
    query for the page."""
    # Each read of flask.g through its proxy costs a node GET 1 %.
    request = flask.g._get_current_object()
    allocation_of = None
    if 'allocation_uuid' in (fields or node_view.visible_fields(
            request.version)):
        if len(nodes) == 1 and hasattr(nodes[0], 'allocation_uuid'):
            # Read with the node's row (a node shown with its traits).
            allocation_of = {nodes[0].uuid: nodes[0].allocation_uuid}.get
        else:
            allocation_of = objects.Allocation.uuids_of_nodes(
                request.context, [node.uuid for node in nodes]).get
    return node_view.computer(request.rpcapi.get_conductor_for,
                              allocation_of or (lambda node_uuid: None))


def _body(node, fields=None):
    """The body of ``node`` at this request's version (see
    :meth:`view.View.body`), as the caller may see it."""
    request = flask.g._get_current_object()
    shown = node_view.VIEW.body(node, request.version, fields,
                                compute=_compute([node], fields))
    tenancy.redact_nodes(request.context, [(shown, node)])
    return shown


def _filter_value(args, name):
    if name in _BOOLEAN_FILTERS:
        return query.boolean(args, name)
    value = args[name]
    if name == 'provision_state' and value not in state_machine.STATES:
        raise exception.InvalidParameterValue(
            err='Unknown provision state %r; states: %s' % (
                value, ', '.join(sorted(state_machine.STATES))))
    if name == 'fault' and value not in states.FAULTS:
        raise exception.InvalidParameterValue(
            err='Unknown fault %r; faults: %s' % (
                value, ', '.join(states.FAULTS)))
    if (name in ('instance_uuid', 'chassis_uuid')
            and not uuidutils.is_uuid_like(value)):
        raise exception.InvalidParameterValue(
            err='%s must be a UUID, got %r' % (name, value))
    if name == 'shard':
        return [shard.strip() for shard in value.split(',') if shard.strip()]
    if name == 'parent_node':
        return node_family.parent_filter(flask.g.context, value)
    return value.lower() if name == 'chassis_uuid' else value


def _filters(args, version):
    """The database filters of a list request.  Child nodes are left out
    unless ``?include_children=true`` or ``?parent_node`` asks for them,
    at every version, as Ironic lists nodes."""
    filters = {}
    for name, needed in _FILTERS.items():
        if name not in args:
            continue
        if version < needed:
            raise errors.FeatureNotInVersion(
                feature='Filtering nodes by %s' % name,
                needed=versions.to_string(needed),
                version=versions.to_string(version))
        filters[_DB_FILTERS.get(name, name)] = _filter_value(args, name)
    if not filters.pop('include_children', False) and (
            'parent_node' not in filters):
        filters['has_parent'] = False
    return filters


def list_page(detail_path, chassis_uuid=None):
    """A page of nodes (those of a chassis: /v1/chassis/{c}/nodes)."""
    context, version = flask.g.context, flask.g.version
    project = tenancy.list_project('node', context)
    args = flask.request.args
    query.check_known(args, _LIST_PARAMS)
    fields = node_view.VIEW.list_fields_for(args, version, detail_path)
    filters = _filters(args, version)
    if project is not None:
        filters['project'] = project
    if chassis_uuid is not None:
        filters['chassis_uuid'] = chassis_uuid
    # The conductor of a node is the hash ring's answer, not a column.
    conductor = filters.pop('conductor', None)
    page = pagination.parse(args)
    if page.sort_key in node_view.FIELDS:
        node_view.check_fields([page.sort_key], version)
    marker = pagination.marker_item(
        page, lambda uuid: objects.Node.get_by_uuid(context, uuid), 'node')
    shown = fields or node_view.visible_fields(version)
    nodes = objects.Node.list_fields(
        context, node_view.columns(shown) + ('uuid', 'driver')
        + tenancy.extra_columns(context),
        filters=filters, limit=page.limit, marker=marker,
        sort_key=page.sort_key, sort_dir=page.sort_dir)
    conductor_for = flask.g.rpcapi.get_conductor_for
    matching = nodes if conductor is None else [
        node for node in nodes
        if conductor_for(node.uuid, node.driver) == conductor]
    base = responses.public_url()
    path = flask.request.path
    bodies = node_view.VIEW.bodies(matching, version, fields, base,
                                   _compute(matching, fields))
    tenancy.redact_nodes(context, zip(bodies, matching))
    # The page read decides whether there is a next one, whatever the
    # conductor filter left of it.
    return responses.json_response(pagination.collection(
        'nodes', bodies, base + path, args, page, nodes))


@blueprint.get('')
@lanes.reads_pages
def list_nodes():
    return list_page(detail_path=False)


@blueprint.get('/detail')
@lanes.reads_pages
def list_nodes_detail():
    return list_page(detail_path=True)


@blueprint.get('/<ident>')
def show(ident):
    context, version = flask.g.context, flask.g.version
    args = flask.request.args
    query.check_known(args, ('fields',))
    fields = node_view.parse_fields(args.get('fields'), version)
    node = tenancy.node_row(
        'baremetal:node:get', context, ident, version,
        with_traits='traits' in (fields or node_view.visible_fields(version)))
    return responses.json_response(_body(node, fields))


@blueprint.get('/<ident>/validate')
def validate(ident):
    """Each interface's check of the node: {interface: {result, reason}}."""
    context, version = flask.g.context, flask.g.version
    query.check_known(flask.request.args, ())
    node = tenancy.node_row('baremetal:node:validate', context, ident,
                            version)
    return responses.json_response(
        flask.g.rpcapi.validate_driver_interfaces(context, node.uuid))


def _driver_is_input(call, *args, **kwargs):
    """An unknown driver in a request body is a bad request, not a 404."""
    try:
        return call(*args, **kwargs)
    except exception.DriverNotFound as exc:
        raise exception.InvalidParameterValue(
            err=errors.message_of(exc)) from exc


def _check_chassis(context, values):
    """A node's chassis exists (400 otherwise, as Ironic answers)."""
    chassis_uuid = values.get('chassis_uuid')
    if chassis_uuid is None:
        return
    try:
        objects.Chassis.get_by_uuid(context, chassis_uuid)
    except exception.ResourceNotFound as exc:
        raise exception.ReferencedResourceNotFound(
            what='Chassis', ident=chassis_uuid, field='chassis_uuid') from exc


def _initial_state(version):
    """Ironic's: nodes start in ``enroll`` from 1.11, ``available`` before."""
    if version < versions.at(versions.MINOR_11_ENROLL_STATE):
        return states.AVAILABLE
    return states.ENROLL


@blueprint.post('')
def create():
    context, version = flask.g.context, flask.g.version
    payload = body.json_body()
    tenancy.authorize_create(context, payload, version)
    values = node_schema.check_create(payload, version)
    _check_chassis(context, values)
    node_family.resolve_parent(context, values, owner=values.get('owner'))
    if values.get('uuid') is None:
        values.pop('uuid', None)
    for field in node_view.COMPUTED_FIELDS:
        values.pop(field, None)
    node = objects.Node(context, **values)
    node.provision_state = _initial_state(version)
    node = _driver_is_input(flask.g.rpcapi.create_node, context, node)
    return responses.json_response(
        _body(node), status=201,
        headers={'Location': responses.url('nodes', node.uuid)})


def _reset_interfaces(args, version, changes):
    """?reset_interfaces (1.45): reset the interfaces a new driver gets."""
    reset = query.boolean(args, 'reset_interfaces')
    if reset is None:
        return False
    versions.require(version, versions.MINOR_45_RESET_INTERFACES,
                     '?reset_interfaces')
    if 'driver' not in changes:
        raise exception.InvalidParameterValue(
            err='reset_interfaces applies only to a PATCH that changes the '
                "node's driver")
    return reset


@blueprint.patch('/<ident>')
def update(ident):
    context, version = flask.g.context, flask.g.version
    args = flask.request.args
    query.check_known(args, ('reset_interfaces',))
    patch = body.json_body()
    node = tenancy.node_to_patch(context, ident, version, patch)
    changes = node_patch.changes(node, patch, version)
    node_patch.forget_moved_credentials(node, changes, patch)
    _check_chassis(context, changes)
    node_family.resolve_parent(context, changes, owner=node.owner,
                               node_uuid=node.uuid)
    reset = _reset_interfaces(args, version, changes)
    if changes:
        for field, value in changes.items():
            setattr(node, field, value)
        node = _driver_is_input(flask.g.rpcapi.update_node, context, node,
                                reset_interfaces=reset)
    return responses.json_response(_body(node))


@blueprint.delete('/<ident>')
def delete(ident):
    context = flask.g.context
    node = tenancy.node_to_delete(context, ident, flask.g.version)
    flask.g.rpcapi.destroy_node(context, node.uuid)
    return responses.empty(204)
