"""Booting from virtual media through a Redfish BMC.

The BMC presents an ISO image, fetched from a URL, as the node's CD drive;
the node boots from it once.  ``prepare_instance`` inserts
``instance_info/boot_iso`` and sets the one-time boot from CD;
``clean_up_instance`` ejects it when the instance goes.  The CD drive is
found on the System (Redfish 1.11 and later) or on its managers.
"""

import sushy

from ironic_steps.common import exception
from ironic_steps.drivers import base
from ironic_steps.drivers.modules import ramdisk
from ironic_steps.drivers.modules.redfish import utils

_CD_TYPES = frozenset([sushy.VIRTUAL_MEDIA_CD, sushy.VIRTUAL_MEDIA_DVD])


def _cd_drives(system):
    collections = []
    try:
        collections.append(system.virtual_media)
    except sushy.exceptions.MissingAttributeError:
        pass
    for manager in system.managers:
        collections.append(manager.virtual_media)
    for collection in collections:
        drives = [media for media in collection.get_members()
                  if _CD_TYPES & set(media.media_types or ())]
        if drives:
            return drives
    return []


def _cd_drive(task, operation):
    system = utils.get_system(task.node, operation)
    with utils.bmc_call(task.node, operation):
        drives = _cd_drives(system)
    if not drives:
        raise exception.BMCError(node=task.node.uuid, operation=operation,
                                 error='the BMC offers no virtual CD drive')
    return system, drives[0]


class RedfishVirtualMediaBoot(utils.BMCInterface, base.BootInterface):

    def prepare_instance(self, task):
        """Insert the instance's ISO and boot from it once."""
        url = ramdisk.boot_iso(task.node)
        operation = 'insert virtual media %s' % url
        system, drive = _cd_drive(task, operation)
        with utils.bmc_call(task.node, operation):
            if drive.inserted:
                drive.eject_media()
            drive.insert_media(url, inserted=True, write_protected=True)
            system.set_system_boot_options(
                target=sushy.BOOT_SOURCE_TARGET_CD,
                enabled=sushy.BOOT_SOURCE_ENABLED_ONCE)

    def clean_up_instance(self, task):
        """Eject whatever the virtual CD drive holds."""
        _system, drive = _cd_drive(task, 'eject virtual media')
        with utils.bmc_call(task.node, 'eject virtual media'):
            drive.refresh(force=True)
            if drive.inserted:
                drive.eject_media()
