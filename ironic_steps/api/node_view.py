"""What a node looks like in the API, at each microversion.

Owns the node's public fields, the microversion each appeared in, the
subset a plain list shows, and turning a :class:`objects.Node` (or a row of
its fields, see :meth:`objects.Node.list_fields`) into a JSON body (empty
dicts for unset dict fields, ISO 8601 times, secrets masked).  Which
fields a request may *write* is :mod:`node_schema`'s business.

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

#: Every public field, in the order bodies list them ('id' is internal).
FIELDS = (
    'uuid', 'name', 'driver', 'resource_class', 'instance_uuid',
    'provision_state', 'target_provision_state', 'provision_updated_at',
    'power_state', 'target_power_state', 'maintenance', 'maintenance_reason',
    'last_error', 'reservation', 'clean_step', 'deploy_step', 'driver_info',
    'driver_internal_info', 'instance_info', 'properties', 'extra',
    'bios_interface', 'boot_interface', 'deploy_interface',
    'management_interface', 'power_interface', 'raid_interface',
    'vendor_interface', 'created_at', 'updated_at',
)

#: Fields added after the minimum version: field -> (major, minor).
_FIELD_VERSIONS = {
    'resource_class': (1, v.MINOR_21_RESOURCE_CLASS),
    'boot_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'deploy_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'management_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'power_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'raid_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'vendor_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'bios_interface': (1, v.MINOR_40_BIOS_INTERFACE),
    'deploy_step': (1, v.MINOR_44_NODE_DEPLOY_STEP),
}

#: What GET /v1/nodes shows without ?fields (plus links), as Ironic.
LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'provision_state', 'maintenance')

#: GET /v1/nodes/{node}/states.
STATES_FIELDS = ('provision_state', 'target_provision_state',
                 'provision_updated_at', 'power_state', 'target_power_state',
                 'last_error')

_DICT_FIELDS = frozenset(['clean_step', 'deploy_step', 'driver_info',
                          'driver_internal_info', 'instance_info',
                          'properties', 'extra'])
_TIME_FIELDS = frozenset(['provision_updated_at', 'created_at',
                          'updated_at'])
_MASKED_FIELDS = frozenset(['driver_info', 'driver_internal_info',
                            'instance_info'])


def is_masked(field):
    """Whether ``field`` holds secrets, shown masked (see :mod:`masking`)."""
    return field in _MASKED_FIELDS


def since(field):
    """The version that introduced ``field``."""
    return _FIELD_VERSIONS.get(field, v.MIN_VERSION)


@functools.lru_cache(maxsize=None)
def visible_fields(version):
    """The fields a node has at ``version``, in body order."""
    return tuple(f for f in FIELDS if since(f) <= version)


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
    """``?fields=a,b`` -> ('a', 'b'), checked; None if not given."""
    if value is None:
        return None
    fields = tuple(f.strip() for f in value.split(',') if f.strip())
    if not fields:
        raise errors.UnknownFields(fields="''", valid=', '.join(
            visible_fields(version)))
    check_fields(fields, version)
    return fields


def value(node, field):
    """One field of ``node`` (a Node or a row) as the API shows it."""
    raw = getattr(node, field)
    if raw is None:
        return {} if field in _DICT_FIELDS else None
    if field in _TIME_FIELDS:
        # Rows hold times as stored, naive UTC; Nodes hold aware ones.
        if raw.tzinfo is None:
            raw = raw.replace(tzinfo=datetime.timezone.utc)
        return raw.isoformat()
    if field in _MASKED_FIELDS:
        return masking.mask(raw)
    return raw


def to_dict(node, fields, base_url=None):
    """The body of ``node`` with ``fields`` (already checked) and links."""
    body = {field: value(node, field) for field in fields}
    body['links'] = responses.links('nodes', node.uuid, base=base_url)
    return body


def states(node):
    return {field: value(node, field) for field in STATES_FIELDS}
