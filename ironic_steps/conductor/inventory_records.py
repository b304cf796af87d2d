"""What an inspection's findings mean for the node, recorded.

Given what an inspect interface found (a ``drivers.inspection.Found``:
an inventory and plugin data), :func:`record` checks the inventory's
shape (:data:`common.inventory_format.SCHEMA`; nothing is recorded from one
that does not fit) and then, as Ironic's inspection does:

1. sets the node's ``properties`` it derives (:func:`properties`):
   ``cpus``, ``cpu_arch``, ``memory_mb``, ``local_gb`` (the smallest disk
   of at least 4 GiB, in GiB less one, 0 without), and the ``boot_mode``
   capability unless the node already has one; other properties stay.
   The node is saved by the caller, with the end of the flow;
2. gives the node a port for each MAC address ``[inspector] add_ports``
   selects (:func:`port_addresses`); a MAC address some port already has
   (this node's or another's) is left as it is;
3. applies the inspection rules (:mod:`inspection_rules`, API 1.96),
   which may change the node, its traits and the plugin data;
4. stores the inventory and plugin data, replacing the last inspection's
   (``GET /v1/nodes/{node}/inventory``).

It reads no hardware and moves no state: that is the flow's
(:mod:`inspection`).
"""

from oslo_log import log
from oslo_utils import netutils

from ironic_steps.common import exception
from ironic_steps.common import inventory_format
from ironic_steps.conductor import inspection_rules
from ironic_steps.conf import CONF
from ironic_steps import objects

LOG = log.getLogger(__name__)

#: Properties a node must have once inspected, as Ironic's inspection.
ESSENTIAL_PROPERTIES = ('cpu_arch', 'local_gb', 'memory_mb')
#: Disks smaller than this are not where an image goes (Ironic's rule).
_MIN_DISK_BYTES = 4 * 1024 ** 3
_GIB = 1024 ** 3


def check(node, inventory):
    """:raises HardwareInspectionFailure: naming what in ``inventory`` does
    not fit the inventory format."""
    problem = inventory_format.problem(inventory)
    if problem is not None:
        raise exception.HardwareInspectionFailure(
            node=node.uuid, error='the inventory found is malformed %s'
            % problem)


def local_gb(disks):
    """The smallest disk of at least 4 GiB, in GiB less one; 0 without."""
    sizes = [disk['size'] for disk in disks or ()
             if disk['size'] >= _MIN_DISK_BYTES]
    return max(0, int(min(sizes) / _GIB) - 1) if sizes else 0


def with_capability(capabilities, name, value):
    """``capabilities`` (Ironic's ``key:value,key:value`` string) with
    ``name`` set to ``value`` unless it has it already."""
    pairs = [pair for pair in (capabilities or '').split(',') if pair]
    if any(pair.split(':', 1)[0] == name for pair in pairs):
        return capabilities
    return ','.join(pairs + ['%s:%s' % (name, value)])


def properties(node, inventory):
    """The node's ``properties`` once ``inventory`` (checked) is recorded.

    :raises HardwareInspectionFailure: naming the essential properties
        the inventory does not give and the node does not have.
    """
    found = dict(node.properties or {})
    found['cpus'] = inventory['cpu']['count']
    if inventory['cpu']['architecture']:
        found['cpu_arch'] = inventory['cpu']['architecture']
    found['memory_mb'] = inventory['memory']['physical_mb']
    found['local_gb'] = local_gb(inventory.get('disks'))
    boot_mode = (inventory.get('boot') or {}).get('current_boot_mode')
    if boot_mode:
        found['capabilities'] = with_capability(
            found.get('capabilities'), 'boot_mode', boot_mode)
    missing = [name for name in ESSENTIAL_PROPERTIES if not found.get(name)
               and found.get(name) != 0]
    if missing:
        raise exception.HardwareInspectionFailure(
            node=node.uuid, error='the inventory does not say %s' % (
                ', '.join(missing)))
    return found


def port_addresses(inventory, add_ports):
    """The MAC addresses (lower case) that get a port under ``add_ports``
    (see ``conf/inspector.py``), each with whether the node boots from it
    (Ironic's ``pxe_enabled``: only the NIC the inventory says it booted
    from)."""
    if add_ports == 'disabled':
        return []
    pxe = ((inventory.get('boot') or {}).get('pxe_interface') or '').lower()
    chosen = []
    for interface in inventory['interfaces']:
        mac = (interface.get('mac_address') or '').lower()
        if interface['name'] == 'lo' or not netutils.is_valid_mac(mac):
            continue
        if add_ports == 'pxe' and pxe and mac != pxe:
            continue
        if add_ports == 'active' and not (interface.get('ipv4_address')
                                          or interface.get('ipv6_address')):
            continue
        chosen.append((mac, bool(pxe) and mac == pxe))
    return chosen


def _add_ports(task, inventory):
    node = task.node
    for mac, pxe_enabled in port_addresses(inventory,
                                           CONF.inspector.add_ports):
        port = objects.Port(task.context, address=mac, node_uuid=node.uuid,
                            pxe_enabled=pxe_enabled)
        try:
            port.create()
        except exception.ResourceAlreadyExists:
            LOG.info('Node %s: a port with MAC address %s exists already',
                     node.uuid, mac)
        else:
            LOG.info('Node %s: port %s created for MAC address %s%s',
                     node.uuid, port.uuid, mac,
                     ' (it boots from it)' if pxe_enabled else '')


def record(task, found):
    """Record ``found`` for ``task.node``, as the module's docstring says.

    :raises HardwareInspectionFailure: for an inventory that does not fit
        (nothing recorded), or naming the inspection rule that failed.
    """
    node = task.node
    check(node, found.inventory)
    node.properties = properties(node, found.inventory)
    _add_ports(task, found.inventory)
    plugin_data = dict(found.plugin_data or {})
    inspection_rules.apply(task, found.inventory, plugin_data)
    objects.NodeInventory.replace(task.context, node.id, found.inventory,
                                  plugin_data)
