"""Ports and portgroups: their declarations (see :mod:`node_resources`
for the shared machinery and the other records around a node).

As Ironic has them:

* the fields, the microversion each appeared in and what a plain list
  shows: portgroups from 1.23 (``mode`` and ``properties`` from 1.26,
  ``physical_network`` 1.102, ``category`` 1.103, ``dynamic_portgroup``
  1.111, read-only); a port's ``pxe_enabled`` and
  ``local_link_connection`` from 1.19, ``is_smartnic`` 1.53, ``name``
  1.88, ``description`` 1.97, ``vendor`` 1.100, ``category`` 1.101,
  ``available_for_dynamic_portgroup`` 1.111;
* what may be written and what values it takes (a MAC address, a
  ``local_link_connection``'s keys, the OVN VTEP ones from 1.90 to 1.104
  only), and, from 1.94, a port created for ``node_ident``, a node's name
  or UUID;
* the list filters: ``node``, ``address``, a port's ``portgroup``, and
  from 1.99 ``conductor_groups`` (nodes of those conductor groups; not
  with ``node``, ``portgroup`` or ``address``), ``shard`` (nodes in those
  shards; a port's from 1.82, not with ``node`` or ``portgroup``, a
  portgroup's from 1.106);
* the rules tied to the node: a port joins only a portgroup of its own
  node, its address does not change while its node is active, its
  connectivity only while the node is enrolled, manageable or in
  maintenance, and a port with a VIF attached is not deleted outside
  maintenance; from 1.102 a port in a portgroup has the portgroup's
  ``physical_network``, which a change of the portgroup's carries to its
  ports.
"""

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import node_resources as shared
from ironic_steps.api import resource
from ironic_steps.api import schema
from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects


# --- portgroups --------------------------------------------------------------

PORTGROUPS_VERSION = v.at(23)
_PORTGROUP_FIELDS = ('uuid', 'name', 'address', 'node_uuid',
                     'standalone_ports_supported', 'mode', 'properties',
                     'internal_info', 'extra', 'physical_network',
                     'category', 'dynamic_portgroup') + shared.TIMES
#: The version that made a portgroup's physical network its ports'.
PORTGROUP_PHYSNET_VERSION = v.at(v.MINOR_102_PORTGROUP_PHYSICAL_NETWORK)
_SUBCONTROLLERS = v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS)
#: The list filter of the records of nodes in conductor groups (1.99):
#: it cannot be combined with these.
_NOT_WITH_CONDUCTOR_GROUPS = ('node', 'portgroup', 'address')

PORTGROUP_VIEW = view.View(
    'portgroups', _PORTGROUP_FIELDS, min_version=PORTGROUPS_VERSION,
    since={'mode': v.at(26), 'properties': v.at(26),
           'physical_network': PORTGROUP_PHYSNET_VERSION,
           'category': v.at(v.MINOR_103_PORTGROUP_CATEGORY),
           'dynamic_portgroup': v.at(v.MINOR_111_DYNAMIC_PORTGROUP)},
    list_fields=('uuid', 'address', 'name'),
    empty=dict(dict.fromkeys(('extra', 'properties', 'internal_info'), dict),
               dynamic_portgroup=bool),
    times=shared.TIMES, links={'ports': _SUBCONTROLLERS},
    unknown_while_pinned=objects.Portgroup.fields_unknown_under_pin)

_PHYSICAL_NETWORK = {'type': ['string', 'null'], 'minLength': 1,
                     'maxLength': 64}
_CATEGORY = {'type': ['string', 'null'], 'maxLength': 80}

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
    {'uuid': shared.UUID,
     'name': shared.NAME,
     'address': {'type': ['string', 'null']},
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'standalone_ports_supported': shared.FLAG,
     'mode': {'type': ['string', 'null'], 'maxLength': 255},
     'properties': shared.DICT, 'extra': shared.DICT,
     'physical_network': _PHYSICAL_NETWORK, 'category': _CATEGORY},
    create_fields=frozenset(['uuid', 'name', 'address', 'node_uuid',
                             'standalone_ports_supported', 'mode',
                             'properties', 'extra', 'physical_network',
                             'category']),
    update_fields=frozenset(['name', 'address', 'node_uuid',
                             'standalone_ports_supported', 'mode',
                             'properties', 'extra', 'physical_network',
                             'category']),
    required={'node_uuid': "A portgroup needs the 'node_uuid' of its node."},
    hints={'uuid': shared.UUID_HINT, 'node_uuid': shared.UUID_HINT,
           'name': shared.NAME_HINT},
    checks={'address': shared.mac_check('address'), 'name': _check_name},
    coerce={'standalone_ports_supported': shared.flag})


