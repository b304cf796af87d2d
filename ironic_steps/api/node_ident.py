"""Node identifiers in URLs: a UUID or a logical name, never a database id.

Names that look like UUIDs or numbers are refused when set (see
:mod:`node_schema`), so an identifier is unambiguous; a number is not an
identifier at all, because database ids are internal.  A UUID is looked up
in its canonical lower case, whatever case the URL has; anything that is
neither a UUID nor a valid name names no node.
"""

from oslo_utils import strutils

from ironic_steps.api import identifiers
from ironic_steps.common import exception
from ironic_steps import objects


def check(ident):
    """``ident`` as it is looked up: a canonical UUID or a name.

    :raises NodeNotFound: for anything else (a number, a malformed name),
        which no node can be called.
    """
    if identifiers.is_uuid(ident):
        return ident.lower()
    if not identifiers.is_name(ident) or strutils.is_int_like(ident):
        raise exception.NodeNotFound(node=ident)
    return ident


def get_node(context, ident):
    """The node called ``ident``, in one query, as a Node to change.

    :raises NodeNotFound:
    """
    ident = check(ident)
    if identifiers.is_uuid(ident):
        return objects.Node.get_by_uuid(context, ident)
    return objects.Node.get(context, ident)


def get_row(context, ident, with_traits=False):
    """The node called ``ident``, in one query, as a row to read (with
    its ``traits`` if ``with_traits``).

    :raises NodeNotFound:
    """
    return objects.Node.get_row(context, check(ident), with_traits)
