"""Apply an RFC 6902 JSON patch to a node's writable fields.

The shared :mod:`patching` machinery does the work on the writable fields
of :mod:`node_schema`; this module says what is node-specific: removing a
top-level field resets it (dicts to ``{}``, ``maintenance``,
``protected``, ``retired`` and ``disable_power_off`` to false,
``conductor_group`` to ``''``, anything else to null), computed fields
read as null, leaving maintenance clears its reason, a node without an
``instance_name`` takes its new ``instance_info/display_name`` (as Ironic,
at every version), and a BMC address that changes takes its old
credentials with it
(:func:`forget_moved_credentials`).  The checks of every operation and the
write-only rule for the secrets of the fields the node's view masks
(``driver_info``, ``instance_info``, ``network_data``, ...) are the shared
machinery's.  The caller saves the changes through the conductor; this
module only computes them.
"""

from ironic_steps.api import node_schema
from ironic_steps.api import node_view
from ironic_steps.api import patching
from ironic_steps.common import masking
from ironic_steps import objects

_DICT_FIELDS = frozenset(['driver_info', 'instance_info', 'properties',
                          'extra', 'network_data'])
#: What other removed fields become (not stored as null).
_REMOVED = {'maintenance': False, 'protected': False, 'retired': False,
            'disable_power_off': False, 'conductor_group': ''}


_MAX_INSTANCE_NAME = node_schema.FIELD_SCHEMAS['instance_name']['maxLength']


def _empty(field):
    """What a removed top-level field becomes."""
    if field in _DICT_FIELDS:
        return {}
    return _REMOVED.get(field)


def _read(node, field):
    if field in node_view.COMPUTED_FIELDS:
        return None
    return getattr(node, field)


def changes(node, patch, version):
    """The field -> new value changes ``patch`` makes to ``node``.

    :raises InvalidBody: for a malformed patch, one that does not apply or
        would read a secret.
    :raises UnknownFields, ReadOnlyFields, FieldNotInVersion: for paths
        outside the writable fields of ``version``.
    :raises InvalidField: for a resulting value its field does not take.
    """
    changed = patching.changes(node, patch, node_schema.SCHEMA, version,
                               _empty, read=_read)
    if changed.get('maintenance') is False:
        changed['maintenance_reason'] = None
    _name_the_instance(node, changed)
    return changed


def _name_the_instance(node, changed):
    """``instance_name`` from a new ``instance_info/display_name``, when
    the node has none and the patch sets none: what a client that only
    knows ``instance_info`` (Nova's driver) names the instance."""
    display_name = (changed.get('instance_info') or {}).get('display_name')
    if ('instance_name' in changed or node.instance_name
            or 'instance_name' in objects.Node.fields_unknown_under_pin()
            or not isinstance(display_name, str)
            or not 0 < len(display_name) <= _MAX_INSTANCE_NAME):
        return
    changed['instance_name'] = display_name


_ADDRESS = '_address'


def forget_moved_credentials(node, changed, patch):
    """Drop from ``changed['driver_info']`` the secrets of an address that
    changed (``redfish_address`` -> ``redfish_password``, any secret whose
    key shares the prefix) unless the patch sets them anew.

    Else whoever may change a node, without being able to read its BMC
    password, could send the password to a host of their choosing by
    pointing the address there.  The caller gives it again along with the
    new address when the BMC is the same one behind a new address.
    """
    new = changed.get('driver_info')
    if new is None:
        return
    old = node.driver_info or {}
    given = {op.get('path') for op in patch if isinstance(op, dict)}
    if '/driver_info' in given:
        return   # driver_info given whole: every key in it is given anew
    moved = [key[:-len(_ADDRESS)] for key in old
             if key.endswith(_ADDRESS) and new.get(key) != old.get(key)]
    stale = [key for key in new for prefix in moved
             if key.startswith(prefix) and masking.is_secret(key)
             and '/driver_info/' + key not in given]
    if stale:
        changed['driver_info'] = {key: value for key, value in new.items()
                                  if key not in stale}
