"""Apply an RFC 6902 JSON patch to a node's writable fields.

The patch is applied to a document of the node's writable fields with
their real values (secrets unmasked, unset dicts as ``{}``), one operation
at a time so that an error names the operation that failed.  Removing a
top-level field resets it (dicts to ``{}``, ``maintenance``,
``protected`` and ``retired`` to false, ``conductor_group`` to ``''``,
anything else to null).  The caller saves the changes through the
conductor; this module only computes them.
"""

import copy

import jsonpatch
import jsonpointer

from ironic_steps.api import errors
from ironic_steps.api import node_schema
from ironic_steps.api import node_view

_PATCH_ERRORS = (jsonpatch.JsonPatchException,
                 jsonpointer.JsonPointerException, KeyError, IndexError,
                 TypeError)
_DICT_FIELDS = frozenset(['driver_info', 'instance_info', 'properties',
                          'extra', 'network_data'])
#: What other removed fields become (not stored as null).
_REMOVED = {'maintenance': False, 'protected': False, 'retired': False,
            'conductor_group': ''}


def _parse(patch):
    if not isinstance(patch, list) or not patch:
        raise errors.InvalidBody(reason='expected a JSON patch: a non-empty '
                                 'list of operations (RFC 6902)')
    try:
        return jsonpatch.JsonPatch(patch)
    except (jsonpatch.InvalidJsonPatch, jsonpointer.JsonPointerException,
            AttributeError, TypeError) as exc:
        raise errors.InvalidBody(reason='not a valid JSON patch: %s'
                                 % exc) from exc


def _fields_touched(patch):
    """The top-level fields each operation reads or writes."""
    fields = []
    for op in patch:
        for key in ('path', 'from'):
            if key not in op:
                continue
            parts = jsonpointer.JsonPointer(op[key]).parts
            if not parts:
                raise errors.InvalidBody(
                    reason='operation %s targets the whole node; name a '
                           'field' % (op,))
            fields.append(parts[0])
    return fields


def _empty(field):
    """What a removed top-level field becomes."""
    if field in _DICT_FIELDS:
        return {}
    return _REMOVED.get(field)


def _current(node, field):
    if field in node_view.COMPUTED_FIELDS:
        return None
    value = getattr(node, field)
    return _empty(field) if value is None else value


def changes(node, patch, version):
    """The field -> new value changes ``patch`` makes to ``node``.

    :raises InvalidBody: for a malformed patch or one that does not apply.
    :raises UnknownFields, ReadOnlyFields, FieldNotInVersion: for paths
        outside the writable fields of ``version``.
    :raises InvalidField: for a resulting value its field does not take.
    """
    patch = _parse(patch)
    node_schema.check_names(_fields_touched(patch.patch),
                            node_schema.UPDATE_FIELDS, 'changed', version)
    writable = [f for f in node_view.visible_fields(version)
                if f in node_schema.UPDATE_FIELDS]
    before = {field: _current(node, field) for field in writable}
    doc = copy.deepcopy(before)
    for op in patch.patch:
        try:
            doc = jsonpatch.apply_patch(doc, [op], in_place=True)
        except _PATCH_ERRORS as exc:
            raise errors.InvalidBody(
                reason='patch operation %s cannot be applied: %s'
                % (op, exc)) from exc
    after = {field: doc.get(field, _empty(field)) for field in writable}
    changed = {f: after[f] for f in writable if after[f] != before[f]}
    node_schema.check_values(changed, version)
    if changed.get('maintenance') is False:
        changed['maintenance_reason'] = None
    return changed
