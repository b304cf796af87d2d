"""Which fields of a resource a request may write, and what values they take.

A resource's writable fields are a declaration (:class:`Schema`): the
JSON schema of each (data), the fields a create body may carry, the fields
a PATCH may change, the ones a create body must carry, and, where a JSON
schema cannot say it, a check function per field.  The schema refuses
names (unknown, from a later microversion, read-only) and values, naming
the field and the problem; field existence by microversion comes from the
resource's :class:`view.View`, so a field is gated in one place only.

Every resource gets the same strictness: patterns match whole (use the
anchored ones of :mod:`identifiers`), a field whose schema is
:data:`identifiers.UUID_PATTERN` is stored in canonical lower case, and a
refusal of a value in a field that may hold secrets (the view's masked
fields) never quotes a value that holds one.
"""

import jsonschema

from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.common import exception
from ironic_steps.common import masking


def _where(field, error):
    """' (at steps/0/priority)': where a nested schema error is."""
    if not error.absolute_path:
        return ''
    return ' (at %s)' % '/'.join(
        [field] + [str(part) for part in error.absolute_path])


#: Validators whose messages name only keys (a missing or an unexpected
#: one), never the value, so they may be said whatever the value holds.
_KEYS_ONLY = frozenset(['required', 'additionalProperties'])


def _touches_secret(error):
    """Whether a schema error's message could quote a secret."""
    if error.validator in _KEYS_ONLY:
        return False
    return (masking.path_is_secret(error.absolute_path)
            or masking.holds_secret(error.instance))


def _unquoted(error):
    """What is wrong, without the refused value (which holds a secret)."""
    if error.validator == 'type':
        expected = error.validator_value
        if isinstance(expected, str):
            expected = [expected]
        return 'expected %s' % ' or '.join(expected)
    return ('the value breaks the %r rule of its schema (it holds a secret, '
            'so it is not quoted)' % error.validator)


class Schema:
    """The writable fields of one kind of resource.

    :param view: the resource's :class:`view.View` (field existence).
    :param field_schemas: field -> JSON schema of its value.
    :param create_fields: what a create body may carry.
    :param update_fields: what a PATCH may change.
    :param required: field -> the message refusing a create body without
        it.
    :param hints: field -> a sentence said after a schema's own message,
        where that is cryptic.
    :param checks: field -> ``check(value) -> value``, run on a value its
        JSON schema accepted; raises :class:`errors.InvalidField` or
        returns the value, normalised.
    :param version_checks: field -> ``check(value, version)``, for what a
        field takes that depends on the microversion (a node's name below
        1.10); raises :class:`errors.InvalidField`.
    :param coerce: field -> ``coerce(value) -> value``, run before the
        JSON schema: the spellings a real client sends that mean a value
        of the field's type (``"True"`` for a flag).
    """

    def __init__(self, view, field_schemas, create_fields, update_fields,
                 required=None, hints=None, checks=None,
                 version_checks=None, coerce=None):
        self.view = view
        self.field_schemas = dict(field_schemas)
        self.create_fields = frozenset(create_fields)
        self.update_fields = frozenset(update_fields)
        self._required = dict(required or {})
        self._hints = dict(hints or {})
        self._checks = dict(checks or {})
        self._version_checks = dict(version_checks or {})
        self._coerce = dict(coerce or {})
        self._validators = {
            field: jsonschema.Draft202012Validator(schema)
            for field, schema in self.field_schemas.items()}
        self._uuid_fields = frozenset(
            field for field, schema in self.field_schemas.items()
            if schema.get('pattern') == identifiers.UUID_PATTERN)

    def writable_fields(self, writable, version):
        """The fields of ``writable`` that exist at ``version``."""
        return [f for f in self.view.visible_fields(version) if f in writable]

    def check_names(self, names, writable, action, version):
        """Refuse unknown, later-version and read-only field names.

        :raises UnknownFields: (400) names the resource does not have.
        :raises FieldNotInVersion: (406) names from a later microversion.
        :raises ReadOnlyFields: (400) names that cannot be ``action``.
        """
        allowed = ', '.join(self.writable_fields(writable, version))
        unknown = sorted(set(names) - set(self.view.fields))
        if unknown:
            self.view.refuse_unknown(unknown, version, allowed)
        self.view.check_fields(names, version)
        read_only = [f for f in self.view.fields
                     if f in names and f not in writable]
        if read_only:
            raise errors.ReadOnlyFields(fields=', '.join(read_only),
                                        action=action, valid=allowed)

    def _reason(self, field, error):
        # The schema's own message quotes the value it refuses: not when
        # that is, or holds, a secret.
        if self.view.is_masked(field) and _touches_secret(error):
            message = _unquoted(error)
        else:
            message = error.message
        return message + _where(field, error)

    def check_values(self, values, version):
        """``values`` checked and normalised by their fields' rules at
        ``version`` (UUIDs in lower case).

        :raises InvalidField: for a value its field refuses.
        """
        checked = {}
        for field, value in values.items():
            coerce = self._coerce.get(field)
            if coerce is not None:
                value = coerce(value)
            error = jsonschema.exceptions.best_match(
                self._validators[field].iter_errors(value))
            if error is not None:
                hint = self._hints.get(field)
                reason = self._reason(field, error)
                raise errors.InvalidField(field=field, reason=reason + (
                    '; %s' % hint if hint else ''))
            check = self._checks.get(field)
            value = value if check is None else check(value)
            version_check = self._version_checks.get(field)
            if version_check is not None:
                version_check(value, version)
            if field in self._uuid_fields:
                value = identifiers.canonical_uuid(value)
            checked[field] = value
        return checked

    def check_create(self, body, version, what):
        """The fields of a create request for ``what``, checked.

        :returns: the body's fields, which all exist at ``version`` and
            are valid, normalised.
        """
        if not isinstance(body, dict):
            raise errors.InvalidBody(reason='expected a JSON object with the '
                                     'fields of the new %s' % what)
        self.check_names(body, self.create_fields, 'set on create', version)
        for field, message in self._required.items():
            if body.get(field) is None:
                raise exception.MissingParameterValue(err=message)
        return self.check_values(body, version)
