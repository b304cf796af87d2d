"""/v1/continue_inspection: an agent posts its machine's inventory (API
1.84), for a node inspected in band (the ``agent`` inspect interface).

Open to callers without credentials, like the lookup (see the
``baremetal:driver:ipa_continue_inspection`` policy); what protects the
nodes is what Ironic's endpoint does: only a node waiting for an
inventory (``inspect wait``, or still ``inspecting`` while its agent
boots) can be found, by what the inventory says of the machine
(:mod:`agent_nodes`: its NICs' MAC addresses, its BMC's address; or
``?node_uuid``), and any failure to find exactly one is the same 404, so
a stranger learns nothing.  The body is checked before anything else:
``inventory`` (ironic-python-agent's format, at least what the conductor
reads of it, :mod:`ironic_steps.common.inventory_format`, and a MAC
address for each interface) is required; every other key is *plugin
data*, stored with it.

The answer, 202, is a lookup's (the node and the agent's ``config`` with
its token, :func:`agent_nodes.answer`), as ironic-python-agent reads it.
At 1.1, the version of a request that names none, only ``{"uuid": ...}``:
ironic-python-agent posts without a version, to the ironic-inspector API
this replaces (Ironic does the same); between 1.2 and 1.83 the endpoint
does not exist (404).
"""

import flask
from oslo_log import log

from ironic_steps.api import agent_nodes
from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import inventory_format
from ironic_steps.common import states
from ironic_steps import objects

LOG = log.getLogger(__name__)

blueprint = flask.Blueprint('continue_inspection', __name__,
                            url_prefix='/v1/continue_inspection')

_ENDPOINT_VERSION = versions.at(versions.MINOR_84_CONTINUE_INSPECTION)
#: A node an inventory may be for.
_WAITING = (states.INSPECTWAIT, states.INSPECTING)


@blueprint.post('')
def continue_inspection():
    version = flask.g.version
    as_inspector = version == versions.MIN_VERSION
    if not as_inspector:
        versions.check_endpoint(version, _ENDPOINT_VERSION,
                                flask.request.path, method='POST')
    policy.authorize('baremetal:driver:ipa_continue_inspection',
                     flask.g.context)
    node_uuid = _node_uuid(version)
    data = body.json_body()
    if not isinstance(data, dict):
        raise errors.InvalidBody(reason='expected a JSON object with the '
                                 'inventory under "inventory"')
    inventory = _inventory(data)
    plugin_data = {key: value for key, value in data.items()
                   if key != 'inventory'}
    node = _find_node(node_uuid, _macs(inventory), _bmc_addresses(inventory))
    rpcapi, context = flask.g.rpcapi, flask.g.context
    # The token first, as Ironic does: recording the inventory may take a
    # while, and the lookup must not wait for it.
    answer = None if as_inspector else agent_nodes.answer(node, version)
    rpcapi.continue_inspection(context, node.uuid, inventory, plugin_data)
    return responses.json_response(answer or {'uuid': node.uuid},
                                   status=202)


def _node_uuid(version):
    args = flask.request.args
    query.check_known(args, ('node_uuid',))
    node_uuid = args.get('node_uuid')
    if node_uuid is None:
        return None
    versions.check_endpoint(version, _ENDPOINT_VERSION, flask.request.path,
                            method='POST')
    if not identifiers.is_uuid(node_uuid):
        raise exception.InvalidParameterValue(
            err='node_uuid must be a UUID, got %r' % (node_uuid[:64],))
    return node_uuid.lower()


def _inventory(data):
    """``data['inventory']``, checked.

    :raises InvalidBody: naming what is missing or malformed.
    """
    inventory = data.get('inventory')
    if not isinstance(inventory, dict):
        raise errors.InvalidBody(
            reason='"inventory" must be a JSON object (the agent\'s '
            'inventory), got %s' % ('nothing' if inventory is None
                                    else type(inventory).__name__))
    problem = inventory_format.problem(inventory) or _lookup_problem(
        inventory)
    if problem is not None:
        raise errors.InvalidBody(reason='the inventory is malformed %s'
                                 % problem)
    return inventory


def _lookup_problem(inventory):
    """What the node cannot be looked up by in a well-formed inventory,
    as Ironic's minimal inventory says, or None."""
    if not inventory['interfaces']:
        return 'at interfaces: the machine has no network interface'
    for index, interface in enumerate(inventory['interfaces']):
        if not isinstance(interface.get('mac_address'), str):
            return 'at interfaces/%d: it has no mac_address' % index
    for key in ('bmc_address', 'bmc_v6address'):
        value = inventory.get(key)
        if value is not None and not isinstance(value, str):
            return 'at %s: %.64r is not a string' % (key, value)
    return None


def _macs(inventory):
    """The interfaces' valid MAC addresses, canonical (others ignored, as
    Ironic ignores them)."""
    macs = set()
    for interface in inventory['interfaces']:
        try:
            macs.update(agent_nodes.canonical_macs(
                'mac_address', [interface['mac_address']]))
        except errors.InvalidField:
            LOG.debug('Inventory: %r is no MAC address; not looked up',
                      interface['mac_address'][:64])
    agent_nodes.check_count('An inventory', macs)
    return sorted(macs)


def _bmc_addresses(inventory):
    return [address for address in (inventory.get('bmc_address'),
                                    inventory.get('bmc_v6address'))
            if address]


def _find_node(node_uuid, macs, bmc_addresses):
    """The one node waiting for this inventory, as Ironic's lookup finds
    it: by UUID if given, by ports, then by BMC addresses, each agreeing
    with the previous.

    :raises InvalidBody: when the inventory names nothing to look by.
    :raises InspectedNodeNotFound: otherwise, whatever the reason.
    """
    if not (node_uuid or macs or bmc_addresses):
        raise errors.InvalidBody(
            reason='nothing to find the node by: no interface of the '
            'inventory has a valid MAC address and it has no bmc_address')
    context = flask.g.context
    found = {node_uuid} if node_uuid else set()
    for candidates in (
            agent_nodes.nodes_with_ports(context, macs) if macs else set(),
            agent_nodes.waiting_nodes_with_bmc(context, bmc_addresses)
            if bmc_addresses else set()):
        if len(candidates) > 1 or (found and candidates
                                   and not candidates & found):
            LOG.warning('Inventory with MAC addresses %s and BMC address '
                        '%s matches several nodes: %s', ', '.join(macs),
                        ', '.join(bmc_addresses),
                        ', '.join(sorted(found | candidates)))
            raise exception.InspectedNodeNotFound()
        found = found or candidates
    if not found:
        raise exception.InspectedNodeNotFound()
    try:
        node = objects.Node.get_row(context, found.pop())
    except exception.NodeNotFound:
        raise exception.InspectedNodeNotFound() from None
    if node.provision_state not in _WAITING:
        LOG.warning('Inventory for node %s refused: it is %s, not waiting '
                    'for one', node.uuid, node.provision_state)
        raise exception.InspectedNodeNotFound()
    return node
