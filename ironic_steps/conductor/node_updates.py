"""Which changes a node record may take, and what a change implies.

The API checks each field's type (``api/node_schema.py``); this module
checks the rules between fields and the node's state, under the node's
lock, as Ironic's conductor does:

* the driver and the interfaces do not change under a running or waiting
  flow; a new driver keeps the interfaces it supports unless asked to
  reset them (``reset_interfaces``);
* ``protected`` is set only on an ``active`` node, and a protected node
  is not torn down, rebuilt or deleted (:func:`check_not_protected`);
  ``protected_reason`` needs ``protected``, and goes with it;
* ``retired`` is not set on an ``available`` node, and a retired node is
  not provided (:func:`check_not_retired`); ``retired_reason`` needs
  ``retired``, and goes with it;
* leaving maintenance clears ``maintenance_reason`` and ``fault``;
* a node that is another's ``parent_node`` is not deleted
  (:func:`check_no_children`).

It never saves a node: the caller does, once the checks passed.
"""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.drivers import base
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

INTERFACE_FIELDS = frozenset('%s_interface' % i for i in base.ALL_INTERFACES)
#: Driver and interfaces cannot change under a running or waiting flow.
_BUSY_STATES = step_kinds.UNDER_WAY_STATES
#: Where a node may be made protected (Ironic also allows rescue).
_PROTECTABLE_STATES = (states.ACTIVE,)
#: Where a node may not be made retired: it would be handed out next.
_NOT_RETIRABLE_STATES = (states.AVAILABLE,)


def check_not_protected(node, action):
    """:raises NodeProtected: (403) if ``node`` is protected."""
    if node.protected:
        raise exception.NodeProtected(node=node.uuid, action=action)


def check_not_retired(node, action):
    """:raises NodeIsRetired: (400) if ``node`` is retired."""
    if node.retired:
        raise exception.NodeIsRetired(node=node.uuid, action=action)


def check_no_children(context, node):
    """:raises NodeHasChildren: (409) naming the nodes whose
    ``parent_node`` is ``node`` (a few, if it has many)."""
    children = objects.Node.list_fields(
        context, ('uuid',), filters={'parent_node': node.uuid}, limit=6)
    if children:
        shown = [row.uuid for row in children[:5]]
        if len(children) > 5:
            shown.append('more')
        raise exception.NodeHasChildren(node=node.uuid,
                                        children=', '.join(shown))


def _paired_flag(node, changes, state, flag, reason, allowed, rule):
    """Check a flag and its reason (protected, retired)."""
    if flag in changes:
        if not getattr(node, flag):
            setattr(node, reason, None)
        elif not allowed(state):
            raise exception.NodeInWrongState(
                node=node.uuid, action='made %s (%s)' % (flag, rule),
                state=state)
    if reason in changes and getattr(node, reason) and not getattr(
            node, flag):
        raise exception.InvalidParameterValue(
            err='%s can only be set on a node that is %s; node %s is not'
                % (reason, flag, node.uuid))


def _interfaces(node, changes, current_state, reset_interfaces):
    if not changes & (INTERFACE_FIELDS | {'driver'}):
        return
    if current_state in _BUSY_STATES:
        raise exception.NodeInWrongState(
            node=node.uuid, action='given a new driver or interface',
            state=current_state)
    reset = reset_interfaces or reset_interfaces is None
    if 'driver' in changes and reset:
        for field in INTERFACE_FIELDS - changes:
            setattr(node, field, None)
    driver_factory.check_and_update_node_interfaces(node)


def apply(node, changes, current_state, reset_interfaces=None):
    """Check ``node``'s ``changes`` (field names) and complete them.

    :param node: the node with its changes applied, not yet saved.
    :param current_state: the provision state it has under the lock.
    :param reset_interfaces: whether a new driver resets the interfaces
        the change does not name (Ironic's ``?reset_interfaces``); None,
        from callers before RPC 1.2, resets them as those callers expect.
    :raises InvalidParameterValue, NodeInWrongState,
        InterfaceNotFoundInEntrypoint, DriverNotFound:
    """
    if 'maintenance' in changes and not node.maintenance:
        node.maintenance_reason = None
        node.fault = None
    _paired_flag(node, changes, current_state, 'protected',
                 'protected_reason',
                 lambda state: state in _PROTECTABLE_STATES,
                 'only an active node can be')
    _paired_flag(node, changes, current_state, 'retired', 'retired_reason',
                 lambda state: state not in _NOT_RETIRABLE_STATES,
                 'an available node cannot be: manage it first')
    _interfaces(node, changes, current_state, reset_interfaces)
