"""What a node looks like in the API, at each microversion.

Owns the node's public fields, the microversion each appeared in, the
subset a plain list shows, the fields computed rather than stored, and
turning a :class:`objects.Node` (or a row of its fields, see
:meth:`objects.Node.list_fields`) into a JSON body (empty dicts for unset
dict fields, ISO 8601 times, secrets masked, ``available`` shown as
before 1.2 as it was then) with a :class:`View`.  Which fields a request
may *write* is :mod:`node_schema`'s business.

A field below its version does not exist: it is absent from bodies, and
naming it (``?fields=``, a create body, a PATCH path) is answered 406 as
Ironic does.
"""

import datetime
import functools

from ironic_steps.api import errors
from ironic_steps.api import masking
from ironic_steps.api import responses
from ironic_steps.api import versions as v
from ironic_steps.common import states

#: Every public field, in the order bodies list them ('id' is internal).
FIELDS = (
    'uuid', 'name', 'driver', 'resource_class', 'instance_uuid',
    'chassis_uuid', 'conductor_group', 'conductor', 'owner', 'lessee',
    'description', 'allocation_uuid',
    'provision_state', 'target_provision_state', 'provision_updated_at',
    'power_state', 'target_power_state', 'console_enabled', 'maintenance',
    'maintenance_reason', 'fault', 'protected', 'protected_reason',
    'retired', 'retired_reason', 'automated_clean', 'last_error',
    'reservation', 'inspection_started_at', 'inspection_finished_at',
    'clean_step', 'deploy_step', 'driver_info', 'driver_internal_info',
    'instance_info', 'properties', 'extra', 'raid_config',
    'target_raid_config', 'network_data',
    'bios_interface', 'boot_interface', 'console_interface',
    'deploy_interface', 'inspect_interface', 'management_interface',
    'network_interface', 'power_interface', 'raid_interface',
    'rescue_interface', 'storage_interface', 'vendor_interface',
    'created_at', 'updated_at',
)

#: Fields added after the minimum version: field -> (major, minor).
_FIELD_VERSIONS = {
    'driver_internal_info': v.at(v.MINOR_3_DRIVER_INTERNAL_INFO),
    'name': v.at(v.MINOR_5_NODE_NAME),
    'inspection_started_at': v.at(v.MINOR_6_INSPECT_STATE),
    'inspection_finished_at': v.at(v.MINOR_6_INSPECT_STATE),
    'clean_step': v.at(v.MINOR_7_NODE_CLEAN),
    'raid_config': v.at(v.MINOR_12_RAID_CONFIG),
    'target_raid_config': v.at(v.MINOR_12_RAID_CONFIG),
    'network_interface': v.at(v.MINOR_20_NETWORK_INTERFACE),
    'resource_class': v.at(v.MINOR_21_RESOURCE_CLASS),
    'boot_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'console_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'deploy_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'inspect_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'management_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'power_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'raid_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'vendor_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'storage_interface': v.at(v.MINOR_33_STORAGE_INTERFACE),
    'rescue_interface': v.at(v.MINOR_38_RESCUE_INTERFACE),
    'bios_interface': v.at(v.MINOR_40_BIOS_INTERFACE),
    'fault': v.at(v.MINOR_42_FAULT),
    'deploy_step': v.at(v.MINOR_44_NODE_DEPLOY_STEP),
    'conductor_group': v.at(v.MINOR_46_NODE_CONDUCTOR_GROUP),
    'automated_clean': v.at(v.MINOR_47_NODE_AUTOMATED_CLEAN),
    'protected': v.at(v.MINOR_48_NODE_PROTECTED),
    'protected_reason': v.at(v.MINOR_48_NODE_PROTECTED),
    'conductor': v.at(v.MINOR_49_CONDUCTORS),
    'owner': v.at(v.MINOR_50_NODE_OWNER),
    'description': v.at(v.MINOR_51_NODE_DESCRIPTION),
    'allocation_uuid': v.at(v.MINOR_52_ALLOCATION),
    'retired': v.at(v.MINOR_61_NODE_RETIRED),
    'retired_reason': v.at(v.MINOR_61_NODE_RETIRED),
    'lessee': v.at(v.MINOR_65_NODE_LESSEE),
    'network_data': v.at(v.MINOR_66_NODE_NETWORK_DATA),
}

