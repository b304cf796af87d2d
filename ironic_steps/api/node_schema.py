"""Which node fields a request may write, and what values they take.

The JSON schema of every writable field is data (:data:`FIELD_SCHEMAS`),
checked by the shared :mod:`schema` machinery (which matches identifiers
whole and stores UUIDs in lower case, see :mod:`identifiers`);
:func:`check_create` checks a create body with it, and :func:`check_names`
/ :func:`check_values` serve the PATCH code in :mod:`node_patch`.  A name
must not look like a UUID or a number, nor be one Ironic reserves, and is
a host name below API 1.10.  Field existence by microversion comes from
:mod:`node_view`, so a field is gated in one place only.  Rules between
fields and the node's state (``protected`` only when active, ...) are the
conductor's (see :mod:`ironic_steps.conductor.node_updates`).  Where a
node's BMC may be (``driver_info``'s ``redfish_address`` and
``redfish_system_id``) is :mod:`ironic_steps.common.bmc_addresses`'.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import node_ident
from ironic_steps.api import node_view
from ironic_steps.api import schema
from ironic_steps.common import bmc_addresses
from ironic_steps.common import interfaces

NAME_PATTERN = identifiers.NAME_PATTERN
UUID_PATTERN = identifiers.UUID_PATTERN
#: Names Ironic refuses for a node: its sub-resources and actions of
#: /v1/nodes, which a name would be mistaken for in a URL.
RESERVED_NAMES = ('detail', 'maintenance', 'management', 'states',
                  'validate', 'vendor_passthru')

_INTERFACE_FIELDS = tuple('%s_interface' % i
                          for i in interfaces.ALL_INTERFACES)
_DICT = {'type': ['object', 'null']}
_INTERFACE = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}
_SHORT_TEXT = {'type': ['string', 'null'], 'maxLength': 255}
_TEXT = {'type': ['string', 'null']}
#: OpenStack network metadata: empty, or its three lists (checked no
#: deeper: the agent that applies it has the full schema).
_NETWORK_DATA = {'anyOf': [
    {'type': 'null'},
    {'type': 'object', 'maxProperties': 0},
    {'type': 'object', 'required': ['links', 'networks', 'services'],
     'properties': {key: {'type': 'array', 'items': {'type': 'object'}}
                    for key in ('links', 'networks', 'services')}},
]}

FIELD_SCHEMAS = {
    'uuid': {'type': ['string', 'null'], 'pattern': UUID_PATTERN},
    'name': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
             'pattern': NAME_PATTERN},
    'driver': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
    'instance_uuid': {'type': ['string', 'null'], 'pattern': UUID_PATTERN},
    'maintenance': {'type': 'boolean'},
    'maintenance_reason': {'type': ['string', 'null']},
    'driver_info': _DICT,
    'instance_info': _DICT,
    'properties': _DICT,
    'extra': _DICT,
    **{field: _INTERFACE for field in _INTERFACE_FIELDS},
    'chassis_uuid': {'type': ['string', 'null'], 'pattern': UUID_PATTERN},
    'conductor_group': {'type': ['string', 'null'], 'maxLength': 255,
                        'pattern': r'\A[a-zA-Z0-9_\-.]*\Z'},
    'automated_clean': {'type': ['boolean', 'null']},
    'protected': {'type': 'boolean'},
    'protected_reason': _TEXT,
    'owner': _SHORT_TEXT,
    'lessee': _SHORT_TEXT,
    'description': {'type': ['string', 'null'], 'maxLength': 4096},
    'retired': {'type': 'boolean'},
    'retired_reason': _TEXT,
    'network_data': _NETWORK_DATA,
    'shard': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255},
    # A node's UUID or name; stored as the UUID (see nodes.py).
    'parent_node': {'type': ['string', 'null'], 'minLength': 1,
                    'maxLength': 255},
    'disable_power_off': {'type': 'boolean'},
    'instance_name': {'type': ['string', 'null'], 'minLength': 1,
                      'maxLength': 255},
}

#: Said after a schema's own message, where that is cryptic.
_HINTS = {
    'name': "a name has 1-255 letters, digits, '-', '.', '_' or '~'",
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'instance_uuid': 'expected a UUID or null',
    'driver': 'a node needs a driver (a hardware type)',
    'chassis_uuid': 'expected the UUID of a chassis, or null',
    'conductor_group': "letters, digits, '_', '-' and '.' only",
    'network_data': 'expected {} or an object with "links", "networks" '
                    'and "services" lists (OpenStack network metadata)',
    'shard': 'a shard is a name of 1-255 characters, or null for none',
    'parent_node': 'expected the UUID or name of another node, or null',
}

#: What POST /v1/nodes accepts.
CREATE_FIELDS = frozenset(['uuid', 'name', 'driver', 'driver_info',
                           'properties', 'extra', 'instance_info',
                           'resource_class', 'chassis_uuid',
                           'conductor_group', 'automated_clean', 'owner',
                           'lessee', 'description', 'retired',
                           'retired_reason', 'network_data', 'shard',
                           'parent_node', 'disable_power_off',
                           'instance_name',
                           *_INTERFACE_FIELDS])
#: What PATCH /v1/nodes/{node} may change.
UPDATE_FIELDS = frozenset(FIELD_SCHEMAS) - {'uuid'}

#: Flags ``openstack baremetal node set --protected`` (and friends) send as
#: the strings "True" / "False"; Ironic takes those, so do we.
_FLAGS = ('maintenance', 'protected', 'retired', 'automated_clean',
          'disable_power_off')
_FLAG_WORDS = {'true': True, 'false': False}


def _flag(value):
    if isinstance(value, str) and value.lower() in _FLAG_WORDS:
        return _FLAG_WORDS[value.lower()]
    return value


def _check_name(name):
    if name is not None and (uuidutils.is_uuid_like(name)
                             or strutils.is_int_like(name)):
        raise errors.InvalidField(
            field='name', reason='%r looks like a UUID or a number; a name '
            'must not, or it could not be told apart from one' % name)
    if name in RESERVED_NAMES:
        raise errors.InvalidField(
            field='name', reason='%r is reserved, as in Ironic: it names a '
            'part of the API; reserved names: %s' % (
                name, ', '.join(RESERVED_NAMES)))
    return name


def _check_name_at(name, version):
    if name is not None and not node_ident.is_valid_name(name, version):
        raise errors.InvalidField(
            field='name', reason='%r is not a host name (lower-case '
            "letters, digits, '-' and '.'), which names are before API "
            '1.10' % name)


def _lower(conductor_group):
    """Lower case, as Ironic keeps groups (they match whatever the case)."""
    return (conductor_group or '').lower()


SCHEMA = schema.Schema(
    node_view.VIEW, FIELD_SCHEMAS, CREATE_FIELDS, UPDATE_FIELDS,
    required={'driver': "A node needs a 'driver' (a hardware type)."},
    hints=_HINTS,
    checks={'name': _check_name, 'conductor_group': _lower,
            'driver_info': bmc_addresses.check_driver_info},
    version_checks={'name': _check_name_at},
    coerce=dict.fromkeys(_FLAGS, _flag))


def check_names(names, writable, action, version):
    """Refuse unknown, later-version and read-only field names.

    :raises UnknownFields: (400) names no node has.
    :raises FieldNotInVersion: (406) names from a later microversion.
    :raises ReadOnlyFields: (400) names that cannot be ``action``.
    """
    SCHEMA.check_names(names, writable, action, version)


def check_values(values, version):
    """``values`` checked at ``version`` and normalised: UUIDs in canonical
    (lower) case, flags given as "true" / "false" as booleans,
    ``conductor_group`` in lower case.

    :raises InvalidField: for a value its field refuses.
    """
    return SCHEMA.check_values(values, version)


def check_create(body, version):
    """The fields of a node create request, checked.

    :returns: the body, whose fields all exist at ``version`` and are valid.
    """
    return SCHEMA.check_create(body, version, 'node')
