"""A Redfish BMC's virtual media devices: finding, inserting, ejecting,
listing.

A BMC has its devices on the System (Redfish 1.11 and later) or on its
managers; the first of those places that has a device serving a device
type (see :data:`common.virtual_media.MEDIA_TYPES`) is where that type is
inserted, as Ironic's redfish driver looks for them.  The boot interface
boots ISOs through the ``cdrom`` device; the management interface
attaches and detaches any type for the virtual media API.  Every BMC
call goes through :func:`utils.bmc_call`, so a failure is a
:class:`BMCError` naming the operation.
"""

import sushy

from ironic_steps.common import exception
from ironic_steps.common import virtual_media
from ironic_steps.drivers.modules.redfish import utils


def _type_name(media_type):
    # sushy gives enum members; a name is what the API shows.
    return getattr(media_type, 'value', media_type)


def _collections(system):
    """The virtual media collections of ``system``, the System's first."""
    collections = []
    try:
        collections.append(system.virtual_media)
    except sushy.exceptions.MissingAttributeError:
        pass
    for manager in system.managers:
        collections.append(manager.virtual_media)
    return collections


def _serves(device, device_type):
    types = {_type_name(t) for t in device.media_types or ()}
    return bool(types & set(virtual_media.MEDIA_TYPES[device_type]))


def devices(system, device_type):
    """The devices that serve ``device_type``, from the first place that
    has any (empty if none does)."""
    for collection in _collections(system):
        found = [device for device in collection.get_members()
                 if _serves(device, device_type)]
        if found:
            return found
    return []


def device(task, device_type, operation):
    """The System and the device ``device_type`` goes in.

    :raises BMCError: if the BMC has none.
    """
    system = utils.get_system(task.node, operation)
    with utils.bmc_call(task.node, operation):
        found = devices(system, device_type)
    if not found:
        raise exception.BMCError(
            node=task.node.uuid, operation=operation,
            error='the BMC offers no virtual media device for %s'
                  % device_type)
    return system, found[0]


def insert(task, device_type, image_url):
    """Insert ``image_url`` into the ``device_type`` device, in place of
    what it held; the System, for what comes next (a boot from it)."""
    operation = 'insert virtual media %s' % image_url
    system, drive = device(task, device_type, operation)
    with utils.bmc_call(task.node, operation):
        if drive.inserted:
            drive.eject_media()
        drive.insert_media(image_url, inserted=True, write_protected=True)
    return system


def eject_drive(drive):
    """Eject what ``drive`` holds, as it is now (a BMC call)."""
    drive.refresh(force=True)
    if drive.inserted:
        drive.eject_media()


def eject(task, device_types=None):
    """Eject what the devices of ``device_types`` (every type if None)
    hold; a device with nothing in it is left alone."""
    operation = 'eject virtual media'
    system = utils.get_system(task.node, operation)
    with utils.bmc_call(task.node, operation):
        for device_type in device_types or virtual_media.DEVICE_TYPES:
            for drive in devices(system, device_type):
                eject_drive(drive)


def listing(task):
    """Every virtual media device of the first place that has any, as
    the API lists them."""
    operation = 'list virtual media'
    system = utils.get_system(task.node, operation)
    with utils.bmc_call(task.node, operation):
        for collection in _collections(system):
            members = collection.get_members()
            if members:
                return [{'media_types': [_type_name(t)
                                         for t in drive.media_types or ()],
                         'inserted': bool(drive.inserted),
                         'image': drive.image or None}
                        for drive in members]
    return []
