"""A hardware manager that lets ironic-python-agent see only test disks.

Stock IPA lists every disk of the machine it runs on, picks the host's own
disk when no root-device hint matches, and erases every disk it sees.  In
our functional tests it runs on a developer's or CI's machine, so this
manager (IPA's ``ironic_python_agent.hardware_managers`` entry point, at a
priority above IPA's own managers) narrows the agent's world to the loop
devices the test made:

* it first proves the sandbox it runs in (:func:`confinement_problems`):
  a private ``/dev`` that holds no block device but the test's loops, each
  backed by a file inside the test's directory; ``/proc/sysrq-trigger``
  covered; the commands that power off, reboot or touch firmware resolving
  to refusing stand-ins; a PID namespace of the test's.  Anything amiss
  ends the agent at once, before it lists a disk;
* disks are only the test's loop devices (with their partitions), with the
  serial number the test gave each, so a root-device hint can name one;
* the install device must be named by a root-device hint: without one, or
  with one that matches no test disk, nothing is written;
* the agent's network interface is a virtual one carrying the MAC address
  the test gave it (the node's port), so several agents on one machine are
  told apart by their lookups;
* no BMC, no module loading, no software-RAID assembly at start;
* one service step of its own, ``deploy.stamp_disk``, that writes a short
  text into the sector before the install device's first MiB, which
  aligned partition tables leave unused: harmless to the instance, and read
  back by the test from outside the sandbox.

Configuration comes from the environment the sandbox sets:
``IRONIC_STEPS_AGENT_SANDBOX`` (the test's directory),
``IRONIC_STEPS_AGENT_DISKS`` (``/dev/loopN=serial,...``),
``IRONIC_STEPS_AGENT_MAC`` and ``IRONIC_STEPS_AGENT_STANDINS`` (the
directory of the stand-in commands).
"""

import os
import sys

from ironic_python_agent import errors
from ironic_python_agent import hardware

from ironic_steps_confinement import confinement_problems
from ironic_steps_confinement import environment
from ironic_steps_confinement import partitions
from ironic_steps_confinement import sys_name

#: The agent's exit status when it finds itself unconfined.
_CONFINEMENT_FAILED = 97

#: What ``stamp_disk`` writes, and where: the last sector before the
#: first MiB, the gap an aligned partition table leaves after itself.
STAMP_BYTES = 512
STAMP_OFFSET = 1024 * 1024 - STAMP_BYTES


class LoopHardwareManager(hardware.GenericHardwareManager):
    """IPA's generic manager, narrowed to the test's loop devices."""

    HARDWARE_MANAGER_NAME = 'IronicStepsLoopHardwareManager'
    HARDWARE_MANAGER_VERSION = '1.0'

    def evaluate_hardware_support(self):
        problems = confinement_problems()
        if problems:
            # Not an exception: IPA would carry on without this manager,
            # with one that sees every disk.
            sys.stderr.write('ironic-steps loop hardware manager: the agent '
                             'is not confined, stopping it: %s\n'
                             % '; '.join(problems))
            sys.stderr.flush()
            os._exit(_CONFINEMENT_FAILED)
        return hardware.HardwareSupport.SERVICE_PROVIDER + 1

    def initialize(self):
        # No mdadm assembly, module loading or multipath: only our disks.
        self.wait_for_disks()

    def list_block_devices(self, include_partitions=False,
                           all_serial_and_wwn=False):
        _sandbox, disks, _mac, _standins = environment()
        devices = []
        for name, serial in sorted(disks.items()):
            devices.append(self._device(name, serial))
            if include_partitions:
                devices.extend(self._device('/dev/' + part, None)
                               for part in partitions(name))
        return devices

    @staticmethod
    def _device(name, serial):
        name_in_sysfs = sys_name(name)
        sysfs = ('/sys/block/%s' % name_in_sysfs if serial is not None else
                 '/sys/class/block/%s' % name_in_sysfs)
        with open(os.path.join(sysfs, 'size')) as size:
            sectors = int(size.read())
        return hardware.BlockDevice(
            name=name, model='ironic-steps loop disk', size=sectors * 512,
            rotational=False, serial=serial, vendor='ironic-steps',
            logical_sectors=512, physical_sectors=512)

    def get_os_install_device(self, permit_refresh=False):
        node = hardware.get_cached_node() or {}
        hints = ((node.get('instance_info') or {}).get('root_device')
                 or (node.get('properties') or {}).get('root_device'))
        if not hints:
            raise errors.DeviceNotFound(
                'the ironic-steps loop hardware manager writes only to a '
                'disk named by a root device hint, and the node has none')
        return super().get_os_install_device(permit_refresh)

    def get_service_steps(self, node, ports):
        # priority 0: it runs only when an operator asks for it.
        return super().get_service_steps(node, ports) + [{
            'interface': 'deploy', 'step': 'stamp_disk', 'priority': 0,
            'reboot_requested': False, 'abortable': False,
            'argsinfo': {'text': {
                'description': 'what to write into the install device, '
                               'before its first MiB (UTF-8, at most %d '
                               'bytes)' % STAMP_BYTES,
                'required': True}}}]

    def stamp_disk(self, node, ports, text):
        """Service step: ``text``, padded with zero bytes, at
        :data:`STAMP_OFFSET` of the install device (the disk the
        root-device hint names)."""
        data = text.encode('utf-8')
        if len(data) > STAMP_BYTES:
            raise errors.InvalidCommandParamsError(
                'stamp_disk takes at most %d bytes of text, not %d'
                % (STAMP_BYTES, len(data)))
        device = self.get_os_install_device()
        with open(device, 'r+b') as disk:
            disk.seek(STAMP_OFFSET)
            disk.write(data.ljust(STAMP_BYTES, b'\0'))
            disk.flush()
            os.fsync(disk.fileno())
        return {'stamped': device}

    def list_network_interfaces(self):
        _sandbox, _disks, mac, _standins = environment()
        return [hardware.NetworkInterface(
            'ironic-steps0', mac, ipv4_address='127.0.0.1',
            has_carrier=True)]

    def get_bmc_address(self):
        return None

    def get_bmc_v6address(self):
        return None

    def get_bmc_mac(self):
        raise errors.IncompatibleHardwareMethodError()
