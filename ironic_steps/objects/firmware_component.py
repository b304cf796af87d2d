"""The FirmwareComponent object: a node's firmware component (its BIOS, its
BMC) and the versions it ran, as the node's firmware interface read them.

A cache, as BIOS settings are: the firmware interface reads the versions
from the hardware (after an update, when the node is managed or inspected)
and records them through :mod:`ironic_steps.drivers.firmware`, so that
``GET /v1/nodes/{node}/firmware`` (API 1.86) shows them without asking the
BMC.  A component is addressed by its node's database id and its name;
it keeps the version first seen (``initial_version``), the one read last
(``current_version``) and, once it changed, the one last flashed
(``last_version_flashed``).  Components go with their node.

The pinned release of a rolling upgrade may predate the cache (0.11):
nothing is written then, so no older service finds what it cannot show.
"""

from oslo_versionedobjects import base as ovo_base

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: The longest component name or version the table holds.
MAX_LENGTH = 255
_TEXT_FIELDS = ('current_version', 'vendor', 'model', 'serial_number')


@base.IronicStepsObjectRegistry.register
class FirmwareComponent(base.IronicStepsObject,
                        ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'node_id': fields.IntegerField(),
        'component': fields.StringField(),
        'initial_version': fields.StringField(),
        'current_version': fields.StringField(nullable=True),
        'last_version_flashed': fields.StringField(nullable=True),
        'vendor': fields.StringField(nullable=True),
        'model': fields.StringField(nullable=True),
        'serial_number': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        # When the component was last read again; None if it never was.
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @classmethod
    def list_by_node(cls, context, node_id):
        """The components of the node with database id ``node_id``,
        sorted by name, in one query ([] for none)."""
        return [cls.from_row(context, row) for row in
                cls.dbapi.get_firmware_component_list(node_id)]

    @classmethod
    def sync(cls, context, node_id, readings):
        """Merge ``readings`` into the node's components, in one
        transaction; return them all, sorted by name.

        :param readings: a list of dicts, each with ``component`` and
            ``current_version`` (strings), and optionally ``vendor``,
            ``model`` and ``serial_number`` (strings or None).  A
            component named twice: the later reading wins.
        :raises InvalidParameterValue: for a reading of another shape
            (nothing written).
        :raises NotInPinnedRelease: while pinned to a release without the
            cache (nothing written).
        :raises NodeNotFound:
        """
        cls.check_in_pinned_release('Firmware components')
        checked = {}
        for reading in readings:
            name, values = _checked(node_id, reading)
            checked[name] = values
        rows = cls.dbapi.sync_firmware_components(node_id, checked)
        return [cls.from_row(context, row) for row in rows]


def _text(value):
    return isinstance(value, str) and 0 < len(value) <= MAX_LENGTH


def _checked(node_id, reading):
    if not isinstance(reading, dict) or not _text(reading.get('component')):
        raise exception.InvalidParameterValue(
            err='A firmware component reading of node %s needs a '
                '"component" name of 1 to %d characters, got %r' % (
                    node_id, MAX_LENGTH, reading))
    name = reading['component']
    unknown = sorted(set(reading) - {'component', *_TEXT_FIELDS})
    if unknown:
        raise exception.InvalidParameterValue(
            err='Firmware component %s of node %s: unknown key(s) %s' % (
                name, node_id, ', '.join(map(str, unknown))))
    if not _text(reading.get('current_version')):
        raise exception.InvalidParameterValue(
            err='Firmware component %s of node %s needs a current_version '
                'of 1 to %d characters, got %r' % (
                    name, node_id, MAX_LENGTH,
                    reading.get('current_version')))
    for field in _TEXT_FIELDS[1:]:
        value = reading.get(field)
        if value is not None and not _text(value):
            raise exception.InvalidParameterValue(
                err='Firmware component %s of node %s: %s must be a '
                    'string of 1 to %d characters or null, got %r' % (
                        name, node_id, field, MAX_LENGTH, value))
    return name, {field: reading.get(field) for field in _TEXT_FIELDS}
