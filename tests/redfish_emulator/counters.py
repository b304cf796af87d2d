"""Counts of the Redfish requests the emulator served, for benchmarks.

A benchmark asks how many BMC calls a deploy costs; the emulator is the
one place that sees every call, whichever client made it.  WSGI
middleware, outermost (so requests refused by an injected fault or by
authentication count too), counts each ``/redfish`` request by method and
by route, the route being its path with identifiers (system, manager,
task, volume, ...) replaced by ``{id}``.  Control API::

    GET    /emulator/requests   {"total": N, "by_method": {"GET": n, ...},
                                 "by_route": {"GET /redfish/v1/...": n}}
    DELETE /emulator/requests   start counting again from zero

Counts live in the process's memory, as faults do.
"""

import json
import re
import threading

from werkzeug import wrappers

CONTROL = '/emulator/requests'
# Collections whose members are named by an identifier in the next segment.
_NAMED = re.compile(r'/(Systems|Managers|Chassis|Tasks|TaskMonitors|Volumes|'
                    r'Drives|Storage|VirtualMedia|Sessions)/[^/]+')


def route(path):
    """A path with the identifiers of its members replaced by ``{id}``."""
    return _NAMED.sub(lambda m: '/%s/{id}' % m.group(1), path.rstrip('/'))


class RequestCounter:

    def __init__(self, app):
        self.app = app
        self._lock = threading.Lock()
        self._reset()

    def _reset(self):
        self.by_method, self.by_route = {}, {}

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path.rstrip('/') == CONTROL:
            return self._control(environ['REQUEST_METHOD'])(environ,
                                                            start_response)
        if path.startswith('/redfish'):
            method = environ['REQUEST_METHOD']
            key = '%s %s' % (method, route(path))
            with self._lock:
                self.by_method[method] = self.by_method.get(method, 0) + 1
                self.by_route[key] = self.by_route.get(key, 0) + 1
        return self.app(environ, start_response)

    def _control(self, method):
        with self._lock:
            if method == 'GET':
                body = {'total': sum(self.by_method.values()),
                        'by_method': dict(self.by_method),
                        'by_route': dict(self.by_route)}
                return wrappers.Response(json.dumps(body), status=200,
                                         mimetype='application/json')
            if method == 'DELETE':
                self._reset()
                return wrappers.Response(status=204)
        return wrappers.Response(
            json.dumps({'error': 'Use GET or DELETE %s.' % CONTROL}),
            status=405, mimetype='application/json')
