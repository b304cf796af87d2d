"""Serving the API read-only: every request that could change something is
refused (403, in Ironic's error format), whatever the policy allows.

For a saved run served by ``ironic-steps inspect``: its database is a copy
that nothing may change, or it would no longer be the evidence it is.
"""

import posixpath

from ironic_steps.api import errors

#: Methods that only read.
_READS = frozenset(('GET', 'HEAD', 'OPTIONS'))
#: Paths whose GET writes: an agent's lookup hands out (and stores) a new
#: agent token for a node waiting in a flow.
_WRITING_READS = ('/v1/lookup',)


def _normal(path):
    """``path`` as a router may take it: ``//v1/./lookup/`` is
    ``/v1/lookup`` (compared as written, a writing read would slip past)."""
    return posixpath.normpath('/' + path.lstrip('/'))


class ReadOnly:
    """WSGI middleware: ``application`` for reads, 403 ``why`` for the rest."""

    def __init__(self, application, why):
        self.application = application
        self.why = why

    def __call__(self, environ, start_response):
        method = environ['REQUEST_METHOD']
        if method in _READS and _normal(environ.get('PATH_INFO', '')) not in (
                _WRITING_READS):
            return self.application(environ, start_response)
        payload = errors.body(403, '%s %s is refused: %s' % (
            method, environ.get('PATH_INFO', ''), self.why))
        start_response('403 Forbidden', [
            ('Content-Type', 'application/json'),
            ('Content-Length', str(len(payload)))])
        return [payload]
