"""The steps a stored step list holds: a deploy template's, a runbook's.

Both are non-empty lists of ``{interface, step, args, <position>}``, the
position being a deploy template step's ``priority`` (Ironic 1.55) or a
runbook step's ``order`` (Ironic 1.92): an integer from 0, a string of
digits taken as one.  ``interface`` is one the list's kind of step may
name, ``step`` a non-empty string, ``args`` a JSON object; an interface
and step appear at most once in a list.  This module makes the JSON
schema of such a list and the check a schema cannot say; which lists
exist and what else their steps may carry is their own schema's business
(:mod:`template_schema`, :mod:`runbook_schema`).  Whether a driver has the
steps is the conductor's, when the list is used.
"""

import collections

from ironic_steps.api import errors

#: The largest position a database integer column holds everywhere.
MAX_POSITION = 2 ** 31 - 1


def list_schema(interfaces, position, properties=None):
    """The JSON schema of a non-empty list of steps on ``interfaces``,
    placed by ``position`` (``priority``, ``order``), whose steps may also
    carry ``properties`` (name -> JSON schema)."""
    step = {
        'type': 'object',
        'properties': {
            'interface': {'type': 'string', 'enum': list(interfaces)},
            'step': {'type': 'string', 'minLength': 1, 'maxLength': 255},
            'args': {'type': 'object'},
            position: {'anyOf': [
                {'type': 'integer', 'minimum': 0, 'maximum': MAX_POSITION},
                # Whole (a trailing newline is not a digit), and short
                # enough for int(), which refuses thousands of digits.
                {'type': 'string', 'pattern': r'\A[0-9]{1,20}\Z'}]},
            **(properties or {}),
        },
        'required': ['interface', 'step', 'args', position],
        'additionalProperties': False,
    }
    return {'type': 'array', 'items': step, 'minItems': 1}


def hint(interfaces, position):
    """What a list's steps look like, said after a schema's refusal."""
    return ('each step is {"interface": one of %s, "step": a name, '
            '"args": {...}, "%s": an integer from 0}'
            % (', '.join(interfaces), position))


def checked(steps, position, what):
    """``steps`` (which the list's schema accepted), their positions as
    integers; refuses one beyond :data:`MAX_POSITION` and an (interface,
    step) listed twice, naming them and ``what`` lists them."""
    # In the order the API shows a step's keys, whatever the request's.
    steps = [{'interface': step['interface'], 'step': step['step'],
              'args': step['args'], **step, position: int(step[position])}
             for step in steps]
    for index, step in enumerate(steps):
        if step[position] > MAX_POSITION:
            raise errors.InvalidField(
                field='steps', reason='%s %s of step %d is more than %d'
                % (position, step[position], index, MAX_POSITION))
    counts = collections.Counter((step['interface'], step['step'])
                                 for step in steps)
    twice = sorted('%s.%s' % key for key, count in counts.items()
                   if count > 1)
    if twice:
        raise errors.InvalidField(
            field='steps', reason='%s lists each interface and step at most '
            'once; listed more than once: %s' % (what, ', '.join(twice)))
    return steps
