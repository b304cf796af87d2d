"""Failure injection: a BMC that errors or hangs, on request of a test.

Real BMCs fail in ways the redfish hardware type must survive: one system's
requests answer 500, or the BMC stops answering and the client times out.
sushy-tools has nothing for this.  ``FaultInjector`` is a WSGI middleware
put in front of everything else (authentication included), with a small
control API that is *not* Redfish and needs no credentials -- it is the
test harness's, on loopback only:

    GET    /emulator/faults                 every fault, by target
    PUT    /emulator/faults/{target}        {"status": 500, "message": "...",
                                             "hang": 0}
    DELETE /emulator/faults/{target}        clear one
    DELETE /emulator/faults                 clear all

``target`` is a system's UUID or name (its ``/redfish/v1/Systems/{id}``
and ``/redfish/v1/Managers/{id}`` requests are hit, by either identifier)
or ``*`` (every request under ``/redfish``).  A request that matches first
sleeps ``hang`` seconds, then answers ``status`` with ``message`` as a
Redfish error if ``status`` is set, else goes on normally (a slow BMC).

Faults live in the process's memory: a restarted emulator has none, as a
rebooted BMC would.
"""

import json
import threading
import time

from werkzeug import wrappers

from tests.redfish_emulator import errors

CONTROL = '/emulator/faults'
_SCOPES = ('/redfish/v1/Systems/', '/redfish/v1/Managers/')


class FaultInjector:

    def __init__(self, app, aliases):
        """:param aliases: target -> every identifier it goes by (raises
        LookupError for an unknown target)."""
        self.app = app
        self.aliases = aliases
        self.faults = {}
        self._by_id = {}
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path == CONTROL or path.startswith(CONTROL + '/'):
            response = self._control(wrappers.Request(environ),
                                     path[len(CONTROL) + 1:])
            return response(environ, start_response)
        fault = self._match(path)
        if fault:
            time.sleep(fault.get('hang') or 0)
            if fault.get('status'):
                response = _json(fault['status'], errors.error_body(
                    fault.get('message') or 'Injected failure',
                    message_id=errors.BASE + 'InternalError',
                    severity='Critical'))
                return response(environ, start_response)
        return self.app(environ, start_response)

    def _match(self, path):
        with self._lock:
            if not self._by_id:
                return None
            if path.startswith('/redfish') and '*' in self._by_id:
                return self._by_id['*']
            for scope in _SCOPES:
                if path.startswith(scope):
                    ident = path[len(scope):].split('/', 1)[0]
                    return self._by_id.get(ident)
        return None

    def _control(self, request, target):
        with self._lock:
            if request.method == 'GET' and not target:
                return _json(200, self.faults)
            if request.method == 'DELETE':
                for name in ([target] if target else list(self.faults)):
                    self.faults.pop(name, None)
                self._reindex()
                return _json(204, None)
            if request.method != 'PUT' or not target:
                return _json(405, errors.error_body(
                    'Use GET %s, PUT or DELETE %s/{target}.'
                    % (CONTROL, CONTROL)))
            fault = request.get_json(force=True, silent=True)
            problem = _check(fault)
            if problem:
                return _json(400, errors.error_body(problem))
            try:
                self.aliases(target)
            except LookupError as exc:
                return _json(404, errors.error_body(str(exc)))
            self.faults[target] = fault
            self._reindex()
            return _json(204, None)

    def _reindex(self):
        self._by_id = {}
        for target, fault in self.faults.items():
            for ident in self.aliases(target):
                self._by_id[ident] = fault


def _check(fault):
    if not isinstance(fault, dict) or set(fault) - {'status', 'message',
                                                    'hang'}:
        return ('A fault is a JSON object with status (HTTP code), message '
                'and hang (seconds).')
    status = fault.get('status')
    if status is not None and (not isinstance(status, int)
                               or not 400 <= status <= 599):
        return 'status must be an HTTP error code, not %r.' % (status,)
    hang = fault.get('hang') or 0
    if not isinstance(hang, (int, float)) or hang < 0:
        return 'hang must be a number of seconds, not %r.' % (hang,)
    if not status and not hang:
        return 'A fault needs a status, a hang, or both.'
    return None


def _json(status, body):
    if body is None:
        return wrappers.Response(status=status)
    return wrappers.Response(json.dumps(body), status=status,
                             mimetype='application/json')
