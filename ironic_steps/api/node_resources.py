"""Chassis, ports, portgroups and volume records: their declarations.

Each resource is the shared machinery (:mod:`view`, :mod:`schema`,
:mod:`patching`, :mod:`pagination`, served by :mod:`resource`) with what
is its own, as Ironic has it:

* its fields, the microversion each appeared in and what a plain list
  shows (a port's ``pxe_enabled`` from 1.19, ``is_smartnic`` from 1.53;
  portgroups from 1.23, volume records from 1.32, a port's ``name`` from
  1.88);
* what may be written and what values it takes (a MAC address, a
  ``local_link_connection``'s keys, a volume connector's type);
* the rules tied to the node: a record's node exists (400 otherwise), a
  port joins only a portgroup of its own node, a port's address does not
  change while its node is active, its connectivity only while the node
  is enrolled, manageable or in maintenance, volume records only while
  the node is powered off or in a state it could be deleted in, and a
  port with a VIF attached is not deleted outside maintenance.
"""

import re

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import node_ident
from ironic_steps.api import resource
from ironic_steps.api import schema
from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects

_TIMES = ('created_at', 'updated_at')
_DICT = {'type': ['object', 'null']}
_UUID = {'type': ['string', 'null'], 'pattern': identifiers.UUID_PATTERN}
_FLAG = {'type': 'boolean'}
_FLAG_WORDS = {'true': True, 'false': False}
_UUID_HINT = 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
_NAME = {'type': ['string', 'null'], 'pattern': identifiers.NAME_PATTERN}
_NAME_HINT = "a name has 1-255 letters, digits, '-', '.', '_' or '~'"
#: Six pairs of hex digits, split by ':' or '-' (stored lower case, ':').
_MAC = re.compile(r'\A[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2})'
                  r'{4}\Z')


def _flag(value):
    """"true" / "false" as booleans: the CLI sends ``--pxe-enabled`` so."""
    if isinstance(value, str) and value.lower() in _FLAG_WORDS:
        return _FLAG_WORDS[value.lower()]
    return value


def _empty(field):
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


def _mac(field):
    def check(value):
        return None if value is None else canonical_mac(field, value)
    return check


def _node_of(context, values, item):
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


def _referenced(object_class, what, field, context, uuid):
    try:
        return object_class.get_by_uuid(context, uuid)
    except exception.ResourceNotFound as exc:
        raise exception.ReferencedResourceNotFound(
            what=what, ident=uuid, field=field) from exc


def node_filter(context, ident, version):
    """``?node=`` (UUID or name) -> the node's UUID; a node that does not
    exist is a 404, as Ironic answers."""
    return node_ident.get_row(context, ident, version).uuid


def _uuid_filter(field):
    def parse(context, value, version):
        if not identifiers.is_uuid(value):
            raise exception.InvalidParameterValue(
                err='%s must be a UUID, got %r' % (field, value))
        return value.lower()
    return parse


def _mac_filter(context, value, version):
    try:
        return _mac('address')(value)
    except errors.InvalidField as exc:
        raise exception.InvalidParameterValue(err=str(exc)) from exc


# --- chassis -----------------------------------------------------------------

CHASSIS_VIEW = view.View(
    'chassis', ('uuid', 'description', 'extra') + _TIMES,
    list_fields=('uuid', 'description'), empty={'extra': dict},
    times=_TIMES, links={'nodes': v.MIN_VERSION})

CHASSIS_SCHEMA = schema.Schema(
    CHASSIS_VIEW,
    {'uuid': _UUID, 'description': {'type': ['string', 'null'],
                                    'maxLength': 255},
     'extra': _DICT},
    create_fields=frozenset(['uuid', 'description', 'extra']),
    update_fields=frozenset(['description', 'extra']),
    hints={'uuid': _UUID_HINT})

CHASSIS = resource.Resource(
    'chassis', 'chassis', 'chassis', CHASSIS_VIEW, CHASSIS_SCHEMA,
    objects.Chassis, 'baremetal:chassis', empty=_empty)


