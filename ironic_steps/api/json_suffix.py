"""Ironic's ``.json`` URL suffix, below API 1.91.

Ironic's web framework read a trailing ``.json`` on a URL's last segment
as the format asked for and dropped it before routing, so below 1.91
``GET /v1/nodes.json`` lists nodes and ``GET /v1/nodes/foo.json`` shows the
node ``foo``; a node or portgroup whose name really ends in ``.json`` is
still found when no record has the shorter name.  From 1.91 a URL means
what it says (``/v1/nodes/foo.json`` is the node named ``foo.json``).

:class:`JsonSuffixMiddleware` drops the suffix, below 1.91, before
routing (inside :class:`versions.VersionMiddleware`, which settles the
version) and notes the segment it shortened; :func:`with_suffix` is the
fall-back lookup of a record named with the suffix.
"""

import flask

from ironic_steps.api import versions

_SUFFIX = '.json'
#: The environ key of the segment a suffix was dropped from (shortened).
ENVIRON_KEY = 'ironic_steps.json_suffix_dropped_from'
_VERSION = versions.at(versions.MINOR_91_DOT_JSON)


class JsonSuffixMiddleware:

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if (path.endswith(_SUFFIX) and path.startswith('/v1/')
                and versions.of(environ) < _VERSION):
            head, _slash, last = path.rpartition('/')
            shortened = last[:-len(_SUFFIX)]
            if shortened:
                environ['PATH_INFO'] = head + '/' + shortened
                environ[ENVIRON_KEY] = shortened
        return self.application(environ, start_response)


def with_suffix(find, ident, not_found):
    """``find(ident)``; if that raises ``not_found`` and ``ident`` is what
    this request's URL had a ``.json`` dropped from, ``find`` of the
    name with it."""
    try:
        return find(ident)
    except not_found:
        if flask.request.environ.get(ENVIRON_KEY) != ident:
            raise
        return find(ident + _SUFFIX)
