"""Whose nodes a caller sees and changes: project scoping of the API.

Every controller that reads or changes a node, or something that hangs
off one (its ports, portgroups, volume connectors and targets, traits,
BIOS settings, firmware, history, inventory, steps, virtual media,
states), asks here, with the rule of its endpoint, instead of asking
:mod:`policy` alone.  As in Ironic 39:

* A **system** caller (:func:`policy.is_system`: a system-scoped token,
  the noauth caller, an HTTP basic user without a project) is checked as
  before, the rule first, then the node is read: its rules look at roles
  and scope only, and the answer is remembered (no cost per request on
  the noauth path).
* A **project** caller is checked against the node's ``owner`` and
  ``lessee`` (the ``node.owner`` and ``node.lessee`` targets of
  :mod:`policy_defaults`): first whether it may see the node at all
  (``baremetal:node:get``), else the node does not exist for it (404, the
  same answer as for a node that does not exist), then the endpoint's
  rule (403 naming the rule).
* Lists (:func:`list_project`) are filtered to the caller's project in
  the database query (the project owns or leases the node) unless
  ``baremetal:<kind>:list_all`` allows all; a list's ``?node=`` naming a
  node the caller may not see is answered as for a node that does not
  exist (:func:`filter_node_row`).
* Node bodies (:func:`redact_nodes`) leave out, below
  ``baremetal:node:get:filter_threshold``, what the per-field ``get``
  rules do not allow, in Ironic's shapes (a text for ``last_error`` and
  ``reservation``, ``{"content": ...}`` for ``driver_info`` and
  ``driver_internal_info``).
* A PATCH of a node (:func:`patch_rules`) needs the rule of each field
  it writes (``baremetal:node:update:<field>``, ``update_extra``,
  ``update_instance_info``, ...) and, for a field a JSON patch copies or
  moves from, the rule that shows it; a project admin creates and deletes
  nodes its project owns from API 1.80 (:func:`authorize_create`,
  :func:`node_to_delete`).
* Allocations are scoped by their own ``owner`` (:func:`allocation`); a
  project caller's new one is its project's
  (:func:`authorize_allocation_create`).

Not here: the rules themselves (:mod:`policy_defaults`), enforcing them
(:mod:`policy`), masking of secrets (:mod:`node_view`).
"""

from ironic_steps.api import node_ident
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import interfaces
from ironic_steps.common import states
from ironic_steps import objects

NODE_GET = 'baremetal:node:get'
FILTER_THRESHOLD = 'baremetal:node:get:filter_threshold'

_REDACTED_TEXT = '** Redacted - requires %s permission. **'
#: Fields a project caller below the filter threshold may not see without
#: their rule: field -> (rule, the value shown instead).
_REDACTED = {
    'last_error': ('baremetal:node:get:last_error', str),
    'reservation': ('baremetal:node:get:reservation', str),
    'driver_info': ('baremetal:node:get:driver_info', dict),
    'driver_internal_info': ('baremetal:node:get:driver_internal_info',
                             dict),
}


def _shown_instead(field):
    rule, shape = _REDACTED[field]
    text = _REDACTED_TEXT % rule
    return {'content': text} if shape is dict else text


def node_target(node):
    """The policy target of ``node`` (a row or a Node): its owner and
    lessee, only those it has (an empty one matches no project)."""
    target = {}
    if node.owner:
        target['node.owner'] = node.owner
    if node.lessee:
        target['node.lessee'] = node.lessee
    return target


def _rules(rule):
    return (rule,) if isinstance(rule, str) else tuple(rule)


def authorize_node(rule, context, node, ident=None):
    """Check ``rule`` (one name or several) for ``context`` on ``node``.

    :raises NodeNotFound: (naming ``ident``, else the node's UUID) when a
        project caller may not see the node.
    :raises Forbidden: naming the first rule refused.
    """
    if policy.is_system(context):
        for name in _rules(rule):
            policy.authorize(name, context)
        return
    target = node_target(node)
    if not policy.allowed(NODE_GET, context, target):
        raise exception.NodeNotFound(node=ident or node.uuid)
    for name in _rules(rule):
        if name != NODE_GET:
            policy.authorize(name, context, target)


def record(rule, context, find, what):
    """The record ``find()`` returns (a port, portgroup, volume connector
    or target: its node's; a chassis: the system's), which ``context`` may
    do ``rule`` to.

    :param what: the record's name in messages ('port').
    :raises ResourceNotFound: a project caller's record of a node it may
        not see, as if it did not exist.
    :raises Forbidden:
    """
    if policy.is_system(context):
        policy.authorize(rule, context)
        return find()
    item = find()
    node_uuid = getattr(item, 'node_uuid', None)
    if node_uuid is None:
        policy.authorize(rule, context)
        return item
    try:
        authorize_node(rule, context,
                       objects.Node.get_row(context, node_uuid))
    except exception.NodeNotFound as exc:
        raise exception.ResourceNotFound(what=what.capitalize(),
                                         ident=item.uuid) from exc
    return item