# --- portgroups --------------------------------------------------------------

PORTGROUPS_VERSION = v.at(23)
_PORTGROUP_FIELDS = ('uuid', 'name', 'address', 'node_uuid',
                     'standalone_ports_supported', 'mode', 'properties',
                     'internal_info', 'extra') + _TIMES

PORTGROUP_VIEW = view.View(
    'portgroups', _PORTGROUP_FIELDS, min_version=PORTGROUPS_VERSION,
    since={'mode': v.at(26), 'properties': v.at(26)},
    list_fields=('uuid', 'address', 'name'),
    empty=dict.fromkeys(('extra', 'properties', 'internal_info'), dict),
    times=_TIMES, links={'ports': v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS)})

#: Ironic's default bond mode, when a create body names none.
DEFAULT_PORTGROUP_MODE = 'active-backup'


def _check_name(name):
    """A port's or portgroup's name: not a UUID, which a URL could not
    tell apart from one."""
    if name is not None and identifiers.is_uuid(name):
        raise errors.InvalidField(
            field='name', reason='%r looks like a UUID; a name must not, or '
            'it could not be told apart from one' % name)
    return name


PORTGROUP_SCHEMA = schema.Schema(
    PORTGROUP_VIEW,
    {'uuid': _UUID,
     'name': _NAME,
     'address': {'type': ['string', 'null']},
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'standalone_ports_supported': _FLAG,
     'mode': {'type': ['string', 'null'], 'maxLength': 255},
     'properties': _DICT, 'extra': _DICT},
    create_fields=frozenset(['uuid', 'name', 'address', 'node_uuid',
                             'standalone_ports_supported', 'mode',
                             'properties', 'extra']),
    update_fields=frozenset(['name', 'address', 'node_uuid',
                             'standalone_ports_supported', 'mode',
                             'properties', 'extra']),
    required={'node_uuid': "A portgroup needs the 'node_uuid' of its node."},
    hints={'uuid': _UUID_HINT, 'node_uuid': _UUID_HINT,
           'name': _NAME_HINT},
    checks={'address': _mac('address'), 'name': _check_name},
    coerce={'standalone_ports_supported': _flag})


def _prepare_portgroup(context, values, item, version):
    node = _node_of(context, values, item)
    if item is None:
        values.setdefault('standalone_ports_supported', True)
        if values.get('mode') is None:
            values['mode'] = DEFAULT_PORTGROUP_MODE
    elif 'node_uuid' in values:
        _refuse_unless_connectable(node, 'portgroup', item.uuid)
        ports = objects.Port.list(context,
                                  filters={'portgroup_uuid': item.uuid},
                                  limit=1)
        if ports:
            raise exception.Conflict(
                'Portgroup %s cannot move to another node while it has '
                'ports (%s, ...); take them out of it first'
                % (item.uuid, ports[0].uuid))
    return values


PORTGROUPS = resource.Resource(
    'portgroups', 'portgroups', 'portgroup', PORTGROUP_VIEW,
    PORTGROUP_SCHEMA, objects.Portgroup, 'baremetal:portgroup',
    by_name=True, empty=_empty, prepare=_prepare_portgroup,
    filters={'node': resource.Filter('node_uuid', parse=node_filter),
             'address': resource.Filter('address', parse=_mac_filter)},
    parents=(resource.Parent('nodes', 'node_uuid', resource.node_uuid,
                             since=v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS)),
             ))


# --- ports -------------------------------------------------------------------

PORT_NAME_VERSION = v.at(v.MINOR_88_PORT_NAME)
_PORT_FIELDS = ('uuid', 'address', 'name', 'node_uuid', 'portgroup_uuid',
                'local_link_connection', 'pxe_enabled', 'physical_network',
                'internal_info', 'extra', 'is_smartnic') + _TIMES

