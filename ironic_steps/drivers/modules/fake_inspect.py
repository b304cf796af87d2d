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
from ironic_steps.drivers.modules import fake_machine

#: ``driver_info`` key: wait for a report that never comes.
WAIT_KEY = 'fake_inspect_wait'
_STEP = 'inspect.inspect_hardware'
#: The fake machine's hardware is the fake machine's (its agent reports
#: it too); named here as well for what reads it as inspection's.
DEFAULTS = fake_machine.DEFAULTS
mac_addresses = fake_machine.mac_addresses
inventory = fake_machine.inventory


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
        return inspection.Found(fake_machine.inventory(
            task.node, self._boot_mode(task)))

    @staticmethod
    def _boot_mode(task):
        read = getattr(task.driver.management, 'get_boot_mode', None)
        try:
            return read(task) if read else boot_modes.UEFI
        except exception.UnsupportedDriverExtension:
            return boot_modes.UEFI
