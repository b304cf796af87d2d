"""Which node fields a request may write, and what values they take.

The JSON schema of every writable field is data (:data:`FIELD_SCHEMAS`);
:func:`check_create` checks a create body with it, and
:func:`check_names` / :func:`check_values` serve the PATCH code in
:mod:`node_patch`.  Field existence by microversion comes from
:mod:`node_view`, so a field is gated in one place only.  Rules between
fields and the node's state (``protected`` only when active, ...) are the
conductor's (see :mod:`ironic_steps.conductor.node_updates`).
"""

import jsonschema
from oslo_utils import strutils
from oslo_utils import uuidutils

from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import node_view
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.drivers import base as drivers_base

#: Ironic's logical names from 1.10: RFC 3986 unreserved characters.
NAME_PATTERN = r'^[A-Za-z0-9\-._~]+$'
UUID_PATTERN = (r'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
                r'[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')

_INTERFACE_FIELDS = tuple('%s_interface' % i
                          for i in drivers_base.ALL_INTERFACES)
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
    # There are no chassis here: a node belongs to none.
    'chassis_uuid': {'type': 'null'},
    'conductor_group': {'type': ['string', 'null'], 'maxLength': 255,
                        'pattern': r'^[a-zA-Z0-9_\-.]*$'},
    'automated_clean': {'type': ['boolean', 'null']},
    'protected': {'type': 'boolean'},
    'protected_reason': _TEXT,
    'owner': _SHORT_TEXT,
    'lessee': _SHORT_TEXT,
    'description': {'type': ['string', 'null'], 'maxLength': 4096},
    'retired': {'type': 'boolean'},
    'retired_reason': _TEXT,
    'network_data': _NETWORK_DATA,
}

#: Said after a schema's own message, where that is cryptic.
_HINTS = {
    'name': "a name has 1-255 letters, digits, '-', '.', '_' or '~'",
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'instance_uuid': 'expected a UUID or null',
    'driver': 'a node needs a driver (a hardware type)',
    'chassis_uuid': 'ironic-steps has no chassis, so a node belongs to '
                    'none: chassis_uuid can only be null',
    'conductor_group': "letters, digits, '_', '-' and '.' only",
    'network_data': 'expected {} or an object with "links", "networks" '
                    'and "services" lists (OpenStack network metadata)',
}

#: What POST /v1/nodes accepts.
CREATE_FIELDS = frozenset(['uuid', 'name', 'driver', 'driver_info',
                           'properties', 'extra', 'instance_info',
                           'resource_class', 'chassis_uuid',
                           'conductor_group', 'automated_clean', 'owner',
                           'lessee', 'description', 'retired',
                           'retired_reason', 'network_data',
                           *_INTERFACE_FIELDS])
#: What PATCH /v1/nodes/{node} may change.
UPDATE_FIELDS = frozenset(FIELD_SCHEMAS) - {'uuid'}

_VALIDATORS = {field: jsonschema.Draft202012Validator(schema)
               for field, schema in FIELD_SCHEMAS.items()}

#: Flags ``openstack baremetal node set --protected`` (and friends) send as
#: the strings "True" / "False"; Ironic takes those, so do we.
_FLAGS = frozenset(['maintenance', 'protected', 'retired', 'automated_clean'])
_FLAG_WORDS = {'true': True, 'false': False}


def _flag(value):
    if isinstance(value, str) and value.lower() in _FLAG_WORDS:
        return _FLAG_WORDS[value.lower()]
    return value


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


def check_values(values, version):
    """:raises InvalidField: for a value its field's schema refuses.

    :returns: ``values`` normalised: flags given as "true" / "false" as
        booleans, ``conductor_group`` lower case, as Ironic keeps it
        (groups match whatever their case).
    """
    for field in _FLAGS & set(values):
        values[field] = _flag(values[field])
    for field, value in values.items():
        error = jsonschema.exceptions.best_match(
            _VALIDATORS[field].iter_errors(value))
        if error is not None:
            hint = _HINTS.get(field)
            raise errors.InvalidField(field=field, reason=error.message + (
                '; %s' % hint if hint else ''))
    name = values.get('name')
    if name is not None and (uuidutils.is_uuid_like(name)
                             or strutils.is_int_like(name)):
        raise errors.InvalidField(
            field='name', reason='%r looks like a UUID or a number; a name '
            'must not, or it could not be told apart from one' % name)
    if (name is not None and not node_ident.HOSTNAME.match(name)
            and version < versions.at(versions.MINOR_10_UNRESTRICTED_NODE_NAME)):
        raise errors.InvalidField(
            field='name', reason='%r is not a host name (lower-case '
            "letters, digits, '-' and '.'), which names are before API "
            '1.10' % name)
    if 'conductor_group' in values:
        values['conductor_group'] = (values['conductor_group'] or '').lower()
    return values


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
    return check_values(body, version)
