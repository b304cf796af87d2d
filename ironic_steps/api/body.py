"""Read the JSON body of a request."""

import json

import flask

from ironic_steps.api import errors

_ABSENT = object()


def json_body(default=_ABSENT):
    """The decoded JSON body; ``default`` when there is none.

    :raises InvalidBody: for a body that is not JSON, or a missing body
        when no default is given.
    """
    raw = flask.request.get_data(cache=False)
    if not raw.strip():
        if default is _ABSENT:
            raise errors.InvalidBody(reason='a JSON body is required')
        return default
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise errors.InvalidBody(reason='malformed JSON: %s' % exc) from exc


def json_object(allowed, default=_ABSENT):
    """The body as a JSON object whose keys are all in ``allowed``."""
    body = json_body(default)
    if not isinstance(body, dict):
        raise errors.InvalidBody(reason='expected a JSON object')
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise errors.InvalidBody(
            reason='unknown key(s) %s; accepted: %s' % (
                ', '.join(unknown), ', '.join(sorted(allowed))))
    return body
