"""Which node fields a request may write, and what values they take.

The JSON schema of every writable field is data (:data:`FIELD_SCHEMAS`),
checked by the shared :mod:`schema` machinery (which matches identifiers
whole and stores UUIDs in lower case, see :mod:`identifiers`);
:func:`check_create` checks a create body with it, and :func:`check_names`
/ :func:`check_values` serve the PATCH code in :mod:`node_patch`.  A name
must not look like a UUID or a number, nor be one Ironic reserves.  Field existence by
microversion comes from :mod:`node_view`, so a field is gated in one place
only.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import node_view
from ironic_steps.api import schema
from ironic_steps.drivers import base as drivers_base

NAME_PATTERN = identifiers.NAME_PATTERN
UUID_PATTERN = identifiers.UUID_PATTERN
#: Names Ironic refuses for a node: its sub-resources and actions of
#: /v1/nodes, which a name would be mistaken for in a URL.
RESERVED_NAMES = ('detail', 'maintenance', 'management', 'states',
                  'validate', 'vendor_passthru')

_INTERFACE_FIELDS = tuple('%s_interface' % i
                          for i in drivers_base.ALL_INTERFACES)
_DICT = {'type': ['object', 'null']}
_INTERFACE = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}

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
}

#: Said after a schema's own message, where that is cryptic.
_HINTS = {
    'name': "a name has 1-255 letters, digits, '-', '.', '_' or '~'",
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'instance_uuid': 'expected a UUID or null',
    'driver': 'a node needs a driver (a hardware type)',
}

#: What POST /v1/nodes accepts.
CREATE_FIELDS = frozenset(['uuid', 'name', 'driver', 'driver_info',
                           'properties', 'extra', 'instance_info',
                           'resource_class', *_INTERFACE_FIELDS])
#: What PATCH /v1/nodes/{node} may change.
UPDATE_FIELDS = frozenset(FIELD_SCHEMAS) - {'uuid'}


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


SCHEMA = schema.Schema(
    node_view.VIEW, FIELD_SCHEMAS, CREATE_FIELDS, UPDATE_FIELDS,
    required={'driver': "A node needs a 'driver' (a hardware type)."},
    hints=_HINTS, checks={'name': _check_name})


def check_names(names, writable, action, version):
    """Refuse unknown, later-version and read-only field names.

    :raises UnknownFields: (400) names no node has.
    :raises FieldNotInVersion: (406) names from a later microversion.
    :raises ReadOnlyFields: (400) names that cannot be ``action``.
    """
    SCHEMA.check_names(names, writable, action, version)


def check_values(values):
    """``values`` checked, UUIDs in canonical (lower) case.

    :raises InvalidField: for a value its field's schema refuses.
    """
    return SCHEMA.check_values(values)


def check_create(body, version):
    """The fields of a node create request, checked.

    :returns: the body, whose fields all exist at ``version`` and are valid.
    """
    return SCHEMA.check_create(body, version, 'node')
