"""Apply an RFC 6902 JSON patch to a resource's writable fields.

The one PATCH path of every resource.  The patch is applied to a document
of the resource's writable fields (those of its :class:`schema.Schema`
that exist at the request's microversion) with their real values (secrets
unmasked, unset fields as what the resource says they are when empty),
one operation at a time, so that an error names the operation that failed.
Removing a top-level field makes it empty.  The result is checked by the
schema; the caller saves it.  This module only computes changes.

Every operation is checked before any is applied: an object with ``op``
(``add``, ``remove``, ``replace``, ``move``, ``copy`` or ``test``), a
``path`` and, as the op needs, ``value`` or ``from``, both pointers being
strings; nothing else.  Secrets are write-only (see :mod:`masking`): in
the fields the resource's view masks, ``test``, ``copy`` and ``move`` are
refused where they would read one, for a node's ``driver_info`` as for a
deploy template's step ``args``.  Errors name the operation by its
position, op and paths, never by a value of the resource, so they cannot
carry a secret.  A patch whose result would be nested deeper, or hold more
values, than a request body may is refused too (``copy`` can double a
document at every operation).
"""

import copy

import jsonpatch
import jsonpointer

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import strict_json
from ironic_steps.common import masking
from ironic_steps.conf import CONF

_PATCH_ERRORS = (jsonpatch.JsonPatchException,
                 jsonpointer.JsonPointerException, KeyError, IndexError,
                 TypeError, ValueError)
#: op -> the members it needs besides ``op`` and ``path``.
_OPERATIONS = {'add': ('value',), 'remove': (), 'replace': ('value',),
               'move': ('from',), 'copy': ('from',), 'test': ('value',)}
_MISSING = object()


def _describe(index, op):
    """How an error names an operation: its position, op and paths."""
    text = 'operation %d (%s %s' % (index, op['op'], op['path'])
    if 'from' in op:
        text += ' from %s' % op['from']
    return text + ')'


def _refuse(reason):
    return errors.InvalidBody(reason='not a valid JSON patch: %s' % reason)


def _pointer(index, op, member):
    value = op[member]
    if not isinstance(value, str):
        raise _refuse('"%s" of operation %d must be a JSON pointer string'
                      % (member, index))
    try:
        parts = jsonpointer.JsonPointer(value).parts
    except jsonpointer.JsonPointerException as exc:
        raise _refuse('"%s" of operation %d is not a JSON pointer (RFC '
                      '6901): %s' % (member, index, exc)) from exc
    if not parts:
        raise errors.InvalidBody(
            reason='%s targets the whole resource; name a field'
            % _describe(index, op))
    return parts


def _check_operation(index, op):
    """The (path parts, from parts or None) of a well-formed operation."""
    if not isinstance(op, dict):
        raise _refuse('operation %d is not an object' % index)
    name = op.get('op')
    if not isinstance(name, str) or name not in _OPERATIONS:
        raise _refuse('operation %d has no valid "op"; ops: %s'
                      % (index, ', '.join(_OPERATIONS)))
    needed = ('op', 'path') + _OPERATIONS[name]
    missing = [member for member in needed if member not in op]
    if missing:
        raise _refuse('operation %d (%s) needs %s'
                      % (index, name, ', '.join(missing)))
    unknown = sorted(set(op) - set(needed))
    if unknown:
        raise _refuse('operation %d (%s) takes only %s, not %s' % (
            index, name, ', '.join(needed),
            ', '.join(str(member)[:50] for member in unknown)))
    source = _pointer(index, op, 'from') if 'from' in op else None
    return _pointer(index, op, 'path'), source


def parse(patch):
    """The operations of ``patch`` (the request body), all checked for
    form, each as ``(operation, path parts, from parts or None)``.

    :raises InvalidBody: unless it is a non-empty list of well-formed
        operations.
    """
    if not isinstance(patch, list) or not patch:
        raise errors.InvalidBody(reason='expected a JSON patch: a non-empty '
                                 'list of operations (RFC 6902)')
    return [(op,) + _check_operation(index, op)
            for index, op in enumerate(patch, 1)]


def fields_touched(operations):
    """The top-level fields the (parsed) operations read or write."""
    return [parts[0] for _, path, source in operations
            for parts in (path, source) if parts is not None]


def _resolve(doc, parts):
    for part in parts:
        if isinstance(doc, dict):
            doc = doc.get(part, _MISSING)
        elif (isinstance(doc, list) and part.isascii() and part.isdigit()
              and int(part) < len(doc)):
            doc = doc[int(part)]
        else:
            return _MISSING
        if doc is _MISSING:
            return _MISSING
    return doc


