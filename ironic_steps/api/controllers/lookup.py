"""/v1/lookup: an agent finds its node and gets its agent token.

Open to callers without credentials, like the heartbeat (see the
``baremetal:driver:ipa_lookup`` policy).  Only a node that an agent serves
now (deploying, cleaning, or waiting in either) can be looked up; any
other is not found, so the endpoint tells strangers nothing.  The first
lookup of a flow hands out the agent token (API 1.62) that the agent's
heartbeats must carry; later ones show it masked.

An agent names its node by ``node_uuid`` (a whole UUID, in either case),
or, as ironic-python-agent does, by ``addresses``: the MAC addresses of
its network interfaces, matched against the nodes' ports.  Addresses that
lead to no node, or to more than one, find nothing.

The answer's ``config`` is what ironic-python-agent reads from a lookup,
under Ironic's names: how often to heartbeat (``heartbeat_timeout``), its
token, which image formats it may write, and that the BMC is managed out
of band (no BMC detection in the ramdisk).
"""

import flask

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import node_resources
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import masking
from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF
from ironic_steps import objects

blueprint = flask.Blueprint('lookup', __name__, url_prefix='/v1/lookup')

_ENDPOINT_VERSION = (1, versions.MINOR_22_LOOKUP_HEARTBEAT)
_TOKEN_VERSION = (1, versions.MINOR_62_AGENT_TOKEN)
#: The node fields an agent needs, as Ironic returns them.
_NODE_FIELDS = ('uuid', 'properties', 'instance_info',
                'driver_internal_info')


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
    if node.provision_state not in step_kinds.AGENT_STATES:
        raise exception.NodeNotFound(node=node_uuid)
    config = {
        'heartbeat_timeout': CONF.api.ramdisk_heartbeat_timeout,
        'permitted_image_formats': CONF.conductor.permitted_image_formats,
        'disable_deep_image_inspection':
            CONF.conductor.disable_deep_image_inspection,
        'agent_md5_checksum_enable': False,
        'agent_skip_bmc_detect': True,
    }
    # Below 1.62 the agent could not read the token: hand none out.
    if version >= _TOKEN_VERSION:
        token = flask.g.rpcapi.get_node_with_token(flask.g.context,
                                                   node.uuid)
        if token is not None:
            config.update(agent_token=token, agent_token_required=True)
    return responses.json_response({
        'node': {field: masking.mask(getattr(node, field) or {})
                 if field != 'uuid' else node.uuid
                 for field in _NODE_FIELDS},
        'config': config})


#: The most addresses one lookup may name (a server's NICs, not a scan).
_MAX_ADDRESSES = 64


def _node_with_addresses(addresses):
    """The UUID of the one node whose ports carry any of ``addresses``.

    :raises MissingParameterValue: if no address is given.
    :raises NodeNotFound: if none, or several nodes, have such a port.
    """
    wanted = sorted({node_resources.canonical_mac('addresses',
                                                  address.strip())
                     for address in (addresses or '').split(',')
                     if address.strip()})
    if not wanted:
        raise exception.MissingParameterValue(
            err='A lookup needs node_uuid or addresses (the MAC addresses '
                'of the agent\'s network interfaces).')
    if len(wanted) > _MAX_ADDRESSES:  # each costs a query: bound them
        raise exception.InvalidParameterValue(
            err='A lookup may name at most %d addresses, got %d'
                % (_MAX_ADDRESSES, len(wanted)))
    nodes = {port.node_uuid for address in wanted
             for port in objects.Port.list_rows(
                 flask.g.context, filters={'address': address})}
    if len(nodes) != 1:
        raise exception.NodeNotFound(node='with a port of address %s' % (
            ' or '.join(wanted)))
    return nodes.pop()
