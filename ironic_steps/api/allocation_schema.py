"""Which allocation fields a request may write, and their values.

Ironic's rules: a new allocation names a ``resource_class`` (at most 80
characters; when backfilling, from 1.58, it defaults to the node's), may
ask for ``traits`` (each a trait, see :mod:`common.traits`), list
``candidate_nodes`` (node UUIDs or names, which the controller resolves),
carry a logical ``name``, a ``uuid``, free-form ``extra`` and, from 1.60,
an ``owner``.  A PATCH (from 1.57) changes only ``name`` and ``extra``.
The node to backfill (``node``) is not a field of the allocation: the
controller takes it out of the body first.
"""

from ironic_steps.api import allocation_view
from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import schema
from ironic_steps.common import traits

FIELD_SCHEMAS = {
    'uuid': {'type': ['string', 'null'],
             'pattern': identifiers.UUID_PATTERN},
    'name': {'type': ['string', 'null'],
             'pattern': identifiers.NAME_PATTERN},
    'resource_class': {'type': ['string', 'null'], 'minLength': 1,
                       'maxLength': 80},
    'traits': {'type': ['array', 'null'],
               'items': {'type': 'string', 'minLength': 1,
                         'maxLength': traits.MAX_LENGTH}},
    'candidate_nodes': {'type': ['array', 'null'],
                        'items': {'type': 'string', 'minLength': 1,
                                  'maxLength': 255}},
    'extra': {'type': ['object', 'null']},
    'owner': {'type': ['string', 'null'], 'maxLength': 255},
}

_HINTS = {
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'name': 'a name is 1-255 of A-Z a-z 0-9 - . _ ~',
    'traits': traits.RULE,
    'candidate_nodes': 'expected a list of node UUIDs or names',
}

#: What POST /v1/allocations accepts (besides ``node``).
CREATE_FIELDS = frozenset(FIELD_SCHEMAS)
#: What PATCH /v1/allocations/{allocation} may change.
UPDATE_FIELDS = frozenset(['name', 'extra'])


def _check_name(name):
    if name is not None and identifiers.is_uuid(name):
        raise errors.InvalidField(
            field='name', reason='%r is a UUID, which would make it '
            'ambiguous; UUIDs name allocations already' % name)
    return name


def _check_traits(names):
    for name in names or ():
        reason = traits.problem(name)
        if reason is not None:
            raise errors.InvalidField(field='traits', reason=reason)
    return names


SCHEMA = schema.Schema(
    allocation_view.VIEW, FIELD_SCHEMAS, CREATE_FIELDS, UPDATE_FIELDS,
    hints=_HINTS, checks={'name': _check_name, 'traits': _check_traits})


def empty(field):
    """What a removed field becomes: ``extra`` {}, a name null."""
    return {} if field == 'extra' else None
