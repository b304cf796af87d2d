"""Management through a Redfish BMC: boot device, boot mode, secure boot,
virtual media (:mod:`virtual_media`), firmware.

Firmware is updated by the step ``management.update_firmware``, as
Ironic's redfish management offers it: each image in turn is handed to
the BMC's UpdateService (SimpleUpdate), and the step is polled (see
:func:`ironic_steps.drivers.base.poll_step`) until the BMC's task for the
last image completes; a task that ends in error fails the step with the
BMC's messages.  Deprecated, as in Ironic 38: kept for the node
definitions and clean steps that name it; ``firmware.update`` of the
redfish firmware interface (:mod:`.firmware`) is its successor, which
names each image's component and records the versions flashed.
"""

from oslo_log import log
import sushy

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers.modules.redfish import utils
from ironic_steps.drivers.modules.redfish import virtual_media

LOG = log.getLogger(__name__)

BOOT_DEVICES = {
    'pxe': sushy.BOOT_SOURCE_TARGET_PXE,
    'disk': sushy.BOOT_SOURCE_TARGET_HDD,
    'cdrom': sushy.BOOT_SOURCE_TARGET_CD,
    'bios': sushy.BOOT_SOURCE_TARGET_BIOS_SETUP,
}
_DEVICE_NAMES = {target: name for name, target in BOOT_DEVICES.items()}
BOOT_MODES = {'bios': sushy.BOOT_SOURCE_MODE_BIOS,
              'uefi': sushy.BOOT_SOURCE_MODE_UEFI}
_MODE_NAMES = {mode: name for name, mode in BOOT_MODES.items()}
#: The System's Status/Health -> the node's health.
_HEALTH = {sushy.HEALTH_OK: 'OK', sushy.HEALTH_WARNING: 'Warning',
           sushy.HEALTH_CRITICAL: 'Critical'}

_FIRMWARE_ARGSINFO = {
    'firmware_images': {
        'description': 'A list of {"url": ...} images, applied in order: '
                       'each is handed to the BMC\'s UpdateService '
                       '(SimpleUpdate) once the previous one is done.',
        'required': True,
    },
}


def _firmware_urls(task, firmware_images):
    if not isinstance(firmware_images, list) or not firmware_images:
        raise exception.InvalidParameterValue(
            err='management.update_firmware of node %s needs firmware_images:'
                ' a non-empty list of {"url": ...}' % task.node.uuid)
    urls = []
    for index, image in enumerate(firmware_images):
        url = image.get('url') if isinstance(image, dict) else None
        if not isinstance(url, str) or not url.startswith(
                ('http://', 'https://')):
            raise exception.InvalidParameterValue(
                err='firmware_images[%d] of node %s needs a "url" that is an '
                    'http(s) URL' % (index, task.node.uuid))
        urls.append(url)
    return urls


