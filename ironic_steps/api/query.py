"""What a URL says: refuse unknown query parameters and NUL characters,
read booleans.

A NUL character (``%00``) is refused anywhere in a URL, for every
endpoint: PostgreSQL cannot hold one in a text value, so a filter or an
identifier with one would fail in the database (a 500) rather than find
nothing.
"""

from oslo_utils import strutils

from ironic_steps.common import exception


def check_known(args, allowed):
    """:raises InvalidParameterValue: naming parameters not in ``allowed``."""
    if not args:
        return
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        raise exception.InvalidParameterValue(
            err='Unknown query parameter(s) %s; this request accepts: %s' % (
                ', '.join(unknown), ', '.join(sorted(allowed)) or 'none'))


def check_no_nul(args, view_args):
    """:raises InvalidParameterValue: if a query parameter (name or value)
    or a part of the path holds a NUL character."""
    for name, value in args.items(multi=True):
        if '\x00' in name or '\x00' in value:
            raise exception.InvalidParameterValue(
                err='Query parameter %r holds a NUL character (%%00)'
                    % (name,))
    for value in (view_args or {}).values():
        if isinstance(value, str) and '\x00' in value:
            raise exception.InvalidParameterValue(
                err='The path holds a NUL character (%00)')


def boolean(args, name):
    """``?name=true`` -> True; None when absent."""
    value = args.get(name)
    if value is None:
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise exception.InvalidParameterValue(
            err='%s must be true or false, got %r' % (name, value)) from exc
