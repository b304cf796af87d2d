"""/v1/lookup: an agent finds its node and gets its agent token.

Open to callers without credentials, like the heartbeat (see the
``baremetal:driver:ipa_lookup`` policy).  Only a node that an agent serves
now (deploying, cleaning, inspecting in band, or waiting in any of them)
can be looked up; any other is not found, so the endpoint tells strangers
nothing.  The first
lookup of a flow hands out the agent token (API 1.62) that the agent's
heartbeats must carry; later ones show it masked.

An agent names its node by ``node_uuid`` (a whole UUID, in either case),
or, as ironic-python-agent does, by ``addresses``: the MAC addresses of
its network interfaces, matched against the nodes' ports.  Addresses that
lead to no node, or to more than one, find nothing.

The answer is :func:`agent_nodes.answer`'s: the node's fields an agent
reads and its ``config``.
"""

import flask

from ironic_steps.api import agent_nodes
from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import step_kinds
from ironic_steps import objects

blueprint = flask.Blueprint('lookup', __name__, url_prefix='/v1/lookup')

_ENDPOINT_VERSION = (1, versions.MINOR_22_LOOKUP_HEARTBEAT)


@blueprint.get('')
def lookup():
    version = flask.g.version
    if version < _ENDPOINT_VERSION:
        raise errors.EndpointNotInVersion(
            path=flask.request.path,
            needed=versions.to_string(_ENDPOINT_VERSION),
            version=versions.to_string(version))
    policy.authorize('baremetal:driver:ipa_lookup', flask.g.context)
    args = flask.request.args
    query.check_known(args, ('node_uuid', 'addresses'))
    node_uuid = args.get('node_uuid')
    if node_uuid is not None:
        if not identifiers.is_uuid(node_uuid):
            raise exception.InvalidParameterValue(
                err='node_uuid must be a UUID, got %r' % (node_uuid,))
        node_uuid = node_uuid.lower()
    else:
        node_uuid = _node_with_addresses(args.get('addresses'))
    node = objects.Node.get_row(flask.g.context, node_uuid)
    if node.provision_state not in step_kinds.LOOKUP_STATES:
        raise exception.NodeNotFound(node=node_uuid)
    return responses.json_response(agent_nodes.answer(node, version))


def _node_with_addresses(addresses):
    """The UUID of the one node whose ports carry any of ``addresses``.

    :raises MissingParameterValue: if no address is given.
    :raises NodeNotFound: if none, or several nodes, have such a port.
    """
    wanted = agent_nodes.canonical_macs('addresses', [
        address.strip() for address in (addresses or '').split(',')
        if address.strip()])
    if not wanted:
        raise exception.MissingParameterValue(
            err='A lookup needs node_uuid or addresses (the MAC addresses '
                'of the agent\'s network interfaces).')
    agent_nodes.check_count('A lookup', wanted)
    nodes = agent_nodes.nodes_with_ports(flask.g.context, wanted)
    if len(nodes) != 1:
        raise exception.NodeNotFound(node='with a port of address %s' % (
            ' or '.join(wanted)))
    return nodes.pop()
