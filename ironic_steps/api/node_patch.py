"""Apply an RFC 6902 JSON patch to a node's writable fields.

The shared :mod:`patching` machinery does the work on the writable fields
of :mod:`node_schema`; this module says what is node-specific: removing a
top-level field resets it (dicts to ``{}``, ``maintenance``,
``protected`` and ``retired`` to false, ``conductor_group`` to ``''``,
anything else to null), computed fields read as null, and leaving
maintenance clears its reason.  The checks of every operation and the
write-only rule for the secrets of the fields the node's view masks
(``driver_info``, ``instance_info``, ``network_data``, ...) are the shared
machinery's.  The caller saves the changes through the conductor; this
module only computes them.
"""

from ironic_steps.api import node_schema
from ironic_steps.api import node_view
from ironic_steps.api import patching

_DICT_FIELDS = frozenset(['driver_info', 'instance_info', 'properties',
                          'extra', 'network_data'])
#: What other removed fields become (not stored as null).
_REMOVED = {'maintenance': False, 'protected': False, 'retired': False,
            'conductor_group': ''}


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
    return changed
