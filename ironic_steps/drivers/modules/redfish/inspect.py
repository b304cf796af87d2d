"""Out-of-band inspection through a Redfish BMC (the ``redfish`` inspect
interface, release 0.11).

What the BMC says of the node's System, read as Ironic's redfish
inspection reads it and written in ironic-python-agent's inventory format
(see :mod:`ironic_steps.drivers.inspection`):

* ``cpu``: the processor summary's count, and the architecture, model and
  top speed of the first processor (its instruction set named as Linux
  names architectures: ``x86_64``, ``aarch64``, ...);
* ``memory``: the memory summary, in MiB;
* ``disks``: the drives of every Storage resource, or, for a BMC without
  Storage, the devices of every SimpleStorage resource;
* ``interfaces``: each EthernetInterface with a valid MAC address (by
  its Redfish id), lower case;
* ``system_vendor``: model, manufacturer, serial number and UUID;
* ``boot``: the boot mode the System is set to.

It never waits: the inspection is over when the BMC has answered.  A BMC
that does not say how much memory the node has fails it (the conductor
cannot size the node without); a BMC that cannot be reached fails it with
the BMC's own error.
"""

from oslo_log import log
from oslo_utils import netutils
import sushy

from ironic_steps.common import boot_modes
from ironic_steps.common import exception
from ironic_steps.drivers import base
from ironic_steps.drivers import inspection
from ironic_steps.drivers.modules.redfish import utils

LOG = log.getLogger(__name__)

#: A processor's instruction set -> the architecture name Linux uses, as
#: Ironic maps them ('' where it has none).
ARCHITECTURES = {
    sushy.InstructionSet.X86: 'i686',
    sushy.InstructionSet.X86_64: 'x86_64',
    sushy.InstructionSet.IA_64: 'ia64',
    sushy.InstructionSet.ARM_A32: 'arm',
    sushy.InstructionSet.ARM_A64: 'aarch64',
    sushy.InstructionSet.MIPS32: 'mips',
    sushy.InstructionSet.MIPS64: 'mips64',
}
BOOT_MODES = {sushy.BOOT_SOURCE_MODE_UEFI: boot_modes.UEFI,
              sushy.BOOT_SOURCE_MODE_BIOS: boot_modes.LEGACY_BIOS}
_OPERATION = 'inspect the hardware'


def _cpu(system):
    cpu = {'count': 0, 'architecture': ''}
    if not system.processors:
        return cpu
    summary = system.processors.summary
    if summary and summary.count:
        cpu['count'] = summary.count
    members = system.processors.get_members()
    if members:
        first = members[0]
        cpu['architecture'] = ARCHITECTURES.get(first.instruction_set, '')
        if first.model is not None:
            cpu['model_name'] = str(first.model)
        if first.max_speed_mhz is not None:
            cpu['frequency'] = str(first.max_speed_mhz)
        if not cpu['count']:
            cpu['count'] = len(members)
    return cpu


def _drives(system):
    """The node's drives: Storage's, else SimpleStorage's devices."""
    try:
        storage = system.storage
    except sushy.exceptions.MissingAttributeError:
        storage = None
    if storage:
        return [drive for member in storage.get_members()
                for drive in member.drives]
    try:
        simple = system.simple_storage
    except sushy.exceptions.MissingAttributeError:
        return []
    return [device for member in simple.get_members()
            for device in member.devices] if simple else []


def _disks(node, system):
    disks = []
    for drive in _drives(system):
        if drive.capacity_bytes is None:
            LOG.debug('Node %s: drive %s has no size; not a disk of the '
                      'inventory', node.uuid, drive.name)
            continue
        disks.append({'name': drive.name, 'size': drive.capacity_bytes})
    return disks


def _interfaces(node, system):
    interfaces = []
    if not system.ethernet_interfaces:
        return interfaces
    for nic in system.ethernet_interfaces.get_members():
        if not netutils.is_valid_mac(nic.mac_address or ''):
            LOG.warning('Node %s: NIC %s has no valid MAC address (%r); '
                        'left out of the inventory', node.uuid,
                        nic.identity, nic.mac_address)
            continue
        interface = {'name': nic.identity,
                     'mac_address': nic.mac_address.lower()}
        if nic.speed_mbps is not None:
            interface['speed_mbps'] = int(nic.speed_mbps)
        interfaces.append(interface)
    return interfaces


def _system_vendor(system):
    found = {'product_name': system.model,
             'manufacturer': system.manufacturer,
             'serial_number': system.serial_number,
             'system_uuid': system.uuid}
    return {key: str(value) for key, value in found.items()
            if value is not None}


def read_inventory(node, system):
    """The inventory of ``system`` (a sushy System), as the module's
    docstring describes it.

    :raises HardwareInspectionFailure: if the BMC does not say how much
        memory the node has.
    :raises sushy.exceptions.SushyError: if the BMC cannot answer.
    """
    summary = system.memory_summary
    if not summary or not summary.size_gib:
        raise exception.HardwareInspectionFailure(
            node=node.uuid, error='the BMC does not report the memory of '
            'the system (MemorySummary/TotalSystemMemoryGiB)')
    inventory = {
        'cpu': _cpu(system),
        'memory': {'physical_mb': int(summary.size_gib * 1024)},
        'disks': _disks(node, system),
        'interfaces': _interfaces(node, system),
        'system_vendor': _system_vendor(system),
    }
    mode = BOOT_MODES.get(system.boot.mode)
    if mode is not None:
        inventory['boot'] = {'current_boot_mode': mode}
    return inventory


class RedfishInspect(utils.BMCInterface, base.InspectInterface):
    """Reads the node's hardware from its BMC, at once."""

    since_release = '0.11'

    def inspect_hardware(self, task):
        node = task.node
        system = utils.get_system(node, _OPERATION)
        with utils.bmc_call(node, _OPERATION):
            return inspection.Found(read_inventory(node, system))
