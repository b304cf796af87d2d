"""What makes an inspection rule valid, as Ironic checks it (API 1.96).

A rule (:mod:`ironic_steps.common.inspection_rules`) has at least one
action; every condition and action is an object with a known ``op`` and
the ``args`` that operation takes (an object, or a list in parameter
order), a ``loop`` that is a list or an object, and a condition's
``multiple`` one of :data:`.conditions.MULTIPLE`.  Its ``phase`` is
``main`` (the only one there is) and its ``priority`` from 0 to 9999,
except for built-in rules, which may take any priority.

The API checks each field with these functions (its schema says the
types of the others); the built-in rules file is checked whole by
:func:`check_rule`.
"""

from ironic_steps.common.inspection_rules import actions
from ironic_steps.common.inspection_rules import conditions
from ironic_steps.common.inspection_rules import operations

PHASES = ('main',)
MIN_PRIORITY, MAX_PRIORITY = 0, 9999
DESCRIPTION_LENGTH = 255


class RuleFormatError(ValueError):
    """What is wrong with a rule (user text)."""


def _check_operation(index, operation, kind, find):
    where = '%s %d' % (kind, index)
    if not isinstance(operation, dict):
        raise RuleFormatError('%s is not an object' % where)
    missing = [key for key in ('op', 'args') if key not in operation]
    if missing:
        raise RuleFormatError('%s has no %s' % (where, ' nor '.join(missing)))
    if not isinstance(operation['op'], str):
        raise RuleFormatError('%s: op must be a string' % where)
    loop = operation.get('loop')
    if loop is not None and not isinstance(loop, (list, dict)):
        raise RuleFormatError('%s: loop must be a list or an object' % where)
    try:
        find(operation['op']).named_args(operation['args'])
    except operations.OperationError as exc:
        raise RuleFormatError('%s: %s' % (where, exc)) from exc


def check_conditions(rule_conditions):
    """:raises RuleFormatError: naming the first bad condition."""
    if rule_conditions is None:
        return []
    if not isinstance(rule_conditions, list):
        raise RuleFormatError('conditions must be a list')
    for index, condition in enumerate(rule_conditions):
        _check_operation(index, condition, 'condition',
                         lambda op: conditions.find(op)[0])
        multiple = condition.get('multiple')
        if multiple is not None and multiple not in conditions.MULTIPLE:
            raise RuleFormatError(
                'condition %d: multiple must be one of %s, got %r' % (
                    index, ', '.join(conditions.MULTIPLE), multiple))
    return rule_conditions


def check_actions(rule_actions):
    """:raises RuleFormatError: naming the first bad action, or for no
    action at all."""
    if not isinstance(rule_actions, list) or not rule_actions:
        raise RuleFormatError('a rule needs actions: a non-empty list')
    for index, action in enumerate(rule_actions):
        _check_operation(index, action, 'action', actions.find)
    return rule_actions


def check_rule(rule, built_in=False):
    """Check a whole rule (a dict, as written in the built-in rules file).

    :raises RuleFormatError: naming the problem.
    """
    if not isinstance(rule, dict):
        raise RuleFormatError('a rule must be an object')
    known = {'uuid', 'description', 'priority', 'sensitive', 'phase',
             'conditions', 'actions'}
    unknown = sorted(set(rule) - known)
    if unknown:
        raise RuleFormatError('unknown field(s) %s; a rule has: %s' % (
            ', '.join(unknown), ', '.join(sorted(known))))
    phase = rule.get('phase') or PHASES[0]
    if phase not in PHASES:
        raise RuleFormatError('phase %r is not one of %s' % (
            phase, ', '.join(PHASES)))
    priority = rule.get('priority', 0)
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise RuleFormatError('priority must be an integer')
    if not built_in and not MIN_PRIORITY <= priority <= MAX_PRIORITY:
        raise RuleFormatError('priority must be from %d to %d' % (
            MIN_PRIORITY, MAX_PRIORITY))
    description = rule.get('description')
    if description is not None and (not isinstance(description, str)
                                    or len(description)
                                    > DESCRIPTION_LENGTH):
        raise RuleFormatError('description must be a string of at most %d '
                              'characters' % DESCRIPTION_LENGTH)
    check_conditions(rule.get('conditions'))
    check_actions(rule.get('actions'))
