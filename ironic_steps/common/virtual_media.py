"""Virtual media a node's BMC presents, as Ironic's API names it.

A *device type* is what a user attaches an image as (``POST
/v1/nodes/{node}/vmedia``, API 1.89): ``disk``, ``cdrom`` or ``floppy``.
A BMC's virtual media device says which Redfish media types it takes
(``CD``, ``DVD``, ``Floppy``, ``USBStick``, ...); :data:`MEDIA_TYPES`
says which serve each device type, as Ironic's redfish management maps
them.  A listing of a node's devices (``GET``, API 1.93) is a list of
``{"media_types": [...], "inserted": bool, "image": url or null}``.

Shared by the API (which checks a request), the conductor and the
management interfaces (which attach, detach and list).
"""

DISK = 'disk'
CDROM = 'cdrom'
FLOPPY = 'floppy'

#: Every device type, in Ironic's order.
DEVICE_TYPES = (DISK, CDROM, FLOPPY)

#: device type -> the Redfish media types of the devices that serve it.
MEDIA_TYPES = {
    CDROM: ('CD', 'DVD'),
    FLOPPY: ('Floppy',),
    DISK: ('USBStick',),
}

#: The URL schemes an image may be fetched by, as Ironic allows them.
URL_SCHEMES = ('http', 'https', 'nfs', 'cifs', 'smb')

#: Where the BMC fetches the image from, as Ironic names the choices:
#: ``http``, the URL given; ``local``, a copy the conductor serves;
#: ``swift``, an object store's temporary URL.
DOWNLOAD_SOURCES = ('http', 'local', 'swift')
#: What a request that names none gets, as in Ironic.
DEFAULT_DOWNLOAD_SOURCE = 'local'
