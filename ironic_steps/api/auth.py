"""Who is calling: authentication middleware and the request context.

``[DEFAULT] auth_strategy`` picks the middleware :func:`wrap` puts around
the application:

``noauth``
    Every caller is a system administrator.  Only for an API on a loopback
    address (the default ``[api] host_ip``).
``http_basic``
    oslo.middleware's HTTP basic authentication against the bcrypt
    htpasswd file ``[api] http_basic_auth_user_file``, at a bounded cost
    (:mod:`password_checks`: good credentials remembered, unknown users
    as slow as known ones, 429 for an address that keeps failing).  The
    roles and project of a user are those ``[api] http_basic_roles_file``
    gives (:mod:`basic_roles`); a user it does not name gets the
    ``reader`` role if listed in ``[api] reader_users``, else ``admin``,
    system scoped (see :mod:`ironic_steps.api.policy_defaults` for what
    each may do).
``keystone``
    Keystone tokens, checked by keystonemiddleware as in Ironic
    (:mod:`ironic_steps.api.keystone`): the context carries the token's
    user, project or system scope and roles.

Whatever the strategy, the paths of :mod:`public_routes` (version
discovery, the agent's lookups and heartbeats: agents have no credentials)
need none.  The middleware, and only it, sets ``X-User-Id``,
``X-User-Name`` and ``X-Roles`` (with keystone, more) in the WSGI environ,
overwriting whatever the client sent under those names;
:func:`request_context` builds the :class:`RequestContext` from them
alone.
"""

from oslo_middleware import base as middleware_base
from oslo_middleware import basic_auth
import webob
import webob.exc

from ironic_steps.api import basic_roles
from ironic_steps.api import errors
from ironic_steps.api import keystone
from ironic_steps.api import password_checks
from ironic_steps.api import public_routes
from ironic_steps.api import request_ids
from ironic_steps.common import context
from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

_USER_ID = 'HTTP_X_USER_ID'
_USER_NAME = 'HTTP_X_USER_NAME'
_ROLES = 'HTTP_X_ROLES'
_PROJECT_ID = 'HTTP_X_PROJECT_ID'

ADMIN_ROLE = basic_roles.ADMIN_ROLE
READER_ROLE = basic_roles.READER_ROLE

#: bcrypt reads no more of a password.
_BCRYPT_MAX_BYTES = 72

_PUBLIC_PATHS = public_routes.PATTERN
_COSTLY_REQUESTS = 'ironic_steps.costly_requests'


def _set_identity(environ, user, roles, project=None):
    environ[_USER_ID] = user
    environ[_USER_NAME] = user
    environ[_ROLES] = ','.join(roles)
    environ[_PROJECT_ID] = project or ''


def request_context(environ):
    """The RequestContext of a request that passed the auth middleware.

    It becomes the current context of the thread running the request
    (``overwrite``), so every log line written for the request carries its
    own request id, whichever thread the server runs it on: the one
    :mod:`request_ids` gave the request, under which authentication
    logged too.
    """
    if CONF.auth_strategy == 'keystone':
        return keystone.request_context(environ)
    roles = [r for r in environ.get(_ROLES, '').split(',') if r]
    project = environ.get(_PROJECT_ID) or None
    # Without a project, a user is a system user (as the noauth caller
    # is): the scope the rules of policy_defaults give every node to.
    scope = {'project_id': project} if project else (
        {'system_scope': 'all'} if roles else {})
    return context.RequestContext(
        user_id=environ.get(_USER_ID) or None,
        user_name=environ.get(_USER_NAME) or None,
        roles=roles, is_admin=ADMIN_ROLE in roles and not project,
        overwrite=True, **scope, **request_ids.context_ids(environ))


