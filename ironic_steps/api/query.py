"""Query parameters: refuse unknown ones, read booleans."""

from oslo_utils import strutils

from ironic_steps.common import exception


def check_known(args, allowed):
    """:raises InvalidParameterValue: naming parameters not in ``allowed``."""
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        raise exception.InvalidParameterValue(
            err='Unknown query parameter(s) %s; this request accepts: %s' % (
                ', '.join(unknown), ', '.join(sorted(allowed)) or 'none'))


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
