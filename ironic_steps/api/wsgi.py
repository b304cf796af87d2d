"""The API for WSGI servers (gunicorn, uwsgi): ``ironic_steps.api.wsgi:application``.

On its first request, ``application`` reads the configuration file named
by ``$IRONIC_STEPS_CONFIG_FILE`` (else the standard ironic-steps locations),
sets up logging and builds the app; a server that forks workers thus builds
one per worker.  This process only serves the API: the conductors run
elsewhere and are reached with ``[DEFAULT] rpc_transport = oslo`` (with the
embedded ``none`` transport there is no conductor here, and every change is
answered 503).  With ``auth_strategy = noauth`` it serves callers on this
machine only, as the services serve only a loopback address
(:class:`LoopbackOnly`).
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


class LoopbackOnly:
    """WSGI middleware: with noauth, callers from other machines are
    refused (403, saying why) unless ``[api] allow_noauth_off_loopback``:
    the rule the services apply to the address they bind
    (:mod:`ironic_steps.common.exposure`), applied to each caller, since
    a WSGI server binds where it likes."""

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
