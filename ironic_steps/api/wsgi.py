"""The API for WSGI servers (gunicorn, uwsgi): ``ironic_steps.api.wsgi:application``.

On its first request, ``application`` reads the configuration file named
by ``$IRONIC_STEPS_CONFIG_FILE`` (else the standard ironic-steps locations),
sets up logging and builds the app; a server that forks workers thus builds
one per worker.  This process only serves the API: the conductors run
elsewhere and are reached with ``[DEFAULT] rpc_transport = oslo`` (with the
embedded ``none`` transport there is no conductor here, and every change is
answered 503).  With ``auth_strategy = noauth`` it serves callers on this
machine only, as the services serve only a loopback address
(:class:`LoopbackOnly`), decided when the application is built.
"""

import os
import threading

from oslo_log import log

from ironic_steps.api import errors
from ironic_steps.common import exception
from ironic_steps.common import exposure
from ironic_steps.common import safe_log
from ironic_steps.conf import CONF

CONFIG_FILE_ENV = 'IRONIC_STEPS_CONFIG_FILE'


def _load():
    from ironic_steps.api import app   # after the configuration is read
    log.register_options(CONF)
    config_file = os.environ.get(CONFIG_FILE_ENV)
    CONF([], project='ironic-steps',
         default_config_files=[config_file] if config_file else None)
    log.setup(CONF, 'ironic-steps')
    safe_log.install()
    return LoopbackOnly.wrap(app.create_app())


#: Headers with which a proxy names whom it relays (RFC 7239, and the
#: common ones before it).
_RELAYED = ('HTTP_FORWARDED', 'HTTP_X_FORWARDED_FOR', 'HTTP_X_REAL_IP')


def _address_of(token):
    """The address in ``for=192.0.2.7``, ``"[2001:db8::1]:4711"``,
    ``192.0.2.7:80``, ``::1``."""
    token = token.strip().strip('"')
    if token[:4].lower() == 'for=':
        token = token[4:].strip('"')
    if token.startswith('['):
        return token[1:].partition(']')[0]
    if token.count(':') == 1:
        return token.partition(':')[0]   # IPv4 and a port
    return token


def _relayed_callers(environ):
    """The callers a proxy in front says it relays for."""
    for key in _RELAYED:
        for element in environ.get(key, '').split(','):
            for part in element.split(';'):
                if part.strip() and (key != 'HTTP_FORWARDED' or part.strip()[
                        :4].lower() == 'for='):
                    yield _address_of(part)


class LoopbackOnly:
    """WSGI middleware: with noauth, callers from other machines are
    refused (403, saying why) unless ``[api] allow_noauth_off_loopback``:
    the rule the services apply to the address they bind
    (:mod:`ironic_steps.common.exposure`), applied to each caller, since
    a WSGI server binds where it likes.  A caller is on another machine
    if the connection comes from one, or if a proxy on this machine says
    it relays for one (``Forwarded``, ``X-Forwarded-For``,
    ``X-Real-IP``); a proxy that says nothing cannot be told from a local
    caller, which is why a noauth API must not have one in front.
    """

    def __init__(self, application):
        self.application = application

    @classmethod
    def wrap(cls, application):
        """``application``, wrapped when it authenticates nobody and may
        not serve the network."""
        if CONF.auth_strategy != 'noauth' or exposure.open_to_the_network():
            return application
        return cls(application)

    def __call__(self, environ, start_response):
        address = environ.get('REMOTE_ADDR', '')
        if exposure.is_loopback(address):
            address = next((relayed for relayed in _relayed_callers(environ)
                            if not exposure.is_loopback(relayed)), None)
            if address is None:
                return self.application(environ, start_response)
        payload = errors.body(403, str(exception.UnauthenticatedCaller(
            address=address or 'an unknown address')))
        start_response('403 Forbidden', [
            ('Content-Type', 'application/json'),
            ('Content-Length', str(len(payload)))])
        return [payload]


class _LazyApplication:
    """Builds the real application on first use, once."""

    def __init__(self, loader):
        self._loader = loader
        self._app = None
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        if self._app is None:
            with self._lock:
                if self._app is None:
                    self._app = self._loader()
        return self._app(environ, start_response)


application = _LazyApplication(_load)
