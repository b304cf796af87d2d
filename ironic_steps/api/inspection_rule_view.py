"""What an inspection rule looks like in the API (from 1.96).

Owns the rule's public fields and the subset a plain list shows, as
Ironic: ``uuid``, ``priority``, ``phase`` and ``description`` (and links)
unless asked for more.  The ``conditions`` and ``actions`` of a
``sensitive`` rule are shown as null, as Ironic does, and those of any
other rule with their secrets masked (:func:`compute`).  Which fields a
request may write is :mod:`inspection_rule_schema`'s business.
"""

from ironic_steps.api import patching
from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps.common import masking
from ironic_steps import objects

#: The version inspection rules appeared in.
VERSION = v.at(v.MINOR_96_INSPECTION_RULES)
#: The release that brought them: hidden while pinned to an older one.
RELEASE = '0.13'

FIELDS = ('uuid', 'description', 'priority', 'sensitive', 'phase',
          'conditions', 'actions', 'created_at', 'updated_at')
#: What a sensitive rule hides.
HIDDEN_WHEN_SENSITIVE = ('conditions', 'actions')

VIEW = view.View(
    'inspection_rules', FIELDS, min_version=VERSION,
    list_fields=('uuid', 'priority', 'phase', 'description'),
    empty={'sensitive': bool}, times=('created_at', 'updated_at'),
    masked=HIDDEN_WHEN_SENSITIVE, computed=HIDDEN_WHEN_SENSITIVE,
    unknown_while_pinned=objects.InspectionRule.fields_unknown_under_pin)


def _masked_operation(operation):
    """``operation`` masked (args ``{"path", "value"}`` setting a secret
    included, see :mod:`masking`); the list form ``[path, value]`` too."""
    shown = masking.mask(operation)
    args = shown.get('args') if isinstance(shown, dict) else None
    if (isinstance(args, list) and len(args) > 1
            and isinstance(args[0], str) and masking.is_secret(args[0])):
        args[1] = masking.MASK
    return shown


def shows_differently(rule, parts):
    """Whether the value at ``parts`` (a parsed path, under ``conditions``
    or ``actions``) is not shown as stored: hidden or masked."""
    field = parts[0]
    return (patching.value_at(getattr(rule, field), parts[1:])
            != patching.value_at(compute(rule, field), parts[1:]))


def compute(rule, field):
    """What ``conditions`` or ``actions`` of ``rule`` show."""
    if rule.sensitive:
        return None
    return [_masked_operation(operation)
            for operation in getattr(rule, field) or ()]
