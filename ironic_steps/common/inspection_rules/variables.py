"""What a rule sees of a node and its inspection data, and the
interpolation of ``{...}`` fields in its args.

An arg such as ``"{inventory[cpu][count]}"`` is Python's ``str.format``
over ``node`` (the node object: ``{node.driver_info[x]}``),
``inventory``, ``plugin_data`` and, in a loop, ``item``; as in Ironic the
result is a string, and a field that cannot be resolved leaves the arg as
written (except for ``is-empty``, where a missing key reads as None).

The inventory and plugin data a rule sees have their secrets (keys
``password``, ``auth_token``, ``bmc_password``, anywhere) replaced by
``***`` unless ``[inspection_rules] mask_secrets`` says otherwise for it.
The node a rule sees (:func:`node_view`) always has its secrets masked, as
the API shows them: a rule copying ``{node.driver_info[redfish_password]}``
into a field anyone may read copies the mask, never the password.
"""

import dataclasses
import re
import string
import types

from oslo_log import log

from ironic_steps.common import masking
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)

#: Keys whose values a rule does not see (as Ironic's).
SECRET_KEYS = frozenset(['password', 'auth_token', 'bmc_password'])
MASK = '***'


def masked(data):
    """``data`` with the values of :data:`SECRET_KEYS` masked (a copy)."""
    if isinstance(data, dict):
        return {key: MASK if key in SECRET_KEYS else masked(value)
                for key, value in data.items()}
    if isinstance(data, list):
        return [masked(value) for value in data]
    return data


def node_view(node):
    """What ``{node.<field>}`` reads: the node's fields (only those), with
    their secrets masked as the API masks them."""
    return types.SimpleNamespace(**{
        field: masking.mask(getattr(node, field)) for field in node.fields})


def should_mask(sensitive_rule):
    """Whether a rule (sensitive or not) sees the data masked."""
    choice = CONF.inspection_rules.mask_secrets
    return choice == 'always' or (choice == 'sensitive'
                                  and not sensitive_rule)


@dataclasses.dataclass
class Scope:
    """What ``{...}`` fields may name: ``node``, ``inventory``,
    ``plugin_data`` and, in a loop, ``item``."""

    node: object
    inventory: dict
    plugin_data: dict

    def names(self, item=None, looping=False):
        names = {'node': self.node, 'inventory': self.inventory,
                 'plugin_data': self.plugin_data}
        if looping:
            names['item'] = item
        return names


#: A format spec asking for a field this wide or wider: a rule could ask
#: for gigabytes of padding ('{item:>999999999}').
_HUGE_WIDTH = re.compile(r'\d{4,}')


class _RuleFormatter(string.Formatter):
    """``str.format`` without its reach: no ``_``-named attribute (from a
    node or a dict, ``__class__`` and the like lead towards the
    interpreter's internals) and no field padded to thousands of
    characters."""

    def get_field(self, field_name, args, kwargs):
        if re.search(r'\._', field_name):
            raise ValueError('names starting with _ are not readable')
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value, format_spec):
        if _HUGE_WIDTH.search(format_spec):
            raise ValueError('format spec %r is too wide' % format_spec)
        return super().format_field(value, format_spec)


_FORMATTER = _RuleFormatter()


def _format(text, names, missing_as_none):
    try:
        return _FORMATTER.vformat(text, (), names)
    except KeyError:
        if missing_as_none:
            return None
        LOG.warning('Inspection rule field %r names nothing in the '
                    'inspection data; used as written', text)
    except (AttributeError, ValueError, IndexError, TypeError) as exc:
        LOG.warning('Inspection rule field %r cannot be interpolated (%s); '
                    'used as written', text, exc)
    return text


def interpolate(value, names, missing_as_none=False):
    """``value`` with every string in it (keys of objects too)
    interpolated over ``names``."""
    if isinstance(value, str):
        return _format(value, names, missing_as_none)
    if isinstance(value, dict):
        return {_format(key, names, missing_as_none) if isinstance(key, str)
                else key: interpolate(item, names, missing_as_none)
                for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, names, missing_as_none) for item in value]
    return value


def _resolve(value, names, looping, missing_as_none):
    if looping and isinstance(value, str):
        # An item may itself hold fields ('{item[value]}' standing for
        # '{inventory[bmc_address]}'): they are resolved in turn.
        value = _format(value, names, missing_as_none)
    return interpolate(value, names, missing_as_none)


def resolve_args(operation, args, names, looping, missing_as_none=False):
    """``args`` (named) with those ``operation`` formats interpolated, or
    every one of them in a loop, as Ironic."""
    return {name: _resolve(value, names, looping, missing_as_none)
            if looping or name in operation.formatted else value
            for name, value in args.items()}
