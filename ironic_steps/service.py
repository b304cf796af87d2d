"""Running ironic-steps as a service: configuration, database, shutdown.

The embedded (all-in-one) service runs the conductor and the API in one
process on one SQLite file, with in-process conductor calls; the
distributed mode runs them as separate processes over oslo.messaging::

    service = Service(api=True, conductor=True)
    service.start()          # database check, conductor, API server
    service.wait()           # until SIGTERM / SIGINT
    service.stop()           # API first, then running flows end or wait

Shutdown order matters: the API stops taking requests, then the conductor
takes no new work and lets every running flow go on until it finishes or
waits for its agent (workers are joined), so nothing is left half-written;
the in-process fake agent heartbeats no more once the conductor refuses new
work, before its flows are waited for.  A flow stopped by a crash instead is
failed cleanly by the next start (see
:meth:`ironic_steps.conductor.housekeeping.Housekeeping.recover`).
"""

import faulthandler
import os
import signal
import threading

from oslo_config import cfg
from oslo_log import log

from ironic_steps.common import context
from ironic_steps.common import exception
from ironic_steps.common import exposure
from ironic_steps.common import private_files
from ironic_steps.common import safe_log
from ironic_steps.conductor import manager
from ironic_steps.conductor import rpcapi
from ironic_steps.conf import CONF
from ironic_steps.conf import keystone
from ironic_steps.conf import opts
from ironic_steps.conf import unknown
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import sqlite
from ironic_steps import fake_agent
from ironic_steps.objects import base as objects_base
from ironic_steps import version

LOG = log.getLogger(__name__)

_log_registered = False


def prepare_service(argv, before_logging=None):
    """Parse the command line and config files, then set up logging.

    :param before_logging: called once the configuration is read, before
        logging starts (to set where it goes, from the configuration).
    """
    global _log_registered
    if not _log_registered:
        log.register_options(CONF)
        _log_registered = True
    CONF(argv[1:], project='ironic-steps',
         version=version.version_info.version_string())
    if before_logging is not None:
        before_logging()
    log.setup(CONF, 'ironic-steps')
    safe_log.install()
    # `kill -USR1 <pid>` prints every thread's stack to stderr: what a
    # process that seems stuck is doing, without stopping it.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    check_config()


def check_config():
    """Read every option now, so a bad value stops the start, clearly.

    oslo.config checks values from files only when they are read; without
    this, a mistyped ``pin_release_version`` would surface mid-upgrade.
    An option no part of the service declares stops the start too
    (:mod:`ironic_steps.conf.unknown`): ignoring it would leave the
    operator believing it took effect.
    """
    problems = []
    for group, options in opts.list_opts():
        section = CONF if group == 'DEFAULT' else CONF[group]
        for option in options:
            try:
                getattr(section, option.dest)
            except (cfg.ConfigFileValueError, ValueError) as exc:
                problems.append('[%s] %s: %s' % (group, option.name, exc))
    problems.extend(keystone.check(CONF))
    problems.extend('[%s] %s in %s: no such option (a typo, or an option '
                    'of Ironic that ironic-steps does not have)' % (
                        section, option, path)
                    for path, section, option in unknown.find(CONF))
    if problems:
        raise SystemExit('Invalid configuration:\n  ' + '\n  '.join(
            problems))


def ensure_state_path():
    """The state directory, and the SQLite database file when that is the
    database, created private (0700, 0600): they hold BMC passwords."""
    private_files.make_directory(CONF.state_path)
    sqlite.create_private_file(CONF.database.connection)


def prepare_database(create_if_empty):
    """Check the schema; create it in an empty database if allowed.

    Only the one-process service creates a schema: several processes
    starting together on an empty database would race to do it.
    """
    ensure_state_path()
    current = migration.version()
    if current is None and create_if_empty:
        LOG.info('Empty database: creating the schema')
        migration.upgrade()
        return
    if current is None:
        raise exception.IronicStepsException(
            'The database has no schema; run "ironic-steps-dbsync upgrade" '
            'first')
    pending = migration.pending()
    if pending:
        raise exception.IronicStepsException(
            'The database is at revision %s and needs migrations %s; run '
            '"ironic-steps-dbsync upgrade" first' % (current,
                                                     ', '.join(pending)))


def default_api_threads(embedded):
    """Threads running API requests when ``[api] api_workers`` is not set.

    One for the all-in-one service: its in-process conductor calls never
    wait for a lock (see Service._start_conductor), and the server reads
    requests on its own thread, so no client can hold that one (see
    :mod:`ironic_steps.api.server`).  Four for a separate API, whose
    requests wait for conductors over the bus.
    """
    return 1 if embedded else 4


def _tls_context():
    """The API's TLS context, or None without ``[api] enable_ssl_api``.

    :raises APICannotServeTLS: naming the option or file that is wrong.
    """
    if not CONF.api.enable_ssl_api:
        return None
    from ironic_steps.api import connections
    missing = [name for name in ('cert_file', 'key_file')
               if not CONF.api[name]]
    if missing:
        raise exception.APICannotServeTLS(reason='set %s' % ' and '.join(
            '[api] %s' % name for name in missing))
    try:
        return connections.tls_context(CONF.api.cert_file, CONF.api.key_file)
    except OSError as exc:   # ssl.SSLError included
        raise exception.APICannotServeTLS(
            reason='cannot use [api] cert_file %s and key_file %s: %s' % (
                CONF.api.cert_file, CONF.api.key_file,
                exc.strerror or exc)) from exc


