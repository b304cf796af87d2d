"""Which node fields a request may write, and what values they take.

The JSON schema of every writable field is data (:data:`FIELD_SCHEMAS`);
:func:`check_create` checks a create body with it, and
:func:`check_names` / :func:`check_values` serve the PATCH code in
:mod:`node_patch`.  Field existence by microversion comes from
:mod:`node_view`, so a field is gated in one place only.
"""

import jsonschema
from oslo_utils import strutils
from oslo_utils import uuidutils

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import node_view
from ironic_steps.common import exception
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

_VALIDATORS = {field: jsonschema.Draft202012Validator(schema)
               for field, schema in FIELD_SCHEMAS.items()}


def _allowed(writable, version):
    return [f for f in node_view.visible_fields(version) if f in writable]


def check_names(names, writable, action, version):
    """Refuse unknown, later-version and read-only field names.

    :raises UnknownFields: (400) names no node has.
    :raises FieldNotInVersion: (406) names from a later microversion.
    :raises ReadOnlyFields: (400) names that cannot be ``action``.
    """
    allowed = ', '.join(_allowed(writable, version))
    unknown = sorted(set(names) - set(node_view.FIELDS))
    if unknown:
        raise errors.UnknownFields(fields=', '.join(unknown), valid=allowed)
    node_view.check_fields(names, version)
    read_only = [f for f in node_view.FIELDS
                 if f in names and f not in writable]
    if read_only:
        raise errors.ReadOnlyFields(fields=', '.join(read_only),
                                    action=action, valid=allowed)


#: Fields holding a UUID: stored in canonical (lower) case.
_UUID_FIELDS = frozenset(field for field, schema in FIELD_SCHEMAS.items()
                         if schema.get('pattern') == UUID_PATTERN)


def check_values(values):
    """Check ``values`` (field -> value) and make UUIDs canonical, in place.

    :raises InvalidField: for a value its field's schema refuses.
    """
    for field, value in values.items():
        error = jsonschema.exceptions.best_match(
            _VALIDATORS[field].iter_errors(value))
        if error is not None:
            hint = _HINTS.get(field)
            # The schema's message quotes the value: not for a field that
            # may hold secrets.
            reason = ('expected %s' % ' or '.join(
                _VALIDATORS[field].schema['type'])
                if node_view.is_masked(field) else error.message)
            raise errors.InvalidField(field=field, reason=reason + (
                '; %s' % hint if hint else ''))
    name = values.get('name')
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
    for field in _UUID_FIELDS.intersection(values):
        values[field] = identifiers.canonical_uuid(values[field])


def check_create(body, version):
    """The fields of a node create request, checked.

    :returns: the body, whose fields all exist at ``version`` and are valid.
    """
    if not isinstance(body, dict):
        raise errors.InvalidBody(reason='expected a JSON object with the '
                                 'fields of the new node')
    check_names(body, CREATE_FIELDS, 'set on create', version)
    if body.get('driver') is None:
        raise exception.MissingParameterValue(
            err="A node needs a 'driver' (a hardware type).")
    check_values(body)
    return body
