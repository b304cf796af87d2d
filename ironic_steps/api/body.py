"""Read the JSON body of a request: bounded in size, strict JSON.

Every endpoint that takes a body reads it through here, so each one gets
the same limits: at most ``[api] max_json_body_size`` KiB (else 413, and a
body announced larger is not read at all) and strict JSON nested at most
``[api] max_json_body_depth`` deep (see :mod:`strict_json`; else 400).
"""

import flask

from ironic_steps.api import errors
from ironic_steps.api import strict_json
from ironic_steps.conf import CONF

_ABSENT = object()


def max_size():
    """The largest body accepted, in bytes."""
    return CONF.api.max_json_body_size * 1024


def _read():
    request = flask.request
    limit = max_size()
    if request.content_length is not None and request.content_length > limit:
        raise errors.RequestTooLarge(size=request.content_length,
                                     limit=limit)
    # One byte more than allowed tells a body that is too long from one
    # that is exactly as long as allowed, whatever its framing.
    raw = request.stream.read(limit + 1)
    if len(raw) > limit:
        raise errors.RequestTooLarge(size='more than %d' % limit,
                                     limit=limit)
    return raw


def json_body(default=_ABSENT):
    """The decoded JSON body; ``default`` when there is none.

    :raises InvalidBody: for a body that is not strict JSON, or a missing
        body when no default is given.
    :raises RequestTooLarge: for a body over the size limit.
    """
    raw = _read()
    if not raw.strip():
        if default is _ABSENT:
            raise errors.InvalidBody(reason='a JSON body is required')
        return default
    try:
        return strict_json.loads(raw, CONF.api.max_json_body_depth)
    except strict_json.StrictJSONError as exc:
        raise errors.InvalidBody(reason=str(exc)) from exc


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
