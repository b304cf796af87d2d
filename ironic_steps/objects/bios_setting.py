"""The BIOSSetting object: a node's BIOS setting, as its driver last read it.

A node's BIOS settings are a cache: the driver reads them from the
hardware (after applying settings, after a factory reset) and records
them here, so that ``GET /v1/nodes/{node}/bios`` shows them without asking
the BMC.  Drivers record them through :mod:`ironic_steps.drivers.bios`,
never through this object or the database directly.

*A settings map* is what a replacement takes: ``{name: setting}``, where a
name is a non-empty string of at most 255 characters and a setting either
its value alone or a dict of its ``value`` and its registry facts
(``{"value": "Uefi", "attribute_type": "Enumeration", ...}``, see
:mod:`ironic_steps.common.bios_registry`; facts left out are unknown).  A
value is a string or None; numbers and booleans are stored as their
strings (``1``, ``True``), as Ironic stores what a BMC reports.  A map
cannot name a setting twice, as the table cannot hold it twice.

Settings are written under the node's lock, all of a node's at once (one
transaction, :meth:`BIOSSetting.replace_all`), never one by one.  A
setting is addressed by the node's database id and its name.

The registry facts are fields of 1.1.  While the services are pinned to a
release whose BIOSSetting predates them, a replacement writes values only:
the facts of new settings stay unknown, those of others as they were.
"""

from collections import abc

from oslo_versionedobjects import base as ovo_base

from ironic_steps.common import bios_registry
from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields

#: The longest name the table holds.
MAX_NAME_LENGTH = 255


@base.IronicStepsObjectRegistry.register
class BIOSSetting(base.IronicStepsObject,
                  ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    # Version 1.1: Add the registry facts: attribute_type,
    #              allowable_values, lower_bound, max_length, min_length,
    #              read_only, reset_required, unique, upper_bound
    VERSION = '1.1'

    dbapi = db_api.get_instance()

    fields = {
        'node_id': fields.IntegerField(),
        'name': fields.StringField(),
        'value': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        # When the value last changed; None if it never has.
        'updated_at': fields.DateTimeField(nullable=True),
        # What the BMC's attribute registry says of it; None: unknown.
        'attribute_type': fields.StringField(nullable=True),
        'allowable_values': fields.ListOfStringsField(nullable=True),
        'lower_bound': fields.IntegerField(nullable=True),
        'max_length': fields.IntegerField(nullable=True),
        'min_length': fields.IntegerField(nullable=True),
        'read_only': fields.BooleanField(nullable=True),
        'reset_required': fields.BooleanField(nullable=True),
        'unique': fields.BooleanField(nullable=True),
        'upper_bound': fields.IntegerField(nullable=True),
    }

    FIELD_SINCE = dict.fromkeys(bios_registry.FIELDS, '1.1')

    # --- reading --------------------------------------------------------

    @classmethod
    def list_by_node(cls, context, node_id):
        """The settings of the node with database id ``node_id``, sorted
        by name, in one query ([] for a node without, or no node)."""
        return [cls.from_row(context, row)
                for row in cls.dbapi.get_bios_setting_list(node_id)]

    @classmethod
    def get(cls, context, node_id, name):
        """:raises BIOSSettingNotFound: naming the node by database id."""
        return cls.from_row(context,
                            cls.dbapi.get_bios_setting(node_id, name))

    # --- writing --------------------------------------------------------

    @classmethod
    def replace_all(cls, context, node_id, settings):
        """Make ``settings`` (a settings map) the node's settings, in one
        transaction; return them, sorted by name.

        Settings not in the map are deleted; only those whose value changed
        get a new ``updated_at`` (changed registry facts are written
        without one).  Facts the pinned release's BIOSSetting lacks are
        not written.  Call it holding the node's lock.

        :raises InvalidParameterValue: for a name or value outside the
            settings map's shape (nothing written).
        :raises NotInPinnedRelease: while pinned to a release without BIOS
            settings (nothing written: its services could not show them).
        :raises NodeNotFound:
        """
        cls.check_in_pinned_release('BIOS settings')
        columns = ('value',) + tuple(
            field for field in bios_registry.FIELDS
            if field not in cls.fields_unknown_under_pin())
        rows = cls.dbapi.replace_bios_settings(
            node_id, _checked(node_id, settings, columns))
        return [cls.from_row(context, row) for row in rows]


_VALUE = fields.StringField(nullable=True)


def _checked(node_id, settings, columns):
    """``settings`` as the name -> {column: value} dict the table holds,
    with exactly ``columns`` (``value`` and the registry facts to write)
    for every setting.

    :raises InvalidParameterValue: naming the first bad name or setting;
        a bad value is named by its setting and type only, as it may be a
        secret.
    """
    if not isinstance(settings, abc.Mapping):
        raise exception.InvalidParameterValue(
            err='The BIOS settings of node %s must be a map of name -> '
                'value, got a %s' % (node_id, type(settings).__name__))
    checked = {}
    for name, setting in settings.items():
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME_LENGTH:
            raise exception.InvalidParameterValue(
                err='A BIOS setting name of node %s must be a string of 1 '
                    'to %d characters, got %r' % (
                        node_id, MAX_NAME_LENGTH,
                        name if not isinstance(name, str) else name[:64]))
        value, facts = _value_and_facts(node_id, name, setting)
        row = dict(bios_registry.checked(facts, name, node_id),
                   value=_coerced(node_id, name, value))
        checked[name] = {column: row[column] for column in columns}
    return checked


def _value_and_facts(node_id, name, setting):
    """A setting of a settings map as (value, registry facts)."""
    if not isinstance(setting, abc.Mapping):
        return setting, {}
    if 'value' not in setting:
        raise exception.InvalidParameterValue(
            err='BIOS setting %s of node %s is a dict without a value: a '
                'setting given as a dict holds its "value" and its registry '
                'facts (%s), got keys %s' % (
                    name, node_id, ', '.join(bios_registry.FIELDS),
                    ', '.join(sorted(map(str, setting))) or 'none'))
    facts = dict(setting)
    return facts.pop('value'), facts


def _coerced(node_id, name, value):
    try:
        return _VALUE.coerce(None, 'value', value)
    except ValueError as exc:
        raise exception.InvalidParameterValue(
            err='BIOS setting %s of node %s must have a string, number, '
                'boolean or null value, not a %s' % (
                    name, node_id, type(value).__name__)) from exc
