"""``auth_strategy = keystone``: Keystone tokens, checked as Ironic does.

A request meets, outermost first:

1. :class:`KeystoneAuth`: a public path (:mod:`public_routes`) goes
   straight to the application, marked public (``is_public_api`` in the
   environ, as Ironic's ``AuthPublicRoutes`` marks it).  What the token
   check logs is logged under the request's id (:mod:`request_ids`).
2. keystonemiddleware's ``auth_token`` middleware, configured from
   ``[keystone_authtoken]`` (:class:`_TokenCheck`): no token, or one
   Keystone refuses, is answered 401 with ``WWW-Authenticate: Keystone
   uri="..."`` and keystonemiddleware's own body, as Ironic answers; a
   valid token becomes the ``X-User-Id``, ``X-Project-Id``, ``X-Roles``,
   ``OpenStack-System-Scope``, ``X-Is-Admin-Project``, ... headers, after
   the middleware has removed any the client sent.  A Keystone that cannot
   be reached, or that refuses the service's own credentials, is
   :class:`~ironic_steps.common.exception.IdentityUnreachable`: 503 in the
   API's error format, with ``Retry-After``; the cause is logged, never
   sent.  So is one at an ``auth_url`` that gives the service no token
   (not Keystone's), which keystonemiddleware alone would answer 401 to
   every caller.
3. :func:`request_context` builds the request's context from those
   headers with oslo.context's ``from_environ``, as Ironic's
   ``ContextHook`` does, so that policy (:mod:`policy`) sees system-scoped
   and project-scoped credentials as Keystone issued them.

Not here: the options, which are keystonemiddleware's
(:mod:`ironic_steps.conf.keystone` checks them at start), and who may do
what (:mod:`policy`).
"""

from keystoneauth1 import exceptions as ksa_exceptions
from keystonemiddleware import auth_token
from oslo_log import log
import webob.exc

from ironic_steps.api import errors
from ironic_steps.api import public_routes
from ironic_steps.api import request_ids
from ironic_steps.common import context
from ironic_steps.common import exception
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)

#: In the environ: whether the request skipped authentication.
PUBLIC = 'is_public_api'


class _TokenCheck(auth_token.AuthProtocol):
    """keystonemiddleware's token check, saying in our terms when it
    could not ask Keystone."""

    def fetch_token(self, token, **kwargs):
        try:
            return super().fetch_token(token, **kwargs)
        except webob.exc.HTTPServiceUnavailable as exc:
            # keystonemiddleware logged why ("Unable to validate token").
            raise exception.IdentityUnreachable() from exc
        except auth_token.InvalidToken:
            self._check_own_token()
            raise

    def _check_own_token(self):
        """:raises IdentityUnreachable: unless Keystone gives the service
        a token of its own.

        keystonemiddleware takes every token for invalid when it cannot
        get one (an ``auth_url`` that answers 404, not being Keystone's):
        every caller would be told 401, for the service's trouble.  Asked
        only of a token found invalid; the plugin keeps the service's
        token, so this asks Keystone only when it has none.
        """
        if self._auth is None:   # (keystonemiddleware's plugin, session)
            return
        try:
            self._auth.get_access(self._session)
        except ksa_exceptions.ClientException as exc:
            LOG.error('Keystone gives this service no token with the '
                      'credentials of [keystone_authtoken], so no token '
                      'can be validated: %s', exc)
            raise exception.IdentityUnreachable() from exc


class KeystoneAuth:
    """WSGI middleware: Keystone authentication of ``application``."""

    def __init__(self, application):
        self.application = application
        self._token_check = _TokenCheck(application,
                                        {'oslo_config_config': CONF})

    def __call__(self, environ, start_response):
        environ[PUBLIC] = public_routes.is_public(environ)
        if environ[PUBLIC]:
            return self.application(environ, start_response)
        try:
            return self._token_check(environ, start_response)
        except exception.IdentityUnreachable as exc:
            return _unreachable(exc, start_response)
        except ksa_exceptions.ClientException as exc:
            # Past what keystonemiddleware translates: no identity
            # endpoint in the catalog for [keystone_authtoken] interface,
            # say, found while asking where to send a client.
            LOG.error('Cannot validate a token with Keystone: %s', exc)
            return _unreachable(exception.IdentityUnreachable(),
                                start_response)


def _unreachable(exc, start_response):
    return errors.wsgi_error(exc, start_response, [
        ('Retry-After', str(CONF.api.retry_after_seconds))])


def request_context(environ):
    """The context of a request :class:`KeystoneAuth` passed.

    From the headers of its token check; a public request, which had no
    check, is anonymous whatever headers the client sent.  It becomes the
    thread's current context, with the request id the check logged under.
    """
    ids = request_ids.context_ids(environ)
    if environ.get(PUBLIC, True):
        return context.RequestContext(overwrite=True, **ids)
    return context.RequestContext.from_environ(environ, overwrite=True,
                                               **ids)