#: Ironic's OVN VTEP switch keys of a ``local_link_connection``: taken
#: and shown from 1.90 to 1.104 only (1.105 removed them again).
VTEP_KEYS = ('vtep-logical-switch', 'vtep-physical-switch')
VTEP_VERSION = v.at(v.MINOR_90_OVN_VTEP)
#: Ironic's 1.105, beyond this API's maximum for now: a MINOR_105
#: constant takes its place once the versions between are served.
NO_VTEP_VERSION = v.at(105)


def _hide_vtep(link):
    """A ``local_link_connection`` as versions without VTEP keys show it:
    empty if it has them, as Ironic shows it."""
    return {} if set(VTEP_KEYS) & set(link) else link


def _check_vtep(link, version):
    if link and set(VTEP_KEYS) & set(link) and not (
            VTEP_VERSION <= version < NO_VTEP_VERSION):
        raise errors.FeatureOnlyInVersions(
            feature='local_link_connection with %s' % ' and '.join(
                VTEP_KEYS), first=v.to_string(VTEP_VERSION),
            last='1.%d' % (NO_VTEP_VERSION[1] - 1),
            version=v.to_string(version))


PORT_VIEW = view.View(
    'ports', _PORT_FIELDS,
    since={'internal_info': v.at(18),
           'local_link_connection': v.at(19), 'pxe_enabled': v.at(19),
           'portgroup_uuid': v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS),
           'physical_network': v.at(34), 'is_smartnic': v.at(53),
           'name': PORT_NAME_VERSION},
    list_fields=('uuid', 'address'),
    empty=dict.fromkeys(('extra', 'internal_info', 'local_link_connection'),
                        dict),
    times=_TIMES, unknown_while_pinned=objects.Port.fields_unknown_under_pin,
    before={'local_link_connection': ((VTEP_VERSION, _hide_vtep),)},
    after={'local_link_connection': ((NO_VTEP_VERSION, _hide_vtep),)})


#: What a ``local_link_connection`` may hold (Ironic's keys; the VTEP
#: ones, which go together, only at the versions :func:`_check_vtep`
#: allows).
_LOCAL_LINK = {
    'type': ['object', 'null'],
    'properties': {
        'switch_id': {'type': 'string'}, 'port_id': {'type': 'string'},
        'switch_info': {'type': 'string'}, 'hostname': {'type': 'string'},
        'network_type': {'enum': ['managed', 'unmanaged']},
        'vtep-logical-switch': {'type': 'string'},
        'vtep-physical-switch': {'type': 'string'},
    },
    'dependentRequired': {'vtep-logical-switch': ['vtep-physical-switch'],
                          'vtep-physical-switch': ['vtep-logical-switch']},
    'additionalProperties': False,
}

PORT_SCHEMA = schema.Schema(
    PORT_VIEW,
    {'uuid': _UUID,
     'address': {'type': 'string'},
     'name': _NAME,
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'portgroup_uuid': _UUID,
     'local_link_connection': _LOCAL_LINK,
     'pxe_enabled': _FLAG,
     'physical_network': {'type': ['string', 'null'], 'minLength': 1,
                          'maxLength': 64},
     'is_smartnic': _FLAG,
     'extra': _DICT},
    create_fields=frozenset(['uuid', 'address', 'name', 'node_uuid',
                             'portgroup_uuid', 'local_link_connection',
                             'pxe_enabled', 'physical_network',
                             'is_smartnic', 'extra']),
    update_fields=frozenset(['address', 'name', 'node_uuid',
                             'portgroup_uuid',
                             'local_link_connection', 'pxe_enabled',
                             'physical_network', 'is_smartnic', 'extra']),
    required={'address': "A port needs an 'address' (its MAC address).",
              'node_uuid': "A port needs the 'node_uuid' of its node."},
    hints={'uuid': _UUID_HINT, 'node_uuid': _UUID_HINT,
           'portgroup_uuid': _UUID_HINT, 'name': _NAME_HINT,
           'local_link_connection': 'its keys: switch_id, port_id, '
           'switch_info, hostname, network_type (managed or unmanaged) and, '
           'together, vtep-logical-switch and vtep-physical-switch (API '
           '1.90 to 1.104)'},
    checks={'address': _mac('address'), 'name': _check_name},
    version_checks={'local_link_connection': _check_vtep},
    coerce={'pxe_enabled': _flag, 'is_smartnic': _flag})

