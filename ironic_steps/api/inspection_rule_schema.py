"""Which inspection rule fields a request may write, and their values.

Ironic's rules (1.96): a rule has a non-empty list of ``actions`` and may
have ``conditions``, each checked against the rule language
(:mod:`ironic_steps.common.inspection_rules.rule_format`: a known ``op``
and the args it takes); a ``description`` of at most 255 characters, a
``priority`` from 0 to 9999 (default 0), a ``phase`` (``main``, the only
one), and ``sensitive`` (its conditions and actions are then never shown,
and the flag cannot be taken back).  Everything is checked when written,
on create and on PATCH alike, by the shared :mod:`schema` machinery.
"""

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import inspection_rule_view
from ironic_steps.api import node_resources
from ironic_steps.api import schema
from ironic_steps.common.inspection_rules import actions
from ironic_steps.common.inspection_rules import conditions
from ironic_steps.common.inspection_rules import rule_format

_OPERATION = {'type': 'object', 'required': ['op', 'args'],
              'properties': {'op': {'type': 'string'},
                             'args': {'type': ['object', 'array']},
                             'loop': {'type': ['object', 'array']}}}

FIELD_SCHEMAS = {
    'uuid': {'type': ['string', 'null'],
             'pattern': identifiers.UUID_PATTERN},
    'description': {'type': ['string', 'null'],
                    'maxLength': rule_format.DESCRIPTION_LENGTH},
    'priority': {'type': ['integer', 'null'],
                 'minimum': rule_format.MIN_PRIORITY,
                 'maximum': rule_format.MAX_PRIORITY},
    'sensitive': {'type': ['boolean', 'null']},
    'phase': {'type': ['string', 'null'],
              'enum': list(rule_format.PHASES) + [None]},
    'conditions': {'type': ['array', 'null'], 'items': _OPERATION},
    'actions': {'type': 'array', 'minItems': 1, 'items': _OPERATION},
}

_HINTS = {
    'uuid': 'expected a UUID such as 1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'conditions': 'a condition is {"op": one of %s (or !op), "args": {...}}'
                  % ', '.join(sorted(conditions.CONDITIONS)),
    'actions': 'an action is {"op": one of %s, "args": {...}}'
               % ', '.join(sorted(actions.ACTIONS)),
}

#: What POST /v1/inspection_rules accepts.
CREATE_FIELDS = frozenset(FIELD_SCHEMAS)
#: What PATCH /v1/inspection_rules/{rule} may change.
UPDATE_FIELDS = CREATE_FIELDS - {'uuid'}
#: What a field left out or removed is, as Ironic stores it.
DEFAULTS = {'priority': 0, 'sensitive': False, 'phase': 'main',
            'conditions': []}


def _checked_by(check, field):
    def checked(value):
        try:
            return check(value)
        except rule_format.RuleFormatError as exc:
            raise errors.InvalidField(field=field, reason=str(exc)) from exc
    return checked


def _number(value):
    """``openstack baremetal inspection rule create --priority 10`` sends
    the string "10"; Ironic's client does, so we take it."""
    if (isinstance(value, str) and value.isascii() and value.isdigit()
            and len(value) < 6):
        return int(value)
    return value


def _default_if_null(field):
    return lambda value: DEFAULTS[field] if value is None else value


SCHEMA = schema.Schema(
    inspection_rule_view.VIEW, FIELD_SCHEMAS, CREATE_FIELDS, UPDATE_FIELDS,
    required={'actions': "An inspection rule needs 'actions' (a non-empty "
                         "list)."},
    hints=_HINTS,
    checks={'conditions': _checked_by(
                lambda value: rule_format.check_conditions(value) or [],
                'conditions'),
            'actions': _checked_by(rule_format.check_actions, 'actions'),
            'priority': _default_if_null('priority'),
            'sensitive': _default_if_null('sensitive'),
            'phase': _default_if_null('phase')},
    # As the CLI sends them: --sensitive true, --priority 10.
    coerce={'sensitive': node_resources.flag, 'priority': _number})


def empty(field):
    """What a removed (or unset) field is: its default, else null."""
    return DEFAULTS.get(field)
