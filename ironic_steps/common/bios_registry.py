"""The registry facts a cached BIOS setting may carry (API 1.74).

A BMC describes each BIOS attribute in its *attribute registry* (Redfish's
``AttributeRegistry``): its type, the values it allows, its bounds and
lengths, and whether it is read only, needs a reset to take effect or is
unique to the system.  ironic-steps keeps nine of those facts beside each
cached setting, under Ironic's names (:data:`FIELDS`).

*Registry facts* are a dict whose keys are among :data:`FIELDS`; a fact
that is missing or None is unknown (a BMC without a registry, or one that
does not say).  What each fact may hold:

* ``attribute_type``: a string of at most 255 characters (Redfish's
  ``Enumeration``, ``String``, ``Integer``, ``Boolean``, ``Password``);
* ``allowable_values``: a list of strings (an enumeration's values);
* ``lower_bound``, ``upper_bound``: integers (an integer's limits);
* ``min_length``, ``max_length``: integers from 0 (a string's lengths);
* ``read_only``, ``reset_required``, ``unique``: booleans.

This module owns those names and shapes, for every layer: objects refuse
facts of the wrong shape (:func:`checked`), drivers clean what a BMC
reports so that its mistakes never fail a step (:func:`usable`), the API
shows the facts by these names.  It never reads a BMC nor stores anything.
"""

import typing

from ironic_steps.common import exception

#: Every registry fact, in the order Ironic lists them.
FIELDS = ('attribute_type', 'allowable_values', 'lower_bound', 'max_length',
          'min_length', 'read_only', 'reset_required', 'unique',
          'upper_bound')

#: The ``attribute_type`` of a password: its value is never shown.
PASSWORD_TYPE = 'Password'

# Bounds are stored as BIGINT, lengths as INTEGER.
_BOUND_LIMIT = 2 ** 63
_LENGTH_LIMIT = 2 ** 31
_TYPE_LENGTH = 255


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _shape_of(field):
    """(test, description) of the values ``field`` may hold (not None)."""
    if field == 'attribute_type':
        return (lambda v: isinstance(v, str) and len(v) <= _TYPE_LENGTH,
                'a string of at most %d characters' % _TYPE_LENGTH)
    if field == 'allowable_values':
        return (lambda v: isinstance(v, (list, tuple))
                and all(isinstance(item, str) for item in v),
                'a list of strings')
    if field in ('lower_bound', 'upper_bound'):
        return (lambda v: _is_int(v) and -_BOUND_LIMIT <= v < _BOUND_LIMIT,
                'a 64-bit integer')
    if field in ('min_length', 'max_length'):
        return (lambda v: _is_int(v) and 0 <= v < _LENGTH_LIMIT,
                'an integer from 0 to %d' % (_LENGTH_LIMIT - 1))
    return (lambda v: isinstance(v, bool), 'true or false')


_SHAPES = {field: _shape_of(field) for field in FIELDS}


def problem(field: str, value: object) -> typing.Optional[str]:
    """What registry fact ``field`` should be, if ``value`` is not that;
    None if it is (None, an unknown fact, always is)."""
    if value is None:
        return None
    test, description = _SHAPES[field]
    return None if test(value) else description


def _stored(field, value):
    # Lists are stored as lists, whatever sequence was given.
    if field == 'allowable_values' and value is not None:
        return list(value)
    return value


def checked(facts: typing.Mapping[str, object], setting: str,
            node: object) -> dict:
    """``facts`` with every field of :data:`FIELDS` (unknown ones None).

    :param setting: the setting the facts describe, for messages.
    :param node: the node it belongs to, for messages.
    :raises InvalidParameterValue: naming the setting and the first fact
        that is not a registry fact or has the wrong shape (by the type
        of the value only: a BMC's answers are not quoted).
    """
    unknown = sorted(set(facts) - set(FIELDS))
    if unknown:
        raise exception.InvalidParameterValue(
            err='BIOS setting %s of node %s has no registry fact(s) %s; '
                'registry facts are: %s' % (
                    setting, node, ', '.join(map(str, unknown)),
                    ', '.join(FIELDS)))
    complete = {}
    for field in FIELDS:
        value = facts.get(field)
        wanted = problem(field, value)
        if wanted is not None:
            raise exception.InvalidParameterValue(
                err='Registry fact %s of BIOS setting %s of node %s must be '
                    '%s or null, not a %s' % (field, setting, node, wanted,
                                              type(value).__name__))
        complete[field] = _stored(field, value)
    return complete


def usable(facts: typing.Mapping[str, object]) -> tuple[dict, list]:
    """The facts of :data:`FIELDS` in ``facts`` that have their shape, and
    the names of those that did not (left out, so unknown).

    For what a BMC reports: a registry with one odd entry must not fail
    the step that reads it.
    """
    kept, dropped = {}, []
    for field in FIELDS:
        value = facts.get(field)
        if problem(field, value) is None:
            kept[field] = _stored(field, value)
        else:
            dropped.append(field)
    return kept, dropped
