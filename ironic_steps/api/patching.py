"""Apply an RFC 6902 JSON patch to a resource's writable fields.

The one PATCH path of every resource.  The patch is applied to a document
of the resource's writable fields (those of its :class:`schema.Schema`
that exist at the request's microversion) with their real values (secrets
unmasked, unset fields as what the resource says they are when empty),
one operation at a time, so that an error names the operation that failed.
Removing a top-level field makes it empty.  The result is checked by the
schema; the caller saves it.  This module only computes changes.
"""

import copy

import jsonpatch
import jsonpointer

from ironic_steps.api import errors

_PATCH_ERRORS = (jsonpatch.JsonPatchException,
                 jsonpointer.JsonPointerException, KeyError, IndexError,
                 TypeError)


def parse(patch):
    """The operations of ``patch`` (the request body), checked for form.

    :raises InvalidBody: unless it is a non-empty list of operations.
    """
    if not isinstance(patch, list) or not patch:
        raise errors.InvalidBody(reason='expected a JSON patch: a non-empty '
                                 'list of operations (RFC 6902)')
    try:
        return jsonpatch.JsonPatch(patch).patch
    except (jsonpatch.InvalidJsonPatch, jsonpointer.JsonPointerException,
            AttributeError, TypeError) as exc:
        raise errors.InvalidBody(reason='not a valid JSON patch: %s'
                                 % exc) from exc


def fields_touched(operations):
    """The top-level fields the operations read or write."""
    fields = []
    for op in operations:
        for key in ('path', 'from'):
            if key not in op:
                continue
            parts = jsonpointer.JsonPointer(op[key]).parts
            if not parts:
                raise errors.InvalidBody(
                    reason='operation %s targets the whole resource; name '
                           'a field' % (op,))
            fields.append(parts[0])
    return fields


def apply(document, operations):
    """``document`` (changed in place) after ``operations``, one by one.

    :raises InvalidBody: naming the operation that does not apply.
    """
    for op in operations:
        try:
            document = jsonpatch.apply_patch(document, [op], in_place=True)
        except _PATCH_ERRORS as exc:
            raise errors.InvalidBody(
                reason='patch operation %s cannot be applied: %s'
                % (op, exc)) from exc
    return document


def changes(item, patch, schema, version, empty):
    """The field -> new value changes ``patch`` makes to ``item``.

    :param item: the resource as it stands (its fields are attributes).
    :param schema: the resource's :class:`schema.Schema`.
    :param empty: ``empty(field)``: what an unset or removed field is.
    :raises InvalidBody: for a malformed patch or one that does not apply.
    :raises UnknownFields, ReadOnlyFields, FieldNotInVersion: for paths
        outside the writable fields of ``version``.
    :raises InvalidField: for a resulting value its field does not take.
    """
    operations = parse(patch)
    schema.check_names(fields_touched(operations), schema.update_fields,
                       'changed', version)
    writable = schema.writable_fields(schema.update_fields, version)
    before = {}
    for field in writable:
        value = getattr(item, field)
        before[field] = empty(field) if value is None else value
    doc = apply(copy.deepcopy(before), operations)
    after = {field: doc.get(field, empty(field)) for field in writable}
    return schema.check_values(
        {f: after[f] for f in writable if after[f] != before[f]})
