"""In-band inspection: ironic-python-agent reports the hardware (the
``agent`` inspect interface, release 0.12; Ironic's of that name).

1. :meth:`AgentInspect.inspect_hardware` boots the agent's ramdisk
   through the node's boot interface, as the ``direct`` deploy does
   (:func:`agent.boot_agent`), and the node waits in ``inspect wait``.
   Before it does, it notes the addresses of the node's BMC
   (:data:`LOOKUP_KEY`), by which the agent's report may find the node
   when no port carries one of its MAC addresses.
2. The agent posts its inventory to ``/v1/continue_inspection`` (API
   1.84), which finds the node and hands the inventory to its conductor;
   :meth:`AgentInspect.continue_inspection` powers the agent off and
   gives the conductor back what it found (the conductor records it as it
   records an out-of-band inspection).
3. :meth:`AgentInspect.abort` powers the agent off.

The addresses are those of every ``driver_info`` field named
``*_address`` (``redfish_address``, ...): the host of a URL, each address
a host name resolves to, never a loopback address (many nodes' BMCs
would share one; Ironic ignores them too).
"""

import ipaddress
import socket
import urllib.parse

from oslo_log import log

from ironic_steps.common import inventory_format
from ironic_steps.drivers import base
from ironic_steps.drivers import inspection
from ironic_steps.drivers.modules import agent

LOG = log.getLogger(__name__)

#: ``driver_internal_info`` key: the BMC addresses an agent's inventory
#: may name to find this node, while it waits.
LOOKUP_KEY = inventory_format.LOOKUP_BMC_KEY


def _is_loopback(address):
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == 'localhost'


def _resolved(host):
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        LOG.warning('BMC host %s does not resolve (%s): an agent cannot '
                    'find its node by it', host, exc)
        return set()
    return {info[4][0] for info in found}


def bmc_addresses(driver_info):
    """The addresses of the BMC ``driver_info`` names, sorted (see the
    module's docstring)."""
    found = set()
    for field, value in (driver_info or {}).items():
        if not field.endswith('_address') or not isinstance(value, str):
            continue
        host = (urllib.parse.urlsplit(value).hostname if '//' in value
                else value.strip('[]'))
        if not host:
            continue
        found.update(address for address in _resolved(host) | {host}
                     if not _is_loopback(address))
    return sorted(found)


def _forget_lookup(node):
    info = node.driver_internal_info or {}
    if LOOKUP_KEY in info:
        node.driver_internal_info = {key: value for key, value
                                     in info.items() if key != LOOKUP_KEY}


class AgentInspect(base.InspectInterface):
    """Boots the agent; its inventory arrives later, through the API."""

    #: Not offered, nor given to new nodes, while pinned before it.
    since_release = '0.12'

    def validate(self, task):
        """What the node's boot interface needs to boot the agent for an
        inspection (redfish: the deploy ISO), as Ironic asks it."""
        check = getattr(task.driver.boot, 'validate_inspection', None)
        if check is not None:
            check(task)

    def inspect_hardware(self, task):
        node = task.node
        addresses = bmc_addresses(node.driver_info)
        node.driver_internal_info = {**(node.driver_internal_info or {}),
                                     LOOKUP_KEY: addresses}
        agent.boot_agent(task)
        LOG.info('Node %s boots the agent to be inspected in band%s',
                 node.uuid, ' (its BMC: %s)' % ', '.join(addresses)
                 if addresses else '')
        return inspection.WAIT

    def continue_inspection(self, task, inventory, plugin_data):
        """The agent reported: power it off; this is what it found."""
        _forget_lookup(task.node)
        agent.power_off_agent(task)
        return inspection.Found(inventory, plugin_data or {})

    def abort(self, task):
        _forget_lookup(task.node)
        agent.power_off_agent(task)