#: Fields that are not columns of the node: computed when shown.
#: ``chassis_uuid`` and ``allocation_uuid`` are always null (ironic-steps
#: has neither chassis nor allocations); ``conductor`` is the host the
#: hash ring gives the node to (see :class:`View`).
COMPUTED_FIELDS = frozenset(['chassis_uuid', 'allocation_uuid', 'conductor'])

#: Links to a node's sub-resources, shown with the whole node (not with
#: ``?fields`` nor in a plain list), as Ironic shows them: link -> version.
#: Only ``states`` is served here; the others answer 404 (see api-ref).
RESOURCE_LINKS = {
    'ports': v.MIN_VERSION,
    'states': v.at(v.MINOR_14_LINKS_NODESTATES_DRIVERPROPERTIES),
    'portgroups': v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS),
    'volume': v.at(v.MINOR_32_VOLUME),
}

#: What GET /v1/nodes shows without ?fields (plus links), as Ironic.
LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'provision_state', 'maintenance')

#: GET /v1/nodes/{node}/states: field -> the version that shows it.
STATES_FIELDS = {
    'provision_state': v.MIN_VERSION,
    'target_provision_state': v.MIN_VERSION,
    'provision_updated_at': v.MIN_VERSION,
    'power_state': v.MIN_VERSION,
    'target_power_state': v.MIN_VERSION,
    'console_enabled': v.MIN_VERSION,
    'last_error': v.MIN_VERSION,
    'raid_config': v.at(v.MINOR_12_RAID_CONFIG),
    'target_raid_config': v.at(v.MINOR_12_RAID_CONFIG),
}

_DICT_FIELDS = frozenset(['clean_step', 'deploy_step', 'driver_info',
                          'driver_internal_info', 'instance_info',
                          'properties', 'extra', 'raid_config',
                          'target_raid_config', 'network_data'])
_TIME_FIELDS = frozenset(['provision_updated_at', 'created_at',
                          'updated_at', 'inspection_started_at',
                          'inspection_finished_at'])
_MASKED_FIELDS = frozenset(['driver_info', 'driver_internal_info',
                            'instance_info'])
#: What a stored None reads as, for fields whose None only means "a peer
#: from before this field wrote the node".
_NONE_READS_AS = {'console_enabled': False, 'protected': False,
                  'retired': False, 'conductor_group': ''}


def since(field):
    """The version that introduced ``field``."""
    return _FIELD_VERSIONS.get(field, v.MIN_VERSION)


@functools.lru_cache(maxsize=None)
def visible_fields(version):
    """The fields a node has at ``version``, in body order."""
    return tuple(f for f in FIELDS if since(f) <= version)


def columns(fields):
    """The stored columns of ``fields``: what a list must read."""
    return tuple(f for f in fields if f not in COMPUTED_FIELDS)


def check_fields(fields, version):
    """Refuse field names that do not exist at ``version``.

    :raises UnknownFields: (400) for names that never exist.
    :raises FieldNotInVersion: (406) for names from a later version.
    """
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise errors.UnknownFields(
            fields=', '.join(unknown),
            valid=', '.join(visible_fields(version)))
    later = [f for f in fields if since(f) > version]
    if later:
        raise errors.FieldNotInVersion(
            fields=', '.join(later),
            needed=v.to_string(max(since(f) for f in later)),
            version=v.to_string(version))


