"""Which deploy template fields a request may write, and their values.

Ironic's rules (1.55): a template has a ``name``, which is a trait (see
:mod:`common.traits`), and a non-empty list of ``steps``, each
``{interface, step, args, priority}`` where ``interface`` is one that may
carry deploy steps (:data:`STEP_INTERFACES`), ``step`` a non-empty string,
``args`` a JSON object and ``priority`` an integer from 0 (a string of
digits is taken as one); no interface and step twice in one template.
Beyond Ironic (the x-steps extension, release 0.6), a step may say
``timeout``: seconds, overriding its driver's (``null``: the driver's).
``extra`` is free-form.  Everything is checked when written, on create and
on PATCH alike, by the shared :mod:`schema` machinery.
"""

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import schema
from ironic_steps.api import stored_steps
from ironic_steps.api import template_view
from ironic_steps.common import traits
from ironic_steps.common import x_steps
from ironic_steps.conf import CONF

#: The interfaces whose deploy steps a template may name (Ironic 1.55).
STEP_INTERFACES = ('bios', 'deploy', 'management', 'power', 'raid')
#: The largest priority a database integer column holds everywhere.
MAX_PRIORITY = stored_steps.MAX_POSITION

FIELD_SCHEMAS = {
    'uuid': {'type': ['string', 'null'],
             'pattern': identifiers.UUID_PATTERN},
    'name': {'type': 'string', 'minLength': 1,
             'maxLength': traits.MAX_LENGTH},
    'steps': stored_steps.list_schema(STEP_INTERFACES, 'priority', {
        # The x-steps extension's (0.6): seconds, overriding the driver's.
        'timeout': {'type': ['number', 'null'], 'exclusiveMinimum': 0}}),
    'extra': {'type': ['object', 'null']},
}

_HINTS = {
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'name': "a deploy template's name is a trait: %s" % traits.RULE,
    'steps': stored_steps.hint(STEP_INTERFACES, 'priority'),
}

#: What POST /v1/deploy_templates accepts.
CREATE_FIELDS = frozenset(FIELD_SCHEMAS)
#: What PATCH /v1/deploy_templates/{template} may change.
UPDATE_FIELDS = frozenset(['name', 'steps', 'extra'])


def _check_name(name):
    reason = traits.problem(name)
    if reason is not None:
        raise errors.InvalidField(field='name', reason=reason)
    return name


def _check_steps(steps):
    """The steps, priorities as integers; refuses an (interface, step)
    listed twice, and a timeout while the extension is off."""
    steps = stored_steps.checked(steps, 'priority', 'a template')
    for index, step in enumerate(steps):
        if 'timeout' in step and not x_steps.enabled():
            # As the pinned release's API would: a key it does not know.
            raise errors.InvalidField(
                field='steps', reason='step %d has an unknown key, timeout '
                '(a step timeout needs release %s; the services are pinned '
                'to %s)' % (index, x_steps.RELEASE,
                            CONF.pin_release_version))
        if step.get('timeout', 0) is None:
            del step['timeout']   # no limit of its own: the driver's
    return steps


SCHEMA = schema.Schema(
    template_view.VIEW, FIELD_SCHEMAS, CREATE_FIELDS, UPDATE_FIELDS,
    required={'name': "A deploy template needs a 'name' (a trait).",
              'steps': "A deploy template needs 'steps' (a non-empty list "
                       "of deploy steps)."},
    hints=_HINTS, checks={'name': _check_name, 'steps': _check_steps})


def empty(field):
    """What a removed field becomes: ``extra`` {}, anything else null
    (which a name and steps refuse)."""
    return {} if field == 'extra' else None
