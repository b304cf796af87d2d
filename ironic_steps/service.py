"""Running ironic-steps as a service: configuration, database, shutdown.

The embedded (all-in-one) service runs the conductor and the API in one
process on one SQLite file, with in-process conductor calls::

    service = EmbeddedService()
    service.start()          # database, conductor, API server
    service.wait()           # until SIGTERM / SIGINT
    service.stop()           # API first, then the in-flight steps finish

Shutdown order matters: the API stops taking requests, then the conductor
lets every running flow finish the step it is in (workers are joined), so
nothing is left half-written; a flow stopped by a crash instead is failed
cleanly by the next start (see ConductorManager._recover).
"""

import os
import signal
import threading

from cheroot import wsgi
from oslo_log import log

from ironic_steps.common import context
from ironic_steps.common import exception
from ironic_steps.conductor import manager
from ironic_steps.conductor import rpcapi
from ironic_steps.conf import CONF
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import version

LOG = log.getLogger(__name__)

_log_registered = False


def prepare_service(argv):
    """Parse the command line and config files, then set up logging."""
    global _log_registered
    if not _log_registered:
        log.register_options(CONF)
        _log_registered = True
    CONF(argv[1:], project='ironic-steps',
         version=version.version_info.version_string())
    log.setup(CONF, 'ironic-steps')


def ensure_state_path():
    os.makedirs(CONF.state_path, exist_ok=True)


def prepare_database():
    """Create the schema of an empty database; refuse a stale one."""
    ensure_state_path()
    current = migration.version()
    if current is None:
        LOG.info('Empty database: creating the schema')
        migration.upgrade()
        return
    pending = migration.pending()
    if pending:
        raise exception.IronicStepsException(
            'The database is at revision %s and needs migrations %s; run '
            '"ironic-steps-dbsync upgrade" first' % (current,
                                                     ', '.join(pending)))


class EmbeddedService:
    """API + conductor in one process, on the embedded database."""

    def __init__(self):
        self.manager = None
        self.server = None
        self._server_thread = None
        self._stop_requested = threading.Event()

    def start(self):
        sqlalchemy_api.configure()
        prepare_database()
        admin = context.get_admin_context()
        self.manager = manager.ConductorManager()
        self.manager.start(admin)
        rpcapi.set_local_manager(self.manager)
        self._start_api()
        LOG.info('ironic-steps %s serving http://%s:%s (conductor %s)',
                 version.version_info.version_string(), CONF.api.host_ip,
                 self.port, CONF.host)

    def _start_api(self):
        from ironic_steps.api import app   # Flask only where it is served
        self.server = wsgi.Server((CONF.api.host_ip, CONF.api.port),
                                  app.create_app(),
                                  numthreads=CONF.api.api_workers)
        self.server.prepare()
        self._server_thread = threading.Thread(
            target=self.server.serve, name='api-server', daemon=True)
        self._server_thread.start()

    @property
    def port(self):
        return self.server.bind_addr[1] if self.server else None

    def handle_signals(self):
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self._stop_requested.set())

    def wait(self):
        while not self._stop_requested.wait(1):
            pass

    def stop(self):
        LOG.info('Stopping: no new requests; running steps finish first')
        if self.server is not None:
            self.server.stop()
        if self.manager is not None:
            self.manager.stop()
        rpcapi.set_local_manager(None)
        LOG.info('Stopped')
