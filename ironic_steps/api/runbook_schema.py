"""Which runbook fields a request may write, and their values.

Ironic's rules (1.92): a runbook has a ``name`` and a non-empty list of
``steps``, each ``{interface, step, args, order}`` (see
:mod:`stored_steps`) on an interface that may carry clean steps
(:data:`STEP_INTERFACES`); it may say ``disable_ramdisk`` (run its steps
without booting the agent), ``public``, ``owner`` (a project) and
``extra``.  Below 1.112 a name is a trait (see :mod:`common.traits`), as a
node had to carry it to run the runbook; from 1.112 it is any string of
RFC 3986 unreserved characters, and a runbook has a ``description``.  Its
``traits`` are read-only here: they change through
``/v1/runbooks/{runbook}/traits``.  Everything is checked when written,
on create and on PATCH alike, by the shared :mod:`schema` machinery.
"""

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import runbook_view
from ironic_steps.api import schema
from ironic_steps.api import stored_steps
from ironic_steps.common import traits

#: The interfaces whose clean steps a runbook may name (Ironic's, but for
#: the firmware interface, which ironic-steps does not have).
STEP_INTERFACES = ('bios', 'deploy', 'management', 'power', 'raid',
                   'vendor')

_NAME_PATTERN = r'\A[A-Za-z0-9._~-]+\Z'

FIELD_SCHEMAS = {
    'uuid': {'type': ['string', 'null'],
             'pattern': identifiers.UUID_PATTERN},
    'name': {'type': 'string', 'minLength': 1, 'maxLength': 255,
             'pattern': _NAME_PATTERN},
    'description': {'type': ['string', 'null'], 'maxLength': 255},
    'steps': stored_steps.list_schema(STEP_INTERFACES, 'order'),
    'disable_ramdisk': {'type': ['boolean', 'null']},
    'public': {'type': ['boolean', 'null']},
    'owner': {'type': ['string', 'null'], 'maxLength': 255},
    'extra': {'type': ['object', 'null']},
}

_HINTS = {
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'name': 'a runbook name is made of letters, digits and - . _ ~ (at '
            'most 255)',
    'steps': stored_steps.hint(STEP_INTERFACES, 'order'),
}

#: What POST /v1/runbooks accepts.
CREATE_FIELDS = frozenset(FIELD_SCHEMAS)
#: What PATCH /v1/runbooks/{runbook} may change.
UPDATE_FIELDS = CREATE_FIELDS - {'uuid'}


def _check_name(name):
    # A UUID names a runbook by its UUID: such a name could never be used.
    if identifiers.is_uuid(name):
        raise errors.InvalidField(
            field='name', reason='%r is a UUID, which names a runbook by '
            'its uuid; choose another name' % name)
    return name


def _check_name_at(name, version):
    """Below 1.112 a node ran a runbook by carrying its name as a trait."""
    if version < runbook_view.TRAITS_VERSION:
        reason = traits.problem(name)
        if reason is not None:
            raise errors.InvalidField(
                field='name', reason='%s (below API 1.112 a runbook is named '
                'by a trait)' % reason)


def _flag(value):
    return bool(value)


SCHEMA = schema.Schema(
    runbook_view.VIEW, FIELD_SCHEMAS, CREATE_FIELDS, UPDATE_FIELDS,
    required={'name': "A runbook needs a 'name'.",
              'steps': "A runbook needs 'steps' (a non-empty list of clean "
                       "steps)."},
    hints=_HINTS,
    checks={'name': _check_name,
            'steps': lambda steps: stored_steps.checked(steps, 'order',
                                                        'a runbook'),
            # null: false, as Ironic stores it.
            'public': _flag, 'disable_ramdisk': _flag},
    version_checks={'name': _check_name_at})


def empty(field):
    """What a removed field becomes: ``extra`` {}, a flag false, anything
    else null (which a name and steps refuse)."""
    if field == 'extra':
        return {}
    if field in ('public', 'disable_ramdisk'):
        return False
    return None