#: A port's connectivity changes only in these states (or maintenance).
_CONNECTABLE_STATES = (states.ENROLL, states.MANAGEABLE)
_CONNECTIVITY = ('portgroup_uuid', 'pxe_enabled', 'local_link_connection',
                 'physical_network')


def _refuse_unless_connectable(node, what, uuid):
    if node.provision_state not in _CONNECTABLE_STATES and not (
            node.maintenance):
        raise exception.Conflict(
            'The connectivity of %s %s changes only while node %s is in '
            'state %s or in maintenance; it is %s' % (
                what, uuid, node.uuid, ' or '.join(_CONNECTABLE_STATES),
                node.provision_state))


def _prepare_port(context, values, item, version):
    node = _node_of(context, values, item)
    if item is not None:
        if 'address' in values and not node.maintenance and (
                node.provision_state == states.ACTIVE or node.instance_uuid):
            raise exception.Conflict(
                'The address of port %s cannot change while node %s is '
                'active or has an instance' % (item.uuid, node.uuid))
        if set(values) & set(_CONNECTIVITY + ('node_uuid',)):
            _refuse_unless_connectable(node, 'port', item.uuid)
    portgroup_uuid = values.get('portgroup_uuid',
                                item.portgroup_uuid if item else None)
    if portgroup_uuid is not None:
        portgroup = _referenced(objects.Portgroup, 'Portgroup',
                                'portgroup_uuid', context, portgroup_uuid)
        if portgroup.node_uuid != node.uuid:
            raise exception.InvalidParameterValue(
                err='Port cannot join portgroup %s: it belongs to node %s, '
                    'not to the port\'s node %s' % (
                        portgroup.uuid, portgroup.node_uuid, node.uuid))
        pxe = values.get('pxe_enabled', item.pxe_enabled if item else True)
        if pxe and not portgroup.standalone_ports_supported:
            raise exception.Conflict(
                'Portgroup %s does not support standalone ports, so its '
                'ports cannot have pxe_enabled true' % portgroup.uuid)
    smartnic = values.get('is_smartnic', item.is_smartnic if item else False)
    link = values.get('local_link_connection',
                      item.local_link_connection if item else None) or {}
    if smartnic and not ({'port_id', 'hostname'} <= set(link)):
        raise errors.InvalidField(
            field='local_link_connection', reason='a Smart NIC port needs '
            'port_id and hostname in its local_link_connection')
    if item is None:
        values.setdefault('pxe_enabled', True)
        values.setdefault('is_smartnic', False)
    return values


def attached_vif(record):
    """The VIF attached to a port or portgroup, or None."""
    return (record.internal_info or {}).get('tenant_vif_port_id')


def _before_port_delete(context, port):
    vif = attached_vif(port)
    if vif is not None:
        node = objects.Node.get_row(context, port.node_uuid)
        if not node.maintenance:
            raise exception.Conflict(
                'Port %s cannot be deleted: VIF %s is attached to it; '
                'detach it first' % (port.uuid, vif))


def _portgroup_filter(context, ident, version):
    return PORTGROUPS.get(context, ident).uuid


PORTS = resource.Resource(
    'ports', 'ports', 'port', PORT_VIEW, PORT_SCHEMA, objects.Port,
    'baremetal:port', by_name=True, empty=_empty, prepare=_prepare_port,
    before_delete=_before_port_delete,
    filters={'node': resource.Filter('node_uuid', parse=node_filter),
             'node_uuid': resource.Filter('node_uuid',
                                          parse=_uuid_filter('node_uuid')),
             'address': resource.Filter('address', parse=_mac_filter),
             'portgroup': resource.Filter(
                 'portgroup_uuid',
                 since=v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS),
                 parse=_portgroup_filter)},
    parents=(resource.Parent('nodes', 'node_uuid', resource.node_uuid),
             resource.Parent('portgroups', 'portgroup_uuid',
                             lambda c, ident, ver: _portgroup_filter(
                                 c, ident, ver),
                             since=v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS))))


