"""Which node an agent runs on, found by what it knows of its machine.

An agent has no credentials and, before its first lookup, no node UUID:
it names its machine by the MAC addresses of its network interfaces
(``/v1/lookup``, ``/v1/continue_inspection``), matched against the nodes'
ports, and, when it reports an inventory, by the addresses of the
machine's BMC (``bmc_address``, ``bmc_v6address``), matched against those
an in-band inspection noted on its waiting node (the ``agent`` inspect
interface's :data:`inventory_format.LOOKUP_BMC_KEY`).  Whatever does
not lead to exactly one node finds nothing; what "nothing" says to the
caller is the endpoint's business.

An agent that found its node is answered alike by both endpoints
(:func:`answer`): the node's fields it reads, and its ``config``, what
ironic-python-agent reads from a lookup, under Ironic's names: how often
to heartbeat (``heartbeat_timeout``), its token, which image formats it
may write, and that the BMC is managed out of band (no BMC detection in
the ramdisk).
"""

import flask

from ironic_steps.api import node_resources
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import inventory_format
from ironic_steps.common import masking
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps import objects

#: The most addresses one request may name (a server's NICs, not a scan):
#: each costs a query.
MAX_ADDRESSES = 64


_TOKEN_VERSION = (1, versions.MINOR_62_AGENT_TOKEN)
#: The node fields an agent needs, as Ironic returns them.
_NODE_FIELDS = ('uuid', 'properties', 'instance_info',
                'driver_internal_info')


def check_count(what, addresses):
    """:raises InvalidParameterValue: for more than :data:`MAX_ADDRESSES`."""
    if len(addresses) > MAX_ADDRESSES:
        raise exception.InvalidParameterValue(
            err='%s may name at most %d addresses, got %d'
                % (what, MAX_ADDRESSES, len(addresses)))


def canonical_macs(field, addresses):
    """``addresses`` as ports store them, sorted, without repeats.

    :raises InvalidField: naming ``field`` for one that is no MAC address.
    """
    return sorted({node_resources.canonical_mac(field, address)
                   for address in addresses})


def nodes_with_ports(context, macs):
    """The UUIDs of the nodes with a port of one of ``macs`` (canonical,
    at most :data:`MAX_ADDRESSES`)."""
    return {port.node_uuid for address in macs
            for port in objects.Port.list_rows(
                context, filters={'address': address})}


def waiting_nodes_with_bmc(context, bmc_addresses):
    """The UUIDs of the nodes in ``inspect wait`` whose noted BMC
    addresses include one of ``bmc_addresses``."""
    wanted = set(bmc_addresses)
    return {row.uuid for row in objects.Node.list_fields(
        context, ('uuid', 'driver_internal_info'),
        filters={'provision_state': states.INSPECTWAIT})
        if wanted & set((row.driver_internal_info or {}).get(
            inventory_format.LOOKUP_BMC_KEY) or ())}


def answer(node, version):
    """What an agent that found ``node`` (a row) is told at ``version``:
    {'node': ..., 'config': ...}; the first time in a flow, its token."""
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
    return {'node': {field: masking.mask(getattr(node, field) or {})
                     if field != 'uuid' else node.uuid
                     for field in _NODE_FIELDS},
            'config': config}
