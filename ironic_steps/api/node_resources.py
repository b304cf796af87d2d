"""Chassis and volume records: their declarations; and what every
declaration of a record around a node shares (field schemas, value
checks, the node a record belongs to), which ports and portgroups
(:mod:`port_resources`) use too.

Each resource is the shared machinery (:mod:`view`, :mod:`schema`,
:mod:`patching`, :mod:`pagination`, served by :mod:`resource`) with what
is its own, as Ironic has it:

* its fields, the microversion each appeared in and what a plain list
  shows (volume records from 1.32);
* what may be written and what values it takes (a volume connector's
  type);
* the rules tied to the node: a record's node exists (400 otherwise),
  volume records change only while the node is powered off or in a state
  it could be deleted in.
"""

import re

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import resource
from ironic_steps.api import schema
from ironic_steps.api import tenancy
from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects

TIMES = ('created_at', 'updated_at')
DICT = {'type': ['object', 'null']}
UUID = {'type': ['string', 'null'], 'pattern': identifiers.UUID_PATTERN}
FLAG = {'type': 'boolean'}
_FLAG_WORDS = {'true': True, 'false': False}
UUID_HINT = 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
NAME = {'type': ['string', 'null'], 'pattern': identifiers.NAME_PATTERN}
NAME_HINT = "a name has 1-255 letters, digits, '-', '.', '_' or '~'"
#: Six pairs of hex digits, split by ':' or '-' (stored lower case, ':').
_MAC = re.compile(r'\A[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2})'
                  r'{4}\Z')


def flag(value):
    """"true" / "false" as booleans: the CLI sends ``--pxe-enabled`` so."""
    if isinstance(value, str) and value.lower() in _FLAG_WORDS:
        return _FLAG_WORDS[value.lower()]
    return value


def empty(field):
    """What a removed field becomes: a dict field {}, anything else null
    (which a required field refuses)."""
    return {} if field in ('extra', 'properties', 'internal_info',
                           'local_link_connection') else None


def canonical_mac(field, value):
    """``value`` as ports store a MAC address (lower case, ':').

    :raises InvalidField: naming ``field`` if it is not one.
    """
    if not isinstance(value, str) or not _MAC.match(value):
        raise errors.InvalidField(
            field=field, reason='%r is not a MAC address (six pairs of '
            'hex digits split by ":", e.g. 52:54:00:12:34:56)'
            % (value[:64] if isinstance(value, str) else value,))
    return value.lower().replace('-', ':')


def mac_check(field):
    def check(value):
        return None if value is None else canonical_mac(field, value)
    return check


def node_of(context, values, item):
    """The node a record will belong to, as a row.

    :raises ReferencedResourceNotFound: (400) for a node that does not
        exist, as Ironic answers.
    """
    uuid = values.get('node_uuid', item.node_uuid if item else None)
    try:
        return objects.Node.get_row(context, uuid)
    except exception.NodeNotFound as exc:
        raise exception.ReferencedResourceNotFound(
            what='Node', ident=uuid, field='node_uuid') from exc


def referenced(object_class, what, field, context, uuid):
    try:
        return object_class.get_by_uuid(context, uuid)
    except exception.ResourceNotFound as exc:
        raise exception.ReferencedResourceNotFound(
            what=what, ident=uuid, field=field) from exc


def node_filter(context, ident, version):
    """``?node=`` (UUID or name) -> the node's UUID; a node that does not
    exist is a 404, as Ironic answers, and so is one the caller may not
    see (:func:`tenancy.filter_node_row`)."""
    return tenancy.filter_node_row(context, ident, version).uuid


def uuid_filter(field):
    def parse(context, value, version):
        if not identifiers.is_uuid(value):
            raise exception.InvalidParameterValue(
                err='%s must be a UUID, got %r' % (field, value))
        return value.lower()
    return parse


def mac_filter(context, value, version):
    try:
        return mac_check('address')(value)
    except errors.InvalidField as exc:
        raise exception.InvalidParameterValue(err=str(exc)) from exc


# --- chassis -----------------------------------------------------------------

CHASSIS_VIEW = view.View(
    'chassis', ('uuid', 'description', 'extra') + TIMES,
    list_fields=('uuid', 'description'), empty={'extra': dict},
    times=TIMES, links={'nodes': v.MIN_VERSION})

CHASSIS_SCHEMA = schema.Schema(
    CHASSIS_VIEW,
    {'uuid': UUID, 'description': {'type': ['string', 'null'],
                                   'maxLength': 255},
     'extra': DICT},
    create_fields=frozenset(['uuid', 'description', 'extra']),
    update_fields=frozenset(['description', 'extra']),
    hints={'uuid': UUID_HINT})

CHASSIS = resource.Resource(
    'chassis', 'chassis', 'chassis', CHASSIS_VIEW, CHASSIS_SCHEMA,
    objects.Chassis, 'baremetal:chassis', empty=empty)


# --- volume connectors and targets ---------------------------------------