# --- volume connectors and targets ---------------------------------------

VOLUME_VERSION = v.at(v.MINOR_32_VOLUME)
#: The kinds of connector Ironic knows.
CONNECTOR_TYPES = ('iqn', 'ip', 'mac', 'wwnn', 'wwpn', 'port', 'portal')


def _check_volume_change(context, values, item, version):
    """Ironic's rule: volume records of a node change while it is powered
    off, or in a state it could be deleted in."""
    node = _node_of(context, values, item)
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
                          'extra') + _TIMES,
    min_version=VOLUME_VERSION, list_fields=('uuid', 'type', 'connector_id'),
    empty={'extra': dict}, times=_TIMES, detail_query_since=VOLUME_VERSION)

CONNECTOR_SCHEMA = schema.Schema(
    CONNECTOR_VIEW,
    {'uuid': _UUID, 'type': {'enum': list(CONNECTOR_TYPES)},
     'connector_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'extra': _DICT},
    create_fields=frozenset(['uuid', 'type', 'connector_id', 'node_uuid',
                             'extra']),
    update_fields=frozenset(['type', 'connector_id', 'node_uuid', 'extra']),
    required={'type': "A volume connector needs a 'type' (%s)."
                      % ', '.join(CONNECTOR_TYPES),
              'connector_id': "A volume connector needs a 'connector_id'.",
              'node_uuid': "A volume connector needs the 'node_uuid' of its "
                           "node."},
    hints={'uuid': _UUID_HINT, 'node_uuid': _UUID_HINT})

VOLUME_CONNECTORS = resource.Resource(
    'volume/connectors', 'connectors', 'volume connector', CONNECTOR_VIEW,
    CONNECTOR_SCHEMA, objects.VolumeConnector, 'baremetal:volume',
    empty=_empty, prepare=_check_volume_change,
    before_delete=_before_volume_delete, filters=_VOLUME_FILTERS,
    parents=_VOLUME_PARENTS)

TARGET_VIEW = view.View(
    'volume/targets', ('uuid', 'volume_type', 'properties', 'boot_index',
                       'volume_id', 'node_uuid', 'extra') + _TIMES,
    min_version=VOLUME_VERSION,
    list_fields=('uuid', 'volume_type', 'boot_index', 'volume_id'),
    empty={'extra': dict, 'properties': dict}, times=_TIMES,
    masked=('properties',), detail_query_since=VOLUME_VERSION)

TARGET_SCHEMA = schema.Schema(
    TARGET_VIEW,
    {'uuid': _UUID,
     'volume_type': {'type': 'string', 'minLength': 1, 'maxLength': 64},
     'properties': _DICT,
     'boot_index': {'type': 'integer', 'minimum': 0,
                    'maximum': 2 ** 31 - 1},
     'volume_id': {'type': 'string', 'minLength': 1, 'maxLength': 36},
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'extra': _DICT},
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
    hints={'uuid': _UUID_HINT, 'node_uuid': _UUID_HINT},
    coerce={'boot_index': lambda value: int(value)
            if isinstance(value, str) and value.isascii()
            and value.isdigit() and len(value) < 11 else value})

VOLUME_TARGETS = resource.Resource(
    'volume/targets', 'targets', 'volume target', TARGET_VIEW,
    TARGET_SCHEMA, objects.VolumeTarget, 'baremetal:volume',
    empty=_empty, prepare=_check_volume_change,
    before_delete=_before_volume_delete, filters=_VOLUME_FILTERS,
    parents=_VOLUME_PARENTS)

ALL = (CHASSIS, PORTGROUPS, PORTS, VOLUME_CONNECTORS, VOLUME_TARGETS)