def authorize_record_node(rule, context, values):
    """Check ``rule`` on the node a record will hang off (``node_uuid``
    of ``values``, a create or a change).

    :raises NodeNotFound: for a node a project caller may not see.
    :raises Forbidden:
    """
    if policy.is_system(context) or not values.get('node_uuid'):
        policy.authorize(rule, context)
        return
    node = objects.Node.get_row(context, values['node_uuid'])
    authorize_node(rule, context, node, values['node_uuid'])


def authorize_ident(rule, context, ident, version):
    """Check ``rule`` for ``context`` on the node called ``ident``, for an
    endpoint that reads the node itself afterwards (if at all): a system
    caller's check reads nothing, a project caller's reads the node.

    :raises Forbidden:
    :raises NodeNotFound:
    """
    if policy.is_system(context):
        authorize_node(rule, context, None)
    else:
        node_row(rule, context, ident, version)


def node_row(rule, context, ident, version, with_traits=False):
    """The row of the node called ``ident``, which ``context`` may do
    ``rule`` to (see :func:`authorize_node`).

    :raises Forbidden:
    :raises NodeNotFound:
    """
    if policy.is_system(context):
        authorize_node(rule, context, None)
        return node_ident.get_row(context, ident, version, with_traits)
    row = node_ident.get_row(context, ident, version, with_traits)
    authorize_node(rule, context, row, ident)
    return row


def filter_node_row(context, ident, version):
    """The row of the node called ``ident`` in a list's ``?node=``
    filter (ports, portgroups, volume connectors and targets,
    allocations): a project caller that may not see the node is told it
    does not exist, exactly as for a node that does not exist, so a
    filter does not reveal another project's nodes.

    :raises NodeNotFound: naming ``ident``.
    """
    row = node_ident.get_row(context, ident, version)
    if not policy.is_system(context) and not policy.allowed(
            NODE_GET, context, node_target(row)):
        raise exception.NodeNotFound(node=ident)
    return row


def read(context, ident, version, rule, args):
    """The row of the node called ``ident``, for a read of something of
    it that needs the policy ``rule`` and takes no query parameters
    (``args``, the request's).

    :raises Forbidden:
    :raises InvalidParameterValue: naming a query parameter given.
    :raises NodeNotFound:
    """
    authorize_ident(rule, context, ident, version)
    query.check_known(args, ())
    return node_ident.get_row(context, ident, version)


def node_object(rule, context, ident, version):
    """As :func:`node_row`, the node as a Node to change."""
    if policy.is_system(context):
        authorize_node(rule, context, None)
        return node_ident.get_node(context, ident, version)
    node = node_ident.get_node(context, ident, version)
    authorize_node(rule, context, node, ident)
    return node


def list_project(kind, context):
    """The project whose records of ``kind`` ('node', 'port', ...) a list
    shows, or None for all of them.

    :raises Forbidden: naming ``baremetal:<kind>:list_all`` for a caller
        with no project who may not list all, or ``baremetal:<kind>:list``.
    """
    list_all = 'baremetal:%s:list_all' % kind
    if policy.allowed(list_all, context):
        return None
    if not context.project_id:
        policy.authorize(list_all, context)
    policy.authorize('baremetal:%s:list' % kind, context)
    return context.project_id


def extra_columns(context):
    """The columns a list must read besides those it shows, to redact
    its bodies (:func:`redact_nodes`)."""
    return () if policy.is_system(context) else ('owner', 'lessee')


def redact_nodes(context, pairs):
    """Redact the bodies of ``pairs`` ((body, row) each) in place."""
    if policy.allowed(FILTER_THRESHOLD, context):
        return
    answers = {}
    for body, row in pairs:
        for field in _REDACTED.keys() & body.keys():
            rule = _REDACTED[field][0]
            # Few (owner, lessee) pairs in a page: one check for each.
            key = (rule, row.owner, row.lessee)
            if key not in answers:
                answers[key] = policy.allowed(rule, context, node_target(row))
            if not answers[key]:
                body[field] = _shown_instead(field)


def _allocation_target(allocation):
    return ({'allocation.owner': allocation.owner} if allocation.owner
            else {})


def authorize_allocation_create(context, values, backfilled):
    """Check that ``context`` may create the allocation of ``values``
    (the checked body), backfilling the node row ``backfilled`` (or
    None).  A project caller's allocation is its project's (``owner`` set
    in ``values``), unless ``baremetal:allocation:create_restricted``
    lets it name another; its node one it sees (the conductor gives it
    only nodes its project owns or leases).

    :raises Forbidden:
    :raises NotOwnProject: for another owner, without create_restricted.
    :raises NodeNotFound: for a backfilled node the caller may not see.
    """
    policy.authorize('baremetal:allocation:create', context)
    if policy.is_system(context):
        return
    project = context.project_id
    owner = values.setdefault('owner', project)
    if owner != project and not policy.allowed(
            'baremetal:allocation:create_restricted', context):
        raise exception.NotOwnProject(project=project, owner=owner,
                                      what='allocations')
    if backfilled is not None:
        authorize_node(NODE_GET, context, backfilled)


