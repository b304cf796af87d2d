"""The ``fake`` inspect interface of fake-hardware: a plausible machine.

Inspecting a fake node finds a small, fixed inventory built from what the
node's ``properties`` already say, with plausible defaults for the rest:
``cpus`` processors (8) of ``cpu_arch`` (``x86_64``), ``memory_mb`` of
memory (16384), one disk one GiB larger than ``local_gb`` (100: an
inspection derives ``local_gb`` as the disk's size less one GiB, as
Ironic does), two NICs whose MAC addresses come from the node's UUID
(``eth0``, the one it boots from, has an address), the boot mode its fake
management reports, and a vendor that says what it is.  Inspecting again
finds the same, so a test can tell what an inspection recorded.

Like the other fake interfaces it takes ``[fake] step_delay`` and fails
when ``driver_info/fake_fail_step`` names ``inspect.inspect_hardware``.
With ``driver_info/fake_inspect_wait`` true it plays an in-band
inspection whose ramdisk never reports: the node waits in ``inspect
wait`` until aborted or timed out (for tests of those paths).
"""

import time

from oslo_utils import strutils

from ironic_steps.common import boot_modes
from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import inspection
from ironic_steps.drivers.modules import fake

#: ``driver_info`` key: wait for a report that never comes.
WAIT_KEY = 'fake_inspect_wait'
#: What a fake machine has where its node's properties say nothing.
DEFAULTS = {'cpus': 8, 'cpu_arch': 'x86_64', 'memory_mb': 16384,
            'local_gb': 100}
_STEP = 'inspect.inspect_hardware'
_GIB = 1024 ** 3


def _number(properties, key):
    value = properties.get(key)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return DEFAULTS[key]


def mac_addresses(node_uuid):
    """The MAC addresses of a fake node's two NICs: locally administered,
    from its UUID, so they differ from node to node."""
    digits = node_uuid.replace('-', '')
    return ['%02x:%s' % (first, ':'.join(
        digits[start + i:start + i + 2] for i in range(0, 10, 2)))
        for first, start in ((0x02, 0), (0x06, 10))]


def inventory(node, boot_mode):
    """The fake machine behind ``node``, in the inventory format (see
    :mod:`ironic_steps.drivers.inspection`)."""
    properties = node.properties or {}
    arch = properties.get('cpu_arch')
    boot_mac, other_mac = mac_addresses(node.uuid)
    address = '192.0.2.%d' % (int(node.uuid[-2:], 16) % 254 + 1)
    return {
        'cpu': {'count': _number(properties, 'cpus'),
                'architecture': arch if isinstance(arch, str) and arch
                else DEFAULTS['cpu_arch'],
                'model_name': 'Fake CPU', 'frequency': '2400'},
        'memory': {'physical_mb': _number(properties, 'memory_mb'),
                   'total': _number(properties, 'memory_mb') * 1024 ** 2},
        'disks': [{'name': '/dev/sda', 'model': 'Fake Disk',
                   'size': (_number(properties, 'local_gb') + 1) * _GIB,
                   'rotational': False,
                   'serial': 'FAKE-%s-0' % node.uuid[:8].upper()}],
        'interfaces': [
            {'name': 'eth0', 'mac_address': boot_mac, 'ipv4_address': address,
             'ipv6_address': None, 'has_carrier': True, 'speed_mbps': 10000},
            {'name': 'eth1', 'mac_address': other_mac, 'ipv4_address': None,
             'ipv6_address': None, 'has_carrier': False,
             'speed_mbps': 10000}],
        'system_vendor': {'manufacturer': 'ironic-steps',
                          'product_name': 'fake-hardware',
                          'serial_number': 'FAKE-%s' % node.uuid[:8].upper()},
        'boot': {'current_boot_mode': boot_mode, 'pxe_interface': boot_mac},
    }


class FakeInspect(base.InspectInterface):
    """Finds the fake machine of :func:`inventory` at once (or waits)."""

    since_release = '0.11'

    def inspect_hardware(self, task):
        if CONF.fake.step_delay:
            time.sleep(CONF.fake.step_delay)
        driver_info = task.node.driver_info or {}
        if driver_info.get(fake.FAIL_STEP_KEY) == _STEP:
            raise exception.HardwareInspectionFailure(
                node=task.node.uuid, error='simulated failure (driver_info/'
                '%s names %s)' % (fake.FAIL_STEP_KEY, _STEP))
        if strutils.bool_from_string(driver_info.get(WAIT_KEY)):
            return inspection.WAIT
        return inspection.Found(inventory(task.node, self._boot_mode(task)))

    @staticmethod
    def _boot_mode(task):
        read = getattr(task.driver.management, 'get_boot_mode', None)
        try:
            return read(task) if read else boot_modes.UEFI
        except exception.UnsupportedDriverExtension:
            return boot_modes.UEFI