class Service:
    """The parts of ironic-steps this process runs, started in order.

    ``api``: the REST API on :mod:`ironic_steps.api.server`;
    ``conductor``: a conductor manager, reached in-process
    (``rpc_transport = none``) or through an oslo.messaging server
    (``oslo``); ``read_only``: if given, the API refuses every write (403)
    with this reason (:mod:`ironic_steps.api.read_only`).
    """

    def __init__(self, api=True, conductor=True, read_only=None):
        self.run_api = api
        self.run_conductor = conductor
        self.read_only = read_only
        self.manager = None
        self.server = None
        self.rpc_server = None
        self._stop_requested = threading.Event()

    def start(self):
        self._check_lock_retries()
        sqlalchemy_api.configure()
        prepare_database(create_if_empty=self._embedded)
        if self.run_conductor:
            self._start_conductor()
        if self.run_api:
            self._start_api()
        LOG.info('ironic-steps %s started (%s) as %s',
                 version.version_info.version_string(),
                 ', '.join(part for part, on in (
                     ('API on %s://%s:%s' % (
                         'https' if CONF.api.enable_ssl_api else 'http',
                         CONF.api.host_ip, self.port), self.run_api),
                     ('conductor', self.run_conductor)) if on), CONF.host)

    def _check_lock_retries(self):
        """Refused before anything is created or started."""
        if self._embedded and CONF.conductor.node_locked_retry_attempts > 1:
            # The API's calls run on the thread serving every client here:
            # waiting for a lock would stall them all.
            raise exception.IronicStepsException(
                '[conductor] node_locked_retry_attempts = %d: the all-in-one '
                'service answers a request for a locked node at once (409, '
                'which clients retry), as its requests run on the thread '
                'that serves every client; set it to 1, the default'
                % CONF.conductor.node_locked_retry_attempts)

    def _start_conductor(self):
        self.manager = manager.ConductorManager()
        # The machines of fake-hardware run their agent here: started
        # first, since the conductor hands it the nodes already waiting for
        # it as it starts (it retries until the conductor answers).
        fake_agent.start()
        self.manager.start(context.get_admin_context())
        if CONF.rpc_transport == 'none':
            rpcapi.set_local_manager(self.manager)
        else:
            from ironic_steps.common import rpc
            self.rpc_server = rpc.get_server(
                CONF.host, list(self.manager.endpoints),
                objects_base.IronicStepsObjectSerializer())
            self.rpc_server.start()

    def _start_api(self):
        # Flask only where it is served.
        from ironic_steps.api import app
        from ironic_steps.api import auth
        from ironic_steps.api import body
        from ironic_steps.api import lanes
        from ironic_steps.api import server
        exposure.check_exposure(CONF.api.host_ip)
        application = app.create_app()
        long_requests = lanes.matcher(application)
        costly_requests = auth.costly_requests(application)
        if self.read_only is not None:
            from ironic_steps.api import read_only
            application = read_only.ReadOnly(application, self.read_only)
        api_server = server.Server(
            application, CONF.api.host_ip, CONF.api.port,
            long_requests=long_requests, costly_requests=costly_requests,
            threads=self._api_threads(), timeout=CONF.api.client_timeout,
            max_body=body.max_size(),
            max_connections=CONF.api.max_connections,
            backlog=CONF.api.backlog,
            retry_after=CONF.api.retry_after_seconds,
            tls=_tls_context())
        try:
            api_server.prepare()
        except OSError as exc:
            raise exception.APICannotListen(
                host=CONF.api.host_ip, port=CONF.api.port,
                reason=exc.strerror or exc) from exc
        # Kept once it listens: a service that could not has no server
        # to stop.
        self.server = api_server
        threading.Thread(target=self.server.serve, name='api-server',
                         daemon=True).start()

    def _api_threads(self):
        return CONF.api.api_workers or default_api_threads(self._embedded)

    @property
    def _embedded(self):
        return (self.run_api and self.run_conductor
                and CONF.rpc_transport == 'none')

    @property
    def port(self):
        return self.server.port if self.server else None

    def handle_signals(self):
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self._stop_requested.set())

    def wait(self):
        while not self._stop_requested.wait(1):
            pass

    def stop(self):
        LOG.info('Stopping: no new requests; running flows finish or park '
                 'first')
        if self.server is not None:
            self.server.stop()
        if self.rpc_server is not None:
            self.rpc_server.stop()
            self.rpc_server.wait()
        if self.manager is not None:
            self.manager.stop(feeders=(fake_agent.stop,))
        rpcapi.set_local_manager(None)
        if CONF.rpc_transport == 'oslo':
            from ironic_steps.common import rpc
            rpc.cleanup()
        LOG.info('Stopped')


def run(argv, api=True, conductor=True):
    """Entry point of the service commands: run until SIGTERM/SIGINT.

    What stops a start (a port in use, a database without its schema,
    unusable TLS files) ends the command with status 1 and one line
    saying why, not a traceback.
    """
    prepare_service(argv)
    running = Service(api=api, conductor=conductor)
    running.handle_signals()
    try:
        running.start()
        running.wait()
    except exception.IronicStepsException as exc:
        LOG.error('Cannot start: %s', exc)
        raise SystemExit('%s: %s' % (os.path.basename(argv[0]),
                                     exc)) from exc
    finally:
        running.stop()
    return 0