def value_at(document, parts):
    """The value at ``parts`` (a parsed path) of ``document``, or None
    where there is none."""
    found = _resolve(document, parts)
    return None if found is _MISSING else found


def values_read(operations):
    """The paths (parsed) whose values the parsed ``operations`` read: a
    test's path, a copy's or a move's from."""
    return [path if op['op'] == 'test' else source
            for op, path, source in operations
            if op['op'] == 'test' or source is not None]


def _reads_a_secret(doc, parts, view):
    """Whether reading the value at ``parts`` would read a secret."""
    if not view.is_masked(parts[0]):
        return False
    field = _resolve(doc, parts[:1])
    return (masking.path_is_secret(parts[1:], field)
            or masking.holds_secret(_resolve(doc, parts)))


def _check_secrets(doc, index, op, path, source, view):
    if op['op'] == 'test' and _reads_a_secret(doc, path, view):
        raise errors.InvalidBody(
            reason='%s would test a secret; secrets can be set and '
                   'removed, never read' % _describe(index, op))
    if source is not None and _reads_a_secret(doc, source, view):
        raise errors.InvalidBody(
            reason='%s would %s a secret; secrets can be set and removed, '
                   'never read' % (_describe(index, op), op['op']))


def _why_not(doc, op, path, source):
    """Why ``op`` does not apply to ``doc``, naming only its paths."""
    if source is not None and _resolve(doc, source) is _MISSING:
        return '%s does not exist' % op['from']
    parent = _resolve(doc, path[:-1])
    if parent is _MISSING:
        return '%s does not exist' % '/'.join(
            [''] + [p.replace('~', '~0').replace('/', '~1')
                    for p in path[:-1]])
    if not isinstance(parent, (dict, list)):
        return 'the parent of %s is neither an object nor an array' % (
            op['path'])
    if op['op'] == 'test':
        return 'the value at %s is not the value tested' % op['path']
    if isinstance(parent, list):
        return '%s is not an index of the array' % op['path']
    return '%s does not exist' % op['path']


def apply(document, operations, view):
    """``document`` (changed in place) after the parsed ``operations``, one
    by one, under the secret rules of ``view`` (a :class:`view.View`).

    :raises InvalidBody: naming the operation that does not apply, reads
        a secret, or grows the document beyond what a body may carry.
    """
    budget = body.max_size()
    for index, (op, path, source) in enumerate(operations, 1):
        _check_secrets(document, index, op, path, source, view)
        if op['op'] == 'copy':
            # Each copied value counts against what one body may carry.
            budget -= strict_json.count_values(_resolve(document, source),
                                               budget)
            if budget < 0:
                raise errors.InvalidBody(
                    reason='%s makes the resource larger than a request '
                           'body may be' % _describe(index, op))
        try:
            document = jsonpatch.apply_patch(document, [op], in_place=True)
        except _PATCH_ERRORS as exc:
            # The library's messages may quote the document (secrets
            # included): say why in our own words.
            raise errors.InvalidBody(
                reason='%s cannot be applied: %s' % (
                    _describe(index, op),
                    _why_not(document, op, path, source))) from exc
    return document


def changes(item, patch, schema, version, empty, read=getattr):
    """The field -> new value changes ``patch`` makes to ``item``.

    :param item: the resource as it stands (its fields are attributes).
    :param schema: the resource's :class:`schema.Schema`.
    :param empty: ``empty(field)``: what an unset or removed field is.
    :param read: ``read(item, field)``: a field's value as it stands
        (default: the attribute; a resource with computed fields says).
    :raises InvalidBody: for a malformed patch, one that does not apply or
        would read a secret, or a result nested too deep.
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
        value = read(item, field)
        before[field] = empty(field) if value is None else value
    doc = apply(copy.deepcopy(before), operations, schema.view)
    after = {field: doc.get(field, empty(field)) for field in writable}
    changed = {f: after[f] for f in writable if after[f] != before[f]}
    try:
        strict_json.check_tree(changed, CONF.api.max_json_body_depth)
    except strict_json.StrictJSONError as exc:
        raise errors.InvalidBody(reason='the patched resource: %s' % exc
                                 ) from exc
    return schema.check_values(changed, version)


def apply_changes(item, patch, schema, version, empty):
    """Set on ``item`` the changes ``patch`` makes (see :func:`changes`);
    whether there were any, for the caller to save ``item``."""
    changed = changes(item, patch, schema, version, empty)
    for field, value in changed.items():
        setattr(item, field, value)
    return bool(changed)
