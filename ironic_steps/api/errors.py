"""API errors: the few only the API raises, and how any error is answered.

Every error leaves the API in Ironic's format, which python-ironicclient
unpacks into the message it prints::

    {"error_message": "{\\"faultstring\\": \\"Node x could not be found.\\",
                        \\"faultcode\\": \\"Client\\", \\"debuginfo\\": null}"}

(``error_message`` is a JSON *string*.)  The status is the exception's
``code``; anything that is not an :class:`IronicStepsException`, and any
of those with a 500 code, is a bug: it is logged with its traceback and
answered with a generic message that reveals nothing internal.

Two kinds of foreign errors are not bugs and are translated first: a
conductor call that timed out (503, the request may or may not have been
carried out), and a database that cannot be reached (503 with
``Retry-After``, like the unreachable message broker the RPC API reports;
see :mod:`ironic_steps.common.outage`, which logs such an outage once,
not once per request).
"""

import http
import json
import re

import flask
from oslo_db import exception as db_exc
from oslo_log import log
import oslo_messaging as messaging
from werkzeug import exceptions as http_exc

from ironic_steps.common import exception
from ironic_steps.common import outage
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)

#: oslo.messaging appends the remote traceback to a re-raised exception's
#: message; it is for the logs, never for the caller.
_REMOTE_TRACEBACK = '\nTraceback (most recent call last):'
_GENERIC_500 = ('An unexpected error prevented the server from fulfilling '
                'the request; the details are in the server log.')


# --- errors of the API layer ------------------------------------------------
# (API-only; they live here rather than in common/exception.py so that the
# conductor side never depends on them.)

class InvalidVersionHeader(exception.Invalid):
    _msg_fmt = ("Invalid value %(value)r for the %(header)s header; use "
                "'1.N' or 'latest'.")


class VersionNotSupported(exception.NotAcceptable):
    _msg_fmt = ('Version %(version)s was requested but is not supported by '
                'this service. The supported version range is: '
                '[%(min)s, %(max)s].')


class FieldNotInVersion(exception.NotAcceptable):
    _msg_fmt = ("Field(s) %(fields)s need API version %(needed)s or later; "
                "this request uses %(version)s.")


class FieldNotInPinnedRelease(exception.NotAcceptable):
    _msg_fmt = ("Field(s) %(fields)s do not exist while the services are "
                "pinned to release %(pinned)s ([DEFAULT] pin_release_version) "
                "during a rolling upgrade.")


class AbortNotInVersion(exception.NotAcceptable):
    """An abort from a state Ironic aborts from a later version only:
    Ironic's bare "Request not acceptable.", saying why."""

    _msg_fmt = ('Request not acceptable. Aborting %(what)s needs API '
                'version %(needed)s or later; this request uses '
                '%(version)s.')


class FeatureNotInVersion(exception.NotAcceptable):
    _msg_fmt = ('%(feature)s needs API version %(needed)s or later; this '
                'request uses %(version)s.')


class FeatureOnlyInVersions(exception.NotAcceptable):
    _msg_fmt = ('%(feature)s exists in API versions %(first)s to %(last)s '
                'only; this request uses %(version)s.')


class EndpointNotInVersion(exception.NotFound):
    _msg_fmt = ('%(path)s needs API version %(needed)s or later; this '
                'request uses %(version)s.')


class MethodNotInVersion(exception.IronicStepsException):
    _msg_fmt = ('%(path)s accepts this method from API version %(needed)s '
                'on; this request uses %(version)s.')
    code = http.HTTPStatus.METHOD_NOT_ALLOWED


class UnknownFields(exception.Invalid):
    _msg_fmt = 'Unknown field(s) %(fields)s; valid fields: %(valid)s.'


class ReadOnlyFields(exception.Invalid):
    _msg_fmt = ('Field(s) %(fields)s are read-only; fields that can be '
                '%(action)s: %(valid)s.')


class InvalidField(exception.Invalid):
    _msg_fmt = 'Invalid value for field %(field)s: %(reason)s'


class InvalidBody(exception.Invalid):
    _msg_fmt = 'Invalid request body: %(reason)s'


class RequestTooLarge(exception.IronicStepsException):
    _msg_fmt = ('Request body too large: %(size)s bytes; the limit is '
                '%(limit)s bytes ([api] max_json_body_size).')
    code = http.HTTPStatus.REQUEST_ENTITY_TOO_LARGE


class ConductorTimeout(exception.TemporaryFailure):
    _msg_fmt = ('No conductor answered in time; the request may or may not '
                'have been carried out. Check the node, then retry.')