class RedfishManagement(utils.BMCInterface, base.ManagementInterface):

    def inject_nmi(self, task):
        system = utils.get_system(task.node, 'inject an NMI')
        with utils.bmc_call(task.node, 'inject an NMI'):
            system.reset_system(sushy.RESET_NMI)

    def get_supported_boot_devices(self, task):
        return sorted(BOOT_DEVICES)

    def set_boot_device(self, task, device, persistent=False):
        if device not in BOOT_DEVICES:
            raise exception.InvalidParameterValue(
                err='Unknown boot device %r; Redfish management supports: %s'
                    % (device, ', '.join(sorted(BOOT_DEVICES))))
        system = utils.get_system(task.node, 'set the boot device')
        with utils.bmc_call(task.node, 'set the boot device to %s' % device):
            system.set_system_boot_options(
                target=BOOT_DEVICES[device],
                enabled=(sushy.BOOT_SOURCE_ENABLED_CONTINUOUS if persistent
                         else sushy.BOOT_SOURCE_ENABLED_ONCE))

    def get_boot_device(self, task):
        """{'boot_device': name or None, 'persistent': bool or None}."""
        system = utils.get_system(task.node, 'read the boot device')
        boot = system.boot
        return {'boot_device': _DEVICE_NAMES.get(boot.target),
                'persistent': (
                    None if boot.enabled is None else
                    boot.enabled == sushy.BOOT_SOURCE_ENABLED_CONTINUOUS)}

    def set_boot_mode(self, task, mode):
        if mode not in BOOT_MODES:
            raise exception.InvalidParameterValue(
                err='Unknown boot mode %r; choose one of: %s' % (
                    mode, ', '.join(sorted(BOOT_MODES))))
        system = utils.get_system(task.node, 'set the boot mode')
        with utils.bmc_call(task.node, 'set the boot mode to %s' % mode):
            system.set_system_boot_options(mode=BOOT_MODES[mode])

    def get_boot_mode(self, task):
        system = utils.get_system(task.node, 'read the boot mode')
        return _MODE_NAMES.get(system.boot.mode)

    def get_health(self, task):
        system = utils.get_system(task.node, 'read the hardware health')
        status = system.status
        return _HEALTH.get(status.health) if status is not None else None

    def _secure_boot(self, task, operation):
        """The system's SecureBoot resource.

        :raises UnsupportedDriverExtension: if the BMC has none.
        """
        system = utils.get_system(task.node, operation)
        with utils.bmc_call(task.node, operation):
            try:
                return system.secure_boot
            except sushy.exceptions.MissingAttributeError:
                self._unsupported(task, 'secure boot (the BMC has no '
                                        'SecureBoot resource)')

    def get_secure_boot_state(self, task):
        operation = 'read secure boot'
        return bool(self._secure_boot(task, operation).enabled)

    def set_secure_boot_state(self, task, state):
        operation = 'turn secure boot %s' % ('on' if state else 'off')
        secure_boot = self._secure_boot(task, operation)
        if state and self.get_boot_mode(task) != 'uefi':
            raise exception.InvalidParameterValue(
                err='Node %s does not boot in uefi mode: secure boot needs '
                    'it' % task.node.uuid)
        with utils.bmc_call(task.node, operation):
            secure_boot.set_enabled(bool(state))

    def attach_virtual_media(self, task, device_type, image_url):
        virtual_media.insert(task, device_type, image_url)

    def detach_virtual_media(self, task, device_types=None):
        virtual_media.eject(task, device_types)

    def get_virtual_media(self, task):
        return virtual_media.listing(task)

    @base.deploy_step(priority=0, argsinfo=_FIRMWARE_ARGSINFO)
    @base.clean_step(priority=0, argsinfo=_FIRMWARE_ARGSINFO)
    def update_firmware(self, task, firmware_images):
        """Update the node's firmware from each image, in order
        (deprecated: see the module's docstring)."""
        LOG.warning('Node %s: management.update_firmware is deprecated; '
                    'use firmware.update of the redfish firmware interface',
                    task.node.uuid)
        urls = _firmware_urls(task, firmware_images)
        monitor = self._start_update(task, urls[0])
        return base.poll_step(task, self.check_firmware_update,
                              timeout=CONF.redfish.firmware_update_timeout,
                              monitor=monitor, pending=urls[1:])

    def _start_update(self, task, url):
        operation = 'firmware update from %s' % url
        with utils.bmc_call(task.node, operation):
            service = utils.get_client(task.node).get_update_service()
            return service.simple_update(url).task_monitor_uri

    def check_firmware_update(self, task, monitor, pending):
        """Polled: done once the BMC's task for the last image is."""
        finished, status = utils.check_task(task.node, monitor,
                                            'firmware update')
        if not finished:
            return status
        if not pending:
            return base.DONE
        # The next image: the poll goes on with its task.
        base.update_poll(task, monitor=self._start_update(task, pending[0]),
                         pending=pending[1:])
        return 'updating from %s' % pending[0]