class NoAuthMiddleware:
    """Every caller is an administrator."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        _set_identity(environ, 'noauth', [ADMIN_ROLE])
        return self.application(environ, start_response)


class _Roles:
    """After authentication: the roles and project of the user the file
    vouched for."""

    def __init__(self, application):
        self.application = application
        self._grants = basic_roles.load(CONF.api.http_basic_roles_file)

    def __call__(self, environ, start_response):
        user = environ['HTTP_X_USER_NAME']
        grant = basic_roles.grant_of(self._grants, user,
                                     CONF.api.reader_users)
        _set_identity(environ, user, grant.roles, grant.project)
        return self.application(environ, start_response)


class BasicAuthMiddleware(basic_auth.BasicAuthMiddleware):
    """oslo.middleware's HTTP basic auth, configured from [api].

    The parent reads its file from [oslo_middleware]; this one reads
    ``[api] http_basic_auth_user_file``, lets public paths through
    anonymously, gives authenticated users their roles and answers
    refusals in the API's error format.
    """

    def __init__(self, application, auth_file=None):
        # The parent's __init__ only differs by where it reads the file
        # name from, so it is bypassed for the base class's.
        middleware_base.ConfigurableMiddleware.__init__(
            self, _Roles(application))
        self.public_application = application
        self.auth_file = auth_file or CONF.api.http_basic_auth_user_file
        basic_auth.validate_auth_file(self.auth_file)
        self._passwords = password_checks.PasswordChecker(self.auth_file)

    def __call__(self, environ, start_response):
        if _PUBLIC_PATHS.match(environ.get('PATH_INFO') or '/'):
            environ.pop('HTTP_AUTHORIZATION', None)
            _set_identity(environ, '', [])
            return self.public_application(environ, start_response)
        # Nobody is anybody until the password file says so.
        _set_identity(environ, '', [])
        try:
            username, password = basic_auth.parse_token(
                basic_auth.parse_header(environ))
            environ.update(self._passwords.check(
                username, _bcrypt_input(password),
                environ.get('REMOTE_ADDR', '')))
        except Exception as exc:
            return self.format_exception(exc)(environ, start_response)
        return self.application(environ, start_response)

    def runs_bcrypt(self, method, path, header):
        """Whether the request will check a password with bcrypt: it sends
        basic credentials, on a path that needs them, that are not
        remembered as good (see :func:`costly_requests`).

        :param header: ``header(name)``, the request's header ``name`` (a
            lower-case name) or None.
        """
        if _PUBLIC_PATHS.match(path or '/'):
            return False
        scheme, _, token = (header('authorization') or '').strip(
        ).partition(' ')
        if scheme.lower() != 'basic':
            return False   # refused at once, without bcrypt
        try:
            username, password = basic_auth.parse_token(token.strip())
        except webob.exc.HTTPBadRequest:
            return False
        return not self._passwords.remembered(username,
                                              _bcrypt_input(password))

    def format_exception(self, e):
        if isinstance(e, (webob.exc.HTTPUnauthorized, ValueError)):
            # ValueError: what bcrypt says of a password it cannot hash
            # (a NUL byte, say); no user of the file has that password.
            e = errors.NotAuthenticated(
                reason='send the user name and password of a user of this '
                       'service (HTTP basic authentication).')
        elif isinstance(e, webob.exc.HTTPBadRequest):
            e = exception.Invalid(e.detail or e.explanation)
        status, message = errors.status_and_message(e)
        headers = [('Content-Type', 'application/json')]
        if status == 401:
            headers.append(('WWW-Authenticate',
                            'Basic realm="Baremetal API"'))
        elif isinstance(e, exception.TooManyFailedLogins):
            headers.append(('Retry-After', str(e.kwargs['retry_after'])))
        return webob.Response(body=errors.body(status, message),
                              status=status, headerlist=headers)


def _bcrypt_input(password):
    """What bcrypt is asked to check for ``password``: its first 72 bytes.

    bcrypt only ever reads 72 bytes, and htpasswd hashes what it is given
    that way, so a longer password is checked as Apache checks it; bcrypt
    4.1 and later raise instead of truncating, which must not become a 500
    that anyone can cause without credentials.
    """
    return password[:_BCRYPT_MAX_BYTES]


def costly_requests(application):
    """``costly(method, path, header)`` for ``application`` (made by
    :func:`ironic_steps.api.app.create_app`): whether a request will
    check a password with bcrypt; None when none ever does (noauth,
    keystone).

    bcrypt takes a quarter of a second of a core at cost 12 and lets the
    interpreter run meanwhile: the server runs the requests it names on
    threads of their own (:class:`ironic_steps.api.server.Server`'s
    ``costly_requests``), so a loop of wrong passwords does not hold up
    the I/O thread that serves everyone else.  From release 0.14 (while
    pinned to an earlier one, checks run where every request runs, as
    that release ran them).
    """
    if release_mappings.pinned_before(CONF, '0.14'):
        return None
    return application.extensions.get(_COSTLY_REQUESTS)


def remember_costly_requests(application, middleware):
    """Note on ``application`` (a Flask app) which of its requests are
    costly, as the ``middleware`` of :func:`wrap` knows."""
    application.extensions[_COSTLY_REQUESTS] = getattr(
        middleware, 'runs_bcrypt', None)


def wrap(application):
    """``application`` behind the middleware of ``auth_strategy``."""
    if CONF.auth_strategy == 'keystone':
        return keystone.KeystoneAuth(application)
    if CONF.auth_strategy == 'http_basic':
        return BasicAuthMiddleware(application)
    return NoAuthMiddleware(application)