class NotAuthenticated(exception.IronicStepsException):
    _msg_fmt = ('Authentication required: %(reason)s')
    code = http.HTTPStatus.UNAUTHORIZED


class Forbidden(exception.IronicStepsException):
    _msg_fmt = ("Access was denied to this resource: policy %(policy)s does "
                "not allow roles %(roles)s.")
    code = http.HTTPStatus.FORBIDDEN


# --- endpoints Ironic has that ironic-steps does not provide ----------------

#: Paths of Ironic's API (up to 1.80) that ironic-steps does not serve; they
#: answer 404 like any unknown path, saying so (api-ref lists them).
_NOT_PROVIDED = re.compile(
    r'^/v1/(?:(?P<top>events)'
    r'|nodes/[^/]+/(?P<node>states/boot_device))(?:/|$)')


def _not_found_message(path):
    match = _NOT_PROVIDED.match(path)
    message = 'The resource %s could not be found.' % path
    if match is not None:
        message += (' ironic-steps does not provide %s (see its API '
                    'reference).' % next(g for g in match.groups() if g))
    return message


# --- rendering ----------------------------------------------------------------

def body(status, message):
    """The bytes of an error body for ``status`` with ``message``."""
    fault = {'faultstring': message,
             'faultcode': 'Server' if status >= 500 else 'Client',
             'debuginfo': None}
    return json.dumps({'error_message': json.dumps(fault)}).encode()


def message_of(exc):
    """The message of ``exc`` for the caller (no remote traceback)."""
    return str(exc).split(_REMOTE_TRACEBACK, 1)[0].rstrip()


def _translated(exc):
    """``exc``, or the exception of ours that says what it means."""
    if isinstance(exc, messaging.MessagingTimeout):
        LOG.warning('Conductor call timed out: %s', exc)
        return ConductorTimeout()
    if isinstance(exc, db_exc.DBConnectionError):
        # (The database API raises it for a refused connection too.)
        outage.DATABASE.failed(exc)
        return exception.DatabaseUnreachable()
    return exc


def status_and_message(exc):
    """What the caller is told about ``exc``: (status, message)."""
    exc = _translated(exc)
    if isinstance(exc, exception.IronicStepsException):
        status = int(exc.code)
        if status < 500:
            LOG.debug('Client error %s: %s', status, message_of(exc))
            return status, message_of(exc)
        if isinstance(exc, exception.DependencyUnreachable):
            # Its Outage record logs it, once per outage.
            return status, message_of(exc)
        if status != 500:
            LOG.warning('Request failed with %s: %s', status, message_of(exc))
            return status, message_of(exc)
    LOG.error('Unexpected error answering a request', exc_info=exc)
    return 500, _GENERIC_500


def wsgi_error(exc, start_response, extra_headers=()):
    """Answer ``exc`` from plain WSGI code (middleware)."""
    status, message = status_and_message(exc)
    payload = body(status, message)
    headers = [('Content-Type', 'application/json'),
               ('Content-Length', str(len(payload)))]
    headers.extend(extra_headers)
    start_response('%d %s' % (status, http.HTTPStatus(status).phrase),
                   headers)
    return [payload]


def _response(status, message, headers=None):
    return flask.Response(body(status, message), status=status,
                          headers=headers, mimetype='application/json')


def _handle_exception(exc):
    exc = _translated(exc)
    headers = None
    if isinstance(exc, exception.DependencyUnreachable):
        headers = {'Retry-After': str(CONF.api.retry_after_seconds)}
    return _response(*status_and_message(exc), headers=headers)


def _handle_http_exception(exc):
    """Routing and protocol errors raised by werkzeug (404, 405, ...)."""
    if exc.code is None or exc.code < 400:
        return exc
    headers = None
    if isinstance(exc, http_exc.NotFound):
        message = _not_found_message(flask.request.path)
    elif isinstance(exc, http_exc.MethodNotAllowed):
        allowed = ', '.join(sorted(exc.valid_methods or ()))
        message = 'Method %s is not allowed on %s; allowed: %s.' % (
            flask.request.method, flask.request.path, allowed)
        headers = {'Allow': allowed}
    else:
        message = exc.description or exc.name
    return _response(exc.code, message, headers)


def register(app):
    """Answer every error of ``app`` in Ironic's format."""
    app.register_error_handler(http_exc.HTTPException,
                               _handle_http_exception)
    app.register_error_handler(Exception, _handle_exception)