def parse_fields(value, version):
    """``?fields=a,b`` -> ('a', 'b'), checked; None if not given.

    :raises FeatureNotInVersion: (406) before 1.8, as Ironic.
    """
    if value is None:
        return None
    v.require(version, v.MINOR_8_FETCHING_SUBSET_OF_FIELDS, '?fields')
    fields = tuple(f.strip() for f in value.split(',') if f.strip())
    if not fields:
        raise errors.UnknownFields(fields="''", valid=', '.join(
            visible_fields(version)))
    check_fields(fields, version)
    return fields


def _time(raw):
    # Rows hold times as stored, naive UTC; Nodes hold aware ones.
    if raw.tzinfo is None:
        raw = raw.replace(tzinfo=datetime.timezone.utc)
    return raw.isoformat()


def _nostate(raw):
    # Ironic's NOSTATE: what 'available' was before 1.2.
    return None if raw == states.AVAILABLE else raw


def _converter(field, version):
    if field in _TIME_FIELDS:
        return _time
    if field in _MASKED_FIELDS:
        return masking.mask
    if (field == 'provision_state'
            and version < v.at(v.MINOR_2_AVAILABLE_STATE)):
        return _nostate
    return None


@functools.lru_cache(maxsize=1024)
def _plan(fields, version):
    """How to show each of ``fields`` at ``version``, worked out once:
    (field, computed, value when stored as None, converter or None)."""
    return tuple((field, field in COMPUTED_FIELDS, _NONE_READS_AS.get(field),
                  _converter(field, version)) for field in fields)


def _row_keys(node):
    """The column names of ``node`` if it is a row (None for a Node)."""
    return node._fields if hasattr(node, '_fields') else None


def _show(node, plan, conductor_for, keys):
    # A row's values by name in one go: twice as fast as getattr per field
    # on a SQLAlchemy Row, which adds up over a page of nodes.
    stored = None if keys is None else dict(zip(keys, node))
    body = {}
    for field, computed, when_none, convert in plan:
        if computed:
            body[field] = (conductor_for(node.uuid) if field == 'conductor'
                           else None)
            continue
        raw = getattr(node, field) if stored is None else stored[field]
        if raw is None:
            # A new dict each time: bodies may be changed by their reader.
            body[field] = {} if field in _DICT_FIELDS else when_none
        elif convert is not None:
            body[field] = convert(raw)
        else:
            body[field] = raw
    return body


@functools.lru_cache(maxsize=None)
def _resource_links(version):
    return tuple(name for name, needed in RESOURCE_LINKS.items()
                 if needed <= version)


class View:
    """How nodes look to one request.

    :param version: the request's microversion.
    :param base_url: the base of links (default: the request's).
    :param conductor_for: node UUID -> the host the hash ring gives it to,
        or None; needed only to show ``conductor``.
    """

    def __init__(self, version, base_url=None, conductor_for=None):
        self.version = version
        self.base_url = base_url
        self._conductor_for = conductor_for

    def body(self, node, fields=None, keys=False):
        """The body of ``node``: ``fields`` (already checked) and links,
        or, without ``fields``, every field and the resource links.

        :param keys: the column names of ``node``, if known (see
            :meth:`bodies`).
        """
        if keys is False:
            keys = _row_keys(node)
        body = _show(node, _plan(fields or visible_fields(self.version),
                                 self.version), self._conductor_for, keys)
        own = 'nodes/' + node.uuid
        body['links'] = responses.links(own, base=self.base_url)
        if fields is None:
            for name in _resource_links(self.version):
                body[name] = responses.links(own, name, base=self.base_url)
        return body

    def bodies(self, nodes, fields=None):
        """:meth:`body` of each of ``nodes``, rows of one query or Nodes."""
        keys = _row_keys(nodes[0]) if nodes else None
        return [self.body(node, fields, keys) for node in nodes]

    def states(self, node):
        fields = tuple(field for field, needed in STATES_FIELDS.items()
                       if needed <= self.version)
        return _show(node, _plan(fields, self.version), None,
                     _row_keys(node))
