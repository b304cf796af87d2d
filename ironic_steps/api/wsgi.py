"""The API for WSGI servers (gunicorn, uwsgi): ``ironic_steps.api.wsgi:application``.

On its first request, ``application`` reads the configuration file named
by ``$IRONIC_STEPS_CONFIG_FILE`` (else the standard ironic-steps locations),
sets up logging and builds the app; a server that forks workers thus builds
one per worker.  This process only serves the API: the conductors run
elsewhere and are reached with ``[DEFAULT] rpc_transport = oslo`` (with the
embedded ``none`` transport there is no conductor here, and every change is
answered 503).
"""

import os
import threading

from oslo_log import log

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
    return app.create_app()


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
