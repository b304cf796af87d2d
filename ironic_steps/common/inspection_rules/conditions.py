"""The conditions of inspection rules, and how one is checked.

Each condition is a function of its args (declared through
:func:`.operations.declare` in :data:`CONDITIONS`); a rule holds when all
its conditions do.  As in Ironic:

* ``eq``, ``lt``, ``gt`` compare ``values`` (a list) pairwise in order
  (``[a, b, c]``: a < b < c); in a loop, or with ``force_strings``, as
  strings;
* ``is-empty`` (``''``, None, ``[]``, ``{}``, a missing field), ``is-none``,
  ``is-true`` (true, a non-zero number, ``"yes"``, ``"true"``), ``is-false``
  (false, zero, ``"no"``, ``"false"``, None), ``one-of`` (``value`` in
  ``values``), ``in-net`` (``address`` in ``subnet``), ``matches`` (a
  regular expression matching the whole of ``value``) and ``contains``
  (matching part of it);
* ``!op`` negates ``op``; with a ``loop``, ``multiple`` says whether
  ``any`` (the default), ``all``, the ``first`` or the ``last`` item
  decides.
"""

import operator
import re

import netaddr

from ironic_steps.common.inspection_rules import operations
from ironic_steps.common.inspection_rules import variables

#: Condition name -> :class:`.operations.Operation`.
CONDITIONS = {}
MULTIPLE = ('any', 'all', 'first', 'last')


class ConditionError(operations.OperationError):
    """A condition that cannot be checked on this data (user text)."""


def _declare(name, formatted=()):
    return operations.declare(CONDITIONS, name, formatted)


def _compare(compare, values, force_strings):
    if not isinstance(values, list):
        raise ConditionError('values must be a list, got %s'
                             % type(values).__name__)
    if force_strings:
        values = [str(value) for value in values]
    try:
        return all(compare(left, right)
                   for left, right in zip(values, values[1:]))
    except TypeError as exc:
        raise ConditionError('cannot compare %s: %s' % (values, exc)
                             ) from exc


@_declare('eq', formatted=['values'])
def _eq(_, values, force_strings=False):
    return _compare(operator.eq, values, force_strings)


@_declare('lt', formatted=['values'])
def _lt(_, values, force_strings=False):
    return _compare(operator.lt, values, force_strings)


@_declare('gt', formatted=['values'])
def _gt(_, values, force_strings=False):
    return _compare(operator.gt, values, force_strings)


@_declare('is-empty', formatted=['value'])
def _is_empty(_, value):
    return str(value) in ('', 'None', '[]', '{}')


@_declare('is-none', formatted=['value'])
def _is_none(_, value):
    return value is None


@_declare('is-true', formatted=['value'])
def _is_true(_, value):
    if isinstance(value, (bool, int, float)):
        return bool(value)
    if isinstance(value, str):
        return value.lower() in ('yes', 'true')
    return False


@_declare('is-false', formatted=['value'])
def _is_false(_, value):
    if isinstance(value, (bool, int, float)):
        return not value
    if isinstance(value, str):
        return value.lower() in ('no', 'false')
    return value is None


@_declare('one-of', formatted=['value'])
def _one_of(_, value, values=()):
    return value in values


@_declare('in-net', formatted=['address', 'subnet'])
def _in_net(_, address, subnet):
    try:
        return netaddr.IPAddress(address) in netaddr.IPNetwork(subnet)
    except (netaddr.AddrFormatError, ValueError, TypeError) as exc:
        raise ConditionError('in-net on %r and %r: %s' % (
            address, subnet, exc)) from exc


def _regex(pattern):
    try:
        return re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise ConditionError('invalid regular expression %r: %s' % (
            pattern, exc)) from exc


@_declare('matches', formatted=['value'])
def _matches(_, value, regex):
    return _regex(regex).fullmatch(str(value)) is not None


@_declare('contains', formatted=['value'])
def _contains(_, value, regex):
    return _regex(regex).search(str(value)) is not None


def parse_op(op):
    """``'!eq'`` -> ('eq', True); ``'eq'`` -> ('eq', False).

    :raises ConditionError: for more than one ``!``.
    """
    op = op.strip()
    if op.count('!') > 1:
        raise ConditionError('%r: one "!" at most negates a condition' % op)
    return op.lstrip('!').strip(), op.startswith('!')


def find(op):
    """The condition ``op`` (perhaps negated) names, and whether negated.

    :raises OperationError: for an unknown one.
    """
    name, negated = parse_op(op)
    return operations.find(CONDITIONS, name, 'condition'), negated


def _check_once(condition, args, scope, item, looping):
    found, negated = find(condition['op'])
    named = found.named_args(args)
    values = variables.resolve_args(
        found, named, scope.names(item, looping), looping,
        missing_as_none=found.name == 'is-empty')
    if looping and 'force_strings' in found.optional:
        # Interpolated loop items are strings: compare them as such.
        values['force_strings'] = True
    return found.run(None, **values) != negated


def holds(condition, scope):
    """Whether ``condition`` holds on ``scope`` (a
    :class:`.variables.Scope`).

    :raises OperationError: for a condition that cannot be checked.
    """
    args = condition.get('args', {})
    items = operations.loop_items(condition)
    if items is None:
        return _check_once(condition, args, scope, None, False)
    multiple = condition.get('multiple') or 'any'
    results = []
    for item in items:
        result = _check_once(condition, args, scope, item, True)
        if multiple == 'first':
            # Ironic's: the first item that holds decides.
            if result:
                return True
        results.append(result)
    if multiple == 'all':
        return all(results)
    if multiple == 'last':
        return results[-1]
    return any(results)
