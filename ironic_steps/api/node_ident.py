"""Node identifiers in URLs: a UUID or a logical name, never a database id.

Names that look like UUIDs or numbers are refused when set (see
:mod:`node_schema`), so an identifier is unambiguous; a number is not an
identifier at all, because database ids are internal.  A UUID is looked up
in its canonical lower case, whatever case the URL has; identifiers are
matched whole (see :mod:`identifiers`).  Names identify nodes from API
1.5, as in Ironic, and below 1.10 only host names do; before 1.5, only
UUIDs do.  Every lookup of a node in a URL passes the request's version,
so these gates hold on every endpoint (and so does the ``.json`` suffix
of :mod:`json_suffix`, below 1.91); :func:`blueprint` and :func:`tenancy.read`
are what a read-only endpoint under a node (its inventory, its children)
is made of.
"""

import flask
from oslo_utils import strutils

from ironic_steps.api import identifiers
from ironic_steps.api import json_suffix
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps import objects

_NAMES_VERSION = versions.at(versions.MINOR_5_NODE_NAME)
_ANY_NAME_VERSION = versions.at(versions.MINOR_10_UNRESTRICTED_NODE_NAME)


def is_valid_name(name, version):
    """Whether ``name`` is a node name at ``version`` (host names only
    below 1.10, as Ironic reads them there)."""
    if version < _ANY_NAME_VERSION:
        return identifiers.is_host_name(name)
    return identifiers.is_name(name)


def check(ident, version):
    """``ident`` as it is looked up at ``version``: a canonical UUID or a
    name.

    :raises NodeNotFound: for a number, or a name before API 1.5 (no node
        can be found so).
    :raises InvalidUuidOrName: (400, as Ironic) for what is neither a
        UUID nor a name at ``version``.
    """
    if identifiers.is_uuid(ident):
        return ident.lower()
    if strutils.is_int_like(ident) or version < _NAMES_VERSION:
        raise exception.NodeNotFound(node=ident)
    if not is_valid_name(ident, version):
        raise exception.InvalidUuidOrName(name=ident)
    return ident


def get_node(context, ident, version):
    """The node called ``ident``, in one query, as a Node to change.

    :raises NodeNotFound:
    """
    def find(name):
        name = check(name, version)
        if identifiers.is_uuid(name):
            return objects.Node.get_by_uuid(context, name)
        return objects.Node.get(context, name)

    return json_suffix.with_suffix(find, ident, exception.NodeNotFound)


def get_row(context, ident, version, with_traits=False):
    """The node called ``ident``, in one query, as a row to read (with
    its ``traits`` if ``with_traits``).

    :raises NodeNotFound:
    """
    def find(name):
        name = check(name, version)
        if identifiers.is_uuid(name):
            return objects.Node.get_row_by_uuid(context, name, with_traits)
        return objects.Node.get_row(context, name, with_traits)

    return json_suffix.with_suffix(find, ident, exception.NodeNotFound)


def blueprint(name, path, minor):
    """The blueprint of ``/v1/nodes/<ident>/<path>``, something of a node
    that exists from API 1.``minor`` (404 below, see
    :func:`versions.gate`)."""
    made = flask.Blueprint(name, __name__,
                           url_prefix='/v1/nodes/<ident>/%s' % path)
    versions.gate(made, minor)
    return made


def get_uuid(context, ident, version):
    """The UUID of the node called ``ident``, for a request the conductor
    carries out on the node it locks.

    A UUID is taken as it is, without a query: the conductor finds the
    node, or answers NodeNotFound as a lookup here would.  A name costs
    a query.

    :raises NodeNotFound: for a name no node has.
    """
    if identifiers.is_uuid(ident):
        return check(ident, version)
    return get_row(context, ident, version).uuid
