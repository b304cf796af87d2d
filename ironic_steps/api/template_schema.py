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

import collections

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import schema
from ironic_steps.api import template_view
from ironic_steps.common import traits
from ironic_steps.common import x_steps
from ironic_steps.conf import CONF

#: The interfaces whose deploy steps a template may name (Ironic 1.55).
STEP_INTERFACES = ('bios', 'deploy', 'management', 'power', 'raid')
#: The largest priority a database integer column holds everywhere.
MAX_PRIORITY = 2 ** 31 - 1

_STEP = {
    'type': 'object',
    'properties': {
        'interface': {'type': 'string', 'enum': list(STEP_INTERFACES)},
        'step': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'args': {'type': 'object'},
        'priority': {'anyOf': [
            {'type': 'integer', 'minimum': 0, 'maximum': MAX_PRIORITY},
            # Whole (a trailing newline is not a digit), and short enough
            # for int(), which refuses strings of thousands of digits.
            {'type': 'string', 'pattern': r'\A[0-9]{1,20}\Z'}]},
        # The x-steps extension's (0.6): seconds, overriding the driver's.
        'timeout': {'type': ['number', 'null'], 'exclusiveMinimum': 0},
    },
    'required': ['interface', 'step', 'args', 'priority'],
    'additionalProperties': False,
}

FIELD_SCHEMAS = {
    'uuid': {'type': ['string', 'null'],
             'pattern': identifiers.UUID_PATTERN},
    'name': {'type': 'string', 'minLength': 1,
             'maxLength': traits.MAX_LENGTH},
    'steps': {'type': 'array', 'items': _STEP, 'minItems': 1},
    'extra': {'type': ['object', 'null']},
}

_HINTS = {
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'name': "a deploy template's name is a trait: %s" % traits.RULE,
    'steps': 'each step is {"interface": one of %s, "step": a name, '
             '"args": {...}, "priority": an integer from 0}'
             % ', '.join(STEP_INTERFACES),
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
    listed twice."""
    steps = [dict(step, priority=int(step['priority'])) for step in steps]
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
        if step['priority'] > MAX_PRIORITY:
            raise errors.InvalidField(
                field='steps', reason='priority %s of step %d is more than '
                '%d' % (step['priority'], index, MAX_PRIORITY))
    counts = collections.Counter((step['interface'], step['step'])
                                 for step in steps)
    twice = sorted('%s.%s' % key for key, count in counts.items()
                   if count > 1)
    if twice:
        raise errors.InvalidField(
            field='steps', reason='a template lists each interface and step '
            'at most once; listed more than once: %s' % ', '.join(twice))
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
