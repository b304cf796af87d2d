"""Node identifiers in URLs: a UUID or a logical name, never a database id.

Names that look like UUIDs or numbers are refused when set (see
:mod:`node_schema`), so an identifier is unambiguous; a number is not an
identifier at all, because database ids are internal.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps import objects


def check(ident):
    """``ident`` if it can name a node.

    :raises NodeNotFound: for a number (no node can be named so).
    """
    if strutils.is_int_like(ident) and not uuidutils.is_uuid_like(ident):
        raise exception.NodeNotFound(node=ident)
    return ident


def get_node(context, ident):
    """The node called ``ident``, in one query, as a Node to change.

    :raises NodeNotFound:
    """
    if uuidutils.is_uuid_like(ident):
        return objects.Node.get_by_uuid(context, ident)
    return objects.Node.get(context, check(ident))


def get_row(context, ident, with_traits=False):
    """The node called ``ident``, in one query, as a row to read (with
    its ``traits`` if ``with_traits``).

    :raises NodeNotFound:
    """
    return objects.Node.get_row(
        context, ident if uuidutils.is_uuid_like(ident) else check(ident),
        with_traits)