def _prepare_portgroup(context, values, item, version):
    node = shared.node_of(context, values, item)
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
    if item is not None and 'physical_network' in values:
        _give_ports_physical_network(context, item.uuid,
                                     values['physical_network'])
    return values


def _give_ports_physical_network(context, portgroup_uuid, physical_network):
    """A portgroup's physical network is its ports' (as Ironic's
    conductor makes it when the portgroup's changes)."""
    for port in objects.Port.list(
            context, filters={'portgroup_uuid': portgroup_uuid}):
        port.physical_network = physical_network
        port.save()


def _conductor_groups(context, value, version):
    # Stored in lower case; an empty list filters nothing, as in Ironic.
    groups = [group.strip().lower() for group in value.split(',')
              if group.strip()]
    return groups or None


def _shards(context, value, version):
    return [shard.strip() for shard in value.split(',')
            if shard.strip()] or None


#: The conductor group filter of port and portgroup lists (1.99).
_CONDUCTOR_GROUPS = resource.Filter(
    'nodes.conductor_group',
    since=v.at(v.MINOR_99_PORT_PORTGROUP_CONDUCTOR_GROUP_FILTER),
    parse=_conductor_groups)


PORTGROUPS = resource.Resource(
    'portgroups', 'portgroups', 'portgroup', PORTGROUP_VIEW,
    PORTGROUP_SCHEMA, objects.Portgroup, 'baremetal:portgroup',
    by_name=True, empty=shared.empty, prepare=_prepare_portgroup,
    filters={'node': resource.Filter('node_uuid', parse=shared.node_filter),
             'address': resource.Filter('address', parse=shared.mac_filter),
             'conductor_groups': _CONDUCTOR_GROUPS,
             'shard': resource.Filter(
                 'nodes.shard', since=v.at(v.MINOR_106_PORTGROUP_SHARD),
                 parse=_shards)},
    exclusive={'conductor_groups': _NOT_WITH_CONDUCTOR_GROUPS},
    parents=(resource.Parent('nodes', 'node_uuid', resource.node_uuid,
                             since=_SUBCONTROLLERS),))


# --- ports -------------------------------------------------------------------

PORT_NAME_VERSION = v.at(v.MINOR_88_PORT_NAME)
_PORT_FIELDS = ('uuid', 'address', 'name', 'node_uuid', 'portgroup_uuid',
                'local_link_connection', 'pxe_enabled', 'physical_network',
                'internal_info', 'extra', 'is_smartnic', 'description',
                'vendor', 'category',
                'available_for_dynamic_portgroup') + shared.TIMES

#: Ironic's OVN VTEP switch keys of a ``local_link_connection``: taken
#: and shown from 1.90 to 1.104 only (1.105 removed them again).
VTEP_KEYS = ('vtep-logical-switch', 'vtep-physical-switch')
VTEP_VERSION = v.at(v.MINOR_90_OVN_VTEP)
NO_VTEP_VERSION = v.at(v.MINOR_105_REMOVE_OVN_VTEP)


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
           'name': PORT_NAME_VERSION,
           'description': v.at(v.MINOR_97_PORT_DESCRIPTION),
           'vendor': v.at(v.MINOR_100_PORT_VENDOR),
           'category': v.at(v.MINOR_101_PORT_CATEGORY),
           'available_for_dynamic_portgroup': v.at(
               v.MINOR_111_DYNAMIC_PORTGROUP)},
    list_fields=('uuid', 'address'),
    empty=dict.fromkeys(('extra', 'internal_info', 'local_link_connection'),
                        dict),
    times=shared.TIMES,
    unknown_while_pinned=objects.Port.fields_unknown_under_pin,
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

_PORT_WRITABLE = ('address', 'name', 'node_uuid', 'portgroup_uuid',
                  'local_link_connection', 'pxe_enabled', 'physical_network',
                  'is_smartnic', 'extra', 'description', 'vendor', 'category',
                  'available_for_dynamic_portgroup')

