"""Parent and child nodes (API 1.83): what a ``parent_node`` may name.

A node's ``parent_node`` is the UUID of the node it is part of (a DPU's
host, a chassis-like server): given as another node's UUID or name, it is
stored as that node's UUID (:func:`resolve_parent`).  As in Ironic the
parent must exist and have the child's ``owner``; a node cannot be its
own parent.  The list filter ``?parent_node`` takes a UUID or name too
(:func:`parent_filter`).  Whether a node with children may be deleted is
the conductor's to say (``conductor/node_updates.py``); the children of a
node are listed by ``controllers/node_children.py``.
"""

from oslo_utils import strutils

from ironic_steps.api import identifiers
from ironic_steps.common import exception
from ironic_steps import objects


def _parent_row(context, ident):
    """The node called ``ident`` (UUID or name), or None."""
    if identifiers.is_uuid(ident):
        ident = ident.lower()
    elif not identifiers.is_name(ident) or strutils.is_int_like(ident):
        return None   # a database id is not an identifier
    try:
        return objects.Node.get_row(context, ident)
    except exception.NodeNotFound:
        return None


def resolve_parent(context, values, owner, node_uuid=None):
    """Replace ``values['parent_node']`` (a UUID or name, if set) with the
    UUID of the node it names.

    :param owner: the ``owner`` of the node that gets the parent.
    :param node_uuid: that node's UUID (None: a node being created).
    :raises InvalidParameterValue: (400) naming the value, for a node
        that does not exist, has another owner, or is the node itself.
    """
    ident = values.get('parent_node')
    if ident is None:
        return
    parent = _parent_row(context, ident)
    if parent is None:
        raise exception.InvalidParameterValue(
            err='Unable to apply the requested parent_node %r: no node has '
                'that UUID or name' % (ident,))
    if parent.uuid == node_uuid:
        raise exception.InvalidParameterValue(
            err='Unable to apply the requested parent_node %r: a node '
                'cannot be its own parent' % (ident,))
    if parent.owner != owner:
        raise exception.InvalidParameterValue(
            err='Unable to apply the requested parent_node %r: its owner '
                '(%s) is not the owner of the node (%s)' % (
                    ident, parent.owner, owner))
    values['parent_node'] = parent.uuid


def parent_filter(context, ident):
    """The UUID ``?parent_node=ident`` filters on: the node's that
    ``ident`` names; a UUID or name no node has filters on itself, which
    no node's parent_node holds (the list is empty)."""
    parent = _parent_row(context, ident)
    return parent.uuid if parent is not None else ident