def allocation(rule, context, find, ident):
    """The allocation ``find()`` returns, which ``context`` may do
    ``rule`` to (scoped by the allocation's owner).

    :raises AllocationNotFound: when a project caller may not see it
        (naming ``ident``), as if it did not exist.
    :raises Forbidden:
    """
    if policy.is_system(context):
        policy.authorize(rule, context)
        return find()
    found = find()
    target = _allocation_target(found)
    if not policy.allowed('baremetal:allocation:get', context, target):
        raise exception.AllocationNotFound(allocation=ident)
    policy.authorize(rule, context, target)
    return found


_NODE_CREATE = 'baremetal:node:create'
_NODE_DELETE = 'baremetal:node:delete'
_SELF_OWNED = versions.at(versions.MINOR_80_PROJECT_CREATE_DELETE_NODE)


def authorize_create(context, payload, version):
    """Check that ``context`` may create the node ``payload`` (a request
    body) asks for; a project caller's node is its project's (``owner``
    set in ``payload`` if absent).

    :raises Forbidden: naming the rule refused.
    :raises NotOwnProject: for a project caller's node owned by another.
    """
    if policy.allowed(_NODE_CREATE, context):
        return
    project = context.project_id
    if not project or version < _SELF_OWNED:
        policy.authorize(_NODE_CREATE, context)
    policy.authorize(_NODE_CREATE + ':self_owned_node', context)
    if not isinstance(payload, dict):
        return   # the schema says what is wrong with it
    owner = payload.setdefault('owner', project)
    if owner != project:
        raise exception.NotOwnProject(project=project, owner=owner,
                                      what='nodes')


def node_to_delete(context, ident, version):
    """The row of the node called ``ident``, which ``context`` may delete
    (a project admin: one its project owns, from API 1.80).

    :raises Forbidden:
    :raises NodeNotFound:
    """
    if (policy.is_system(context) or not context.project_id
            or version < _SELF_OWNED):
        return node_row(_NODE_DELETE, context, ident, version)
    row = node_row(NODE_GET, context, ident, version)
    if not policy.allowed(_NODE_DELETE, context, node_target(row)):
        authorize_node(_NODE_DELETE + ':self_owned_node', context, row,
                       ident)
    return row


#: The rule a PATCH of a path needs, by its first segment (Ironic's).
_FIELD_RULES = {
    'instance_info': 'baremetal:node:update_instance_info',
    'extra': 'baremetal:node:update_extra',
    'driver': 'baremetal:node:update:driver_interfaces',
    'retired_reason': 'baremetal:node:update:retired',
    **{field: 'baremetal:node:update:' + field for field in (
        'driver_info', 'properties', 'chassis_uuid', 'instance_uuid',
        'lessee', 'owner', 'network_data', 'conductor_group', 'name',
        'retired', 'shard', 'parent_node', 'disable_power_off')},
    **{interface + '_interface': 'baremetal:node:update:driver_interfaces'
       for interface in interfaces.ALL_INTERFACES},
}
_OWNER_PROVISIONED = 'baremetal:node:update_owner_provisioned'


def _field(path):
    return path.lstrip('/').split('/', 1)[0] if isinstance(path, str) else None


def patch_rules(patch, node=None):
    """The rules a JSON ``patch`` of a node needs, the generic
    ``baremetal:node:update`` for fields no rule names.

    :param node: the node, once read: changing the owner of a deployed
        one needs ``baremetal:node:update_owner_provisioned`` too.
    """
    needed = []
    generic = False
    for operation in patch if isinstance(patch, list) else ():
        if not isinstance(operation, dict):
            generic = True
            continue
        field = _field(operation.get('path'))
        rule = _FIELD_RULES.get(field)
        if (field == 'automated_clean' and operation.get('op') != 'remove'
                and operation.get('value') in (False, 'false', 'False')):
            rule = 'baremetal:node:disable_cleaning'
        if rule is None:
            generic = True
        else:
            needed.append(rule)
        # A field copied or moved elsewhere is read: one the caller may
        # not see must not reach a field it may.
        source = _field(operation.get('from'))
        if source in _REDACTED:
            needed.append(_REDACTED[source][0])
        if (field == 'owner' and node is not None
                and node.provision_state == states.ACTIVE):
            needed.append(_OWNER_PROVISIONED)
    if generic or not needed:
        needed.insert(0, 'baremetal:node:update')
    return tuple(dict.fromkeys(needed))


def node_to_patch(context, ident, version, patch):
    """The node called ``ident`` as a Node, which ``context`` may change
    as the JSON ``patch`` says (see :func:`patch_rules`).

    :raises Forbidden: naming the rule of the first field refused.
    :raises NodeNotFound:
    """
    node = node_object(patch_rules(patch), context, ident, version)
    if _OWNER_PROVISIONED in patch_rules(patch, node):
        authorize_node(_OWNER_PROVISIONED, context, node, ident)
    return node
