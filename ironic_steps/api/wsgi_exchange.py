"""One request through a WSGI application (PEP 3333), as bytes to send.

The server (:mod:`server`) owns connections, deadlines and threads; this
module owns what happens to one whole request, and knows nothing of
sockets: the ``environ`` built from it (:func:`environ`), the
application's answer collected (:func:`call`), and the response head
written from it (:func:`head`), the framing headers being the server's,
never the application's.  What the server answers itself (refused
requests) has the same shape, from :func:`error_answer`.
"""

import email.utils
import io
import sys
import time
import urllib.parse

from oslo_log import log

from ironic_steps.api import errors
from ironic_steps.api import http_request

LOG = log.getLogger(__name__)

_GENERIC_500 = ('An unexpected error prevented the server from fulfilling '
                'the request; the details are in the server log.')
#: Response headers the server writes itself, whatever the application
#: says.
_FRAMING = ('connection', 'transfer-encoding', 'keep-alive')


class DateHeader:
    """The Date header value, formatted once a second."""

    def __init__(self):
        self._second = None
        self._value = None

    def __call__(self):
        second = int(time.time())
        if second != self._second:
            self._value = email.utils.formatdate(second, usegmt=True)
            self._second = second
        return self._value


def error_answer(exc):
    """(status, headers, body) of an :class:`http_request.HTTPError`, in
    Ironic's JSON error format."""
    return ('%d %s' % (exc.status.value, exc.status.phrase),
            [('Content-Type', 'application/json')],
            errors.body(exc.status.value, exc.message))


def call(application, environ):
    """(status, headers, body bytes) of the application's answer; a 500
    without internals if it raises or never starts its response."""
    answer = []
    chunks = []

    def start_response(status, headers, exc_info=None):
        if exc_info is not None and answer:
            raise exc_info[1].with_traceback(exc_info[2])
        answer[:] = [status, headers]
        return chunks.append

    try:
        result = application(environ, start_response)
        try:
            chunks.extend(chunk for chunk in result if chunk)
        finally:
            if hasattr(result, 'close'):
                result.close()
        if not answer:
            raise RuntimeError('the application did not call '
                               'start_response')
    except Exception:
        LOG.exception('Unexpected error in the API application')
        return error_answer(http_request.HTTPError(500, _GENERIC_500))
    return answer[0], answer[1], b''.join(chunks)


def environ(request, server_name, server_port, remote_address, url_scheme,
            multithread):
    """The WSGI ``environ`` of ``request`` (an :class:`http_request.
    Request`).

    :raises http_request.HTTPError: 400 for a target that is neither a
        path nor an absolute http(s) URL.
    """
    target = request.target
    if not target.startswith('/'):
        parts = urllib.parse.urlsplit(target)
        if parts.scheme not in ('http', 'https') or not parts.netloc:
            raise http_request.HTTPError(
                400, 'The request target must be a path (/v1/...).')
        target = urllib.parse.urlunsplit(
            ('', '', parts.path or '/', parts.query, ''))
    path, _, query = target.partition('?')
    result = {
        'REQUEST_METHOD': request.method,
        'SCRIPT_NAME': '',
        'PATH_INFO': urllib.parse.unquote_to_bytes(
            path.partition('#')[0]).decode('latin-1'),
        'QUERY_STRING': query.partition('#')[0],
        'SERVER_NAME': server_name,
        'SERVER_PORT': str(server_port),
        'SERVER_PROTOCOL': request.version,
        'REMOTE_ADDR': remote_address,
        'wsgi.version': (1, 0),
        'wsgi.url_scheme': url_scheme,
        'wsgi.input': io.BytesIO(request.body),
        'wsgi.input_terminated': True,
        'wsgi.errors': sys.stderr,
        'wsgi.multithread': multithread,
        'wsgi.multiprocess': False,
        'wsgi.run_once': False,
    }
    if request.has_body:
        result['CONTENT_LENGTH'] = str(len(request.body))
    for name, value in request.headers:
        # Framing is the server's business; a name with '_' would read
        # like one with '-' (X_User_Id for X-User-Id): both dropped.
        if name in ('content-length', 'transfer-encoding') or '_' in name:
            continue
        key = ('CONTENT_TYPE' if name == 'content-type'
               else 'HTTP_' + name.upper().replace('-', '_'))
        result[key] = ('%s,%s' % (result[key], value)
                       if key in result else value)
    return result


def head(request, status, headers, body, keep_alive, date):
    """The response head (bytes) for ``request``: the application's
    headers without framing ones, then ``Content-Length`` from the body,
    ``Date`` and ``Connection`` as the server decided."""
    lines = ['HTTP/1.1 %s\r\n' % status]
    for name, value in headers:
        lower = name.lower()
        if lower in _FRAMING:
            continue
        if lower == 'content-length' and request.method != 'HEAD':
            continue   # written below, from the body itself
        lines.append('%s: %s\r\n' % (name, value))
    code = int(status[:3])
    if request.method != 'HEAD' and code >= 200 and code not in (204, 304):
        lines.append('Content-Length: %d\r\n' % len(body))
    lines.append('Date: %s\r\n' % date)
    if not keep_alive:
        lines.append('Connection: close\r\n')
    elif request.version == 'HTTP/1.0':
        lines.append('Connection: keep-alive\r\n')
    lines.append('\r\n')
    return ''.join(lines).encode('latin-1')
