"""Node identifiers in URLs: a UUID or a logical name, never a database id.

Names that look like UUIDs or numbers are refused when set (see
:mod:`node_schema`), so an identifier is unambiguous; a number is not an
identifier at all, because database ids are internal.  Names identify
nodes from API 1.5, as in Ironic (and must be host names below 1.10);
before, only UUIDs do.
"""

import re

from oslo_utils import strutils
from oslo_utils import uuidutils

from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps import objects

_NAME = re.compile(r'^[A-Za-z0-9\-._~]+$')
#: What names were before 1.10, as Ironic still reads them at those versions.
HOSTNAME = re.compile(r'^[a-z0-9]([a-z0-9\-]{0,61}[a-z0-9])?'
                      r'(\.[a-z0-9\-_]{0,62}[a-z0-9])*\.?$')


def check(ident, version=None):
    """``ident`` if it can name a node at ``version`` (None: any version).

    :raises NodeNotFound: for a number, or a name before API 1.5 (no node
        can be found so).
    :raises InvalidUuidOrName: for what is neither a UUID nor a name.
    """
    if uuidutils.is_uuid_like(ident):
        return ident
    if strutils.is_int_like(ident) or (
            version is not None
            and version < versions.at(versions.MINOR_5_NODE_NAME)):
        raise exception.NodeNotFound(node=ident)
    name = _NAME
    if (version is not None and version
            < versions.at(versions.MINOR_10_UNRESTRICTED_NODE_NAME)):
        name = HOSTNAME
    if not name.match(ident) or len(ident) > 255:
        raise exception.InvalidUuidOrName(name=ident)
    return ident


def get_node(context, ident, version=None):
    """The node called ``ident``, in one query, as a Node to change.

    :raises NodeNotFound:
    """
    if uuidutils.is_uuid_like(ident):
        return objects.Node.get_by_uuid(context, ident)
    return objects.Node.get(context, check(ident, version))


def get_row(context, ident, version=None):
    """The node called ``ident``, in one query, as a row to read.

    :raises NodeNotFound:
    """
    return objects.Node.get_row(context, check(ident, version))