PORT_SCHEMA = schema.Schema(
    PORT_VIEW,
    {'uuid': shared.UUID,
     'address': {'type': 'string'},
     'name': shared.NAME,
     'node_uuid': {'type': 'string', 'pattern': identifiers.UUID_PATTERN},
     'portgroup_uuid': shared.UUID,
     'local_link_connection': _LOCAL_LINK,
     'pxe_enabled': shared.FLAG,
     'physical_network': _PHYSICAL_NETWORK,
     'is_smartnic': shared.FLAG,
     'extra': shared.DICT,
     'description': {'type': ['string', 'null'], 'maxLength': 255},
     'vendor': {'type': ['string', 'null'], 'maxLength': 32},
     'category': _CATEGORY,
     'available_for_dynamic_portgroup': shared.FLAG},
    create_fields=frozenset(_PORT_WRITABLE + ('uuid',)),
    update_fields=frozenset(_PORT_WRITABLE),
    required={'address': "A port needs an 'address' (its MAC address).",
              'node_uuid': "A port needs the 'node_uuid' of its node (or, "
                           "from API 1.94, 'node_ident': its name or "
                           "UUID)."},
    hints={'uuid': shared.UUID_HINT, 'node_uuid': shared.UUID_HINT,
           'portgroup_uuid': shared.UUID_HINT, 'name': shared.NAME_HINT,
           'local_link_connection': 'its keys: switch_id, port_id, '
           'switch_info, hostname, network_type (managed or unmanaged) and, '
           'together, vtep-logical-switch and vtep-physical-switch (API '
           '1.90 to 1.104)'},
    checks={'address': shared.mac_check('address'), 'name': _check_name},
    version_checks={'local_link_connection': _check_vtep},
    coerce={'pxe_enabled': shared.flag, 'is_smartnic': shared.flag,
            'available_for_dynamic_portgroup': shared.flag})

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
    node = shared.node_of(context, values, item)
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
    if (item is not None and 'physical_network' in values
            and portgroup_uuid is not None
            and version >= PORTGROUP_PHYSNET_VERSION):
        raise exception.InvalidParameterValue(
            err='The physical_network of port %s cannot change while it '
                'belongs to portgroup %s, whose physical_network it has'
                % (item.uuid, portgroup_uuid))
    if portgroup_uuid is not None:
        portgroup = shared.referenced(objects.Portgroup, 'Portgroup',
                                      'portgroup_uuid', context,
                                      portgroup_uuid)
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
        values.setdefault('available_for_dynamic_portgroup', True)
    return values


def _read_port_create_body(context, body, version):
    """A create body's ``node_ident`` (1.94: the node's name or UUID) as
    the ``node_uuid`` it names.

    :raises FeatureNotInVersion: (406) for ``node_ident`` below 1.94.
    :raises InvalidParameterValue: for both ``node_ident`` and
        ``node_uuid``.
    :raises ReferencedResourceNotFound: (400) for a node that does not
        exist.
    """
    if not isinstance(body, dict) or 'node_ident' not in body:
        return body
    needed = v.at(v.MINOR_94_PORT_NODENAME)
    if version < needed:
        raise errors.FeatureNotInVersion(
            feature='Creating a port for a node_ident', version=v.to_string(
                version), needed=v.to_string(needed))
    body = dict(body)
    ident = body.pop('node_ident')
    if 'node_uuid' in body:
        raise exception.InvalidParameterValue(
            err='A port is created for node_uuid or node_ident, not both')
    if not isinstance(ident, str):
        raise errors.InvalidField(field='node_ident', reason='expected the '
                                  'name or UUID of a node')
    try:
        body['node_uuid'] = shared.node_filter(context, ident, version)
    except exception.NodeNotFound as exc:
        raise exception.ReferencedResourceNotFound(
            what='Node', ident=ident, field='node_ident') from exc
    return body


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
    'baremetal:port', by_name=True, empty=shared.empty, prepare=_prepare_port,
    before_delete=_before_port_delete,
    read_create_body=_read_port_create_body,
    exclusive={'conductor_groups': _NOT_WITH_CONDUCTOR_GROUPS,
               'shard': ('node', 'portgroup')},
    filters={'conductor_groups': _CONDUCTOR_GROUPS,
             'shard': resource.Filter(
                 'nodes.shard', since=v.at(v.MINOR_82_NODE_SHARD),
                 parse=_shards),
             'node': resource.Filter('node_uuid', parse=shared.node_filter),
             'node_uuid': resource.Filter('node_uuid',
                                          parse=shared.uuid_filter('node_uuid')),
             'address': resource.Filter('address', parse=shared.mac_filter),
             'portgroup': resource.Filter(
                 'portgroup_uuid',
                 since=_SUBCONTROLLERS, parse=_portgroup_filter)},
    parents=(resource.Parent('nodes', 'node_uuid', resource.node_uuid),
             resource.Parent('portgroups', 'portgroup_uuid',
                             lambda c, ident, ver: _portgroup_filter(
                                 c, ident, ver),
                             since=_SUBCONTROLLERS)))