VOLUME_VERSION = v.at(v.MINOR_32_VOLUME)
#: The kinds of connector Ironic knows.
CONNECTOR_TYPES = ('iqn', 'ip', 'mac', 'wwnn', 'wwpn', 'port', 'portal')


def _check_volume_change(context, values, item, version):
    """Ironic's rule: volume records of a node change while it is powered
    off, or in a state it could be deleted in."""
    node = node_of(context, values, item)
    if item is not None:
        _refuse_unless_volume_changeable(node, 'changed')
    return values


def _refuse_unless_volume_changeable(node, action):
    if (node.provision_state not in states.DELETE_ALLOWED_STATES
            and node.power_state != states.POWER_OFF):
        raise exception.InvalidParameterValue(
            err='The volume records of node %s can be %s only while it is '
                'powered off or in state %s; it is %s and %s' % (
                    node.uuid, action,
                    ', '.join(states.DELETE_ALLOWED_STATES),
                    node.provision_state, node.power_state))


def _before_volume_delete(context, item):
    _refuse_unless_volume_changeable(
        objects.Node.get_row(context, item.node_uuid), 'deleted')


_VOLUME_FILTERS = {'node': resource.Filter('node_uuid', parse=node_filter)}
_VOLUME_PARENTS = (resource.Parent('nodes', 'node_uuid', resource.node_uuid,
                                   since=VOLUME_VERSION),)

CONNECTOR_VIEW = view.View(
    'volume/connectors', ('uuid', 'type', 'connector_id', 'node_uuid',
                          'extra') + TIMES,
    min_version=VOLUME_VERSION, list_fields=('uuid', 'type', 'connector_id'),
    empty={'extra': dict}, times=TIMES, detail_query_since=VOLUME_VERSION)

CONNECTOR_SCHEMA = schema.Schema(
    CONNECTOR_VIEW,
    {'uuid': UUID, 'type': {'enum': list(CONNECTOR_TYPES)},
     'connector_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'extra': DICT},
    create_fields=frozenset(['uuid', 'type', 'connector_id', 'node_uuid',
                             'extra']),
    update_fields=frozenset(['type', 'connector_id', 'node_uuid', 'extra']),
    required={'type': "A volume connector needs a 'type' (%s)."
                      % ', '.join(CONNECTOR_TYPES),
              'connector_id': "A volume connector needs a 'connector_id'.",
              'node_uuid': "A volume connector needs the 'node_uuid' of its "
                           "node."},
    hints={'uuid': UUID_HINT, 'node_uuid': UUID_HINT})

VOLUME_CONNECTORS = resource.Resource(
    'volume/connectors', 'connectors', 'volume connector', CONNECTOR_VIEW,
    CONNECTOR_SCHEMA, objects.VolumeConnector, 'baremetal:volume',
    empty=empty, prepare=_check_volume_change,
    before_delete=_before_volume_delete, filters=_VOLUME_FILTERS,
    parents=_VOLUME_PARENTS)

TARGET_VIEW = view.View(
    'volume/targets', ('uuid', 'volume_type', 'properties', 'boot_index',
                       'volume_id', 'node_uuid', 'extra') + TIMES,
    min_version=VOLUME_VERSION,
    list_fields=('uuid', 'volume_type', 'boot_index', 'volume_id'),
    empty={'extra': dict, 'properties': dict}, times=TIMES,
    masked=('properties',), detail_query_since=VOLUME_VERSION)

TARGET_SCHEMA = schema.Schema(
    TARGET_VIEW,
    {'uuid': UUID,
     'volume_type': {'type': 'string', 'minLength': 1, 'maxLength': 64},
     'properties': DICT,
     'boot_index': {'type': 'integer', 'minimum': 0,
                    'maximum': 2 ** 31 - 1},
     'volume_id': {'type': 'string', 'minLength': 1, 'maxLength': 36},
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'extra': DICT},
    create_fields=frozenset(['uuid', 'volume_type', 'properties',
                             'boot_index', 'volume_id', 'node_uuid',
                             'extra']),
    update_fields=frozenset(['volume_type', 'properties', 'boot_index',
                             'volume_id', 'node_uuid', 'extra']),
    required={'volume_type': "A volume target needs a 'volume_type'.",
              'boot_index': "A volume target needs a 'boot_index'.",
              'volume_id': "A volume target needs a 'volume_id'.",
              'node_uuid': "A volume target needs the 'node_uuid' of its "
                           "node."},
    hints={'uuid': UUID_HINT, 'node_uuid': UUID_HINT},
    coerce={'boot_index': lambda value: int(value)
            if isinstance(value, str) and value.isascii()
            and value.isdigit() and len(value) < 11 else value})

VOLUME_TARGETS = resource.Resource(
    'volume/targets', 'targets', 'volume target', TARGET_VIEW,
    TARGET_SCHEMA, objects.VolumeTarget, 'baremetal:volume',
    empty=empty, prepare=_check_volume_change,
    before_delete=_before_volume_delete, filters=_VOLUME_FILTERS,
    parents=_VOLUME_PARENTS)
