"""Test bases and fixtures shared by the whole suite.

Tests run against a real SQLite file built by the real migrations (copied
from a per-process template, so each test starts from an empty, migrated
database in milliseconds) and, where they need one, a real conductor.
"""

import atexit
import contextlib
import gc
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time

import fixtures
import oslo_messaging as messaging
from oslo_messaging import conffixture
from oslo_config import fixture as config_fixture
from oslotest import base as oslotest_base
from oslotest import log as oslotest_log
import sqlalchemy as sa

from ironic_steps.common import context
from ironic_steps.common import rpc
from ironic_steps.conductor import agent_token
from ironic_steps.conductor import manager
from ironic_steps.conductor import registry
from ironic_steps.conductor import rpcapi
from ironic_steps.conf import CONF
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import fake_agent
from ironic_steps import objects
from ironic_steps.objects import base as objects_base
from tests import mariadb
from tests import postgresql

_TEMPLATE_LOCK = threading.Lock()
# Made at import, before oslotest points TMPDIR at a per-test directory.
_TEMPLATE_DIR = tempfile.mkdtemp(prefix='ironic-steps-template-')
atexit.register(shutil.rmtree, _TEMPLATE_DIR, True)
_template = None


def _template_db():
    """A migrated empty database file, built once per test process."""
    global _template
    with _TEMPLATE_LOCK:
        if _template is None:
            path = os.path.join(_TEMPLATE_DIR, 'template.sqlite')
            sqlalchemy_api.configure(connection='sqlite:///%s' % path)
            migration.upgrade()
            sqlalchemy_api.configure()
            _template = path
        return _template


class Database(fixtures.Fixture):
    """A fresh, migrated SQLite database for one test: the template copied
    over the one file every test of this process uses, so that the
    database API keeps its engines from test to test (and the statements
    they compiled: see sqlalchemy_api.reconnect).

    The copy goes into the same file, not a new one in its place: a
    connection a thread of an earlier test still held, closed later, would
    delete the new file's write-ahead log with its own.
    """

    @staticmethod
    def require(test):
        """SQLite is always there."""

    def _setUp(self):
        self.path = os.path.join(_TEMPLATE_DIR, 'ironic-steps.sqlite')
        # The backup API copies a consistent image, WAL content included,
        # and replaces every page of the target.
        with contextlib.closing(sqlite3.connect(_template_db())) as source, \
                contextlib.closing(sqlite3.connect(self.path)) as target:
            source.backup(target)
        self.url = 'sqlite:///%s' % self.path
        sqlalchemy_api.reconnect(connection=self.url)


_server_templates = {}


def _server_template(server):
    """The name of a database the migrations built on ``server`` (a
    running tests.database_servers.DatabaseServer), built once per server;
    nothing connects to it after."""
    with _TEMPLATE_LOCK:
        if server not in _server_templates:
            url = server.url()
            sqlalchemy_api.configure(connection=url)
            migration.upgrade()
            # Closes the pool's connections: PostgreSQL copies a database
            # nobody is connected to.
            sqlalchemy_api.configure()
            _server_templates[server] = sa.engine.make_url(url).database
        return _server_templates[server]


class _ServerDatabase(fixtures.Fixture):
    """A fresh, migrated database on this process's ``server`` (a
    tests.database_servers.DatabaseServer): a copy of one the migrations
    built once per server, which takes a fraction of the migrations' time
    (on MariaDB each revision's ALTER TABLE rebuilds its table)."""

    server = None
    #: Run the migrations on this very database: for the tests of the
    #: migrated schema itself, which must not see a copy.
    migrate_here = False

    @classmethod
    def require(cls, test):
        """Skip (fail in CI) ``test`` if the server cannot run here."""
        cls.server.require(test)

    def _setUp(self):
        server = self.server.shared()
        if self.migrate_here:
            self.url = server.url()
        else:
            self.url = server.url(template=_server_template(server))
        sqlalchemy_api.configure(connection=self.url)
        self.addCleanup(sqlalchemy_api.configure)
        if self.migrate_here:
            migration.upgrade()


class PostgreSQLDatabase(_ServerDatabase):
    server = postgresql.PostgreSQLServer


class MigratedPostgreSQLDatabase(PostgreSQLDatabase):
    """Migrated on the test's own database, not copied."""

    migrate_here = True


class MariaDBDatabase(_ServerDatabase):
    server = mariadb.MariaDBServer


class MigratedMariaDBDatabase(MariaDBDatabase):
    """Migrated on the test's own database, not copied."""

    migrate_here = True


class StatementHook(fixtures.Fixture):
    """Calls ``hook(conn, cursor, statement, ...)`` before each statement
    the database API runs, on every engine it runs them on; a hook may
    raise to make the statement fail."""

    def __init__(self, hook):
        super().__init__()
        self.hook = hook

    def _setUp(self):
        for engine in sqlalchemy_api.statement_engines():
            sa.event.listen(engine, 'before_cursor_execute', self.hook)
            self.addCleanup(sa.event.remove, engine,
                            'before_cursor_execute', self.hook)


_BEGIN_RECORDERS = []


def _record_begin(statement):
    if statement == 'BEGIN':
        for recorder in list(_BEGIN_RECORDERS):
            recorder.statements.append(statement)


class SQLStatements(fixtures.Fixture):
    """Records the SQL statements the database API runs while in use."""

    _NODE_WRITES = ('UPDATE NODES', 'INSERT INTO NODES', 'DELETE FROM NODES')

    def _setUp(self):
        self.statements = []
        self.useFixture(StatementHook(self._record))
        # The database API hands BEGIN to SQLite's driver, past
        # SQLAlchemy's events: SQLite's own trace of each connection lent
        # out sees it (one trace for every recorder active).
        _BEGIN_RECORDERS.append(self)
        self.addCleanup(_BEGIN_RECORDERS.remove, self)
        pool = sqlalchemy_api.get_engine().pool
        for event, listener in (('checkout', self._trace),
                                ('checkin', self._untrace)):
            sa.event.listen(pool, event, listener)
            self.addCleanup(sa.event.remove, pool, event, listener)

    def _record(self, conn, cursor, statement, *args):
        if statement.strip() != 'BEGIN':
            self.statements.append(statement.strip())

    def _trace(self, dbapi_connection, *_):
        if hasattr(dbapi_connection, 'set_trace_callback'):   # SQLite
            dbapi_connection.set_trace_callback(_record_begin)

    def _untrace(self, dbapi_connection, *_):
        if hasattr(dbapi_connection, 'set_trace_callback'):
            dbapi_connection.set_trace_callback(None)

    def verbs(self):
        """The first word of each statement: ['BEGIN', 'INSERT', ...]."""
        return [statement.split()[0].upper() for statement in self.statements]

    def node_writes(self):
        return [statement for statement in self.statements
                if statement.upper().startswith(self._NODE_WRITES)]


_imports_frozen = False


def _freeze_imports():
    """Leave what the test process imported out of the collector's work.

    Its full collections scan every object still alive, and the modules,
    classes and functions of the libraries a test process imports are
    most of them: a third of an API test's time was spent there.  The
    first test of a process runs after every test module was imported.
    """
    global _imports_frozen
    if not _imports_frozen:
        _imports_frozen = True
        gc.collect()
        gc.freeze()


class TestCase(oslotest_base.BaseTestCase):
    """Configuration reset per test; a real database.

    ``database`` is the fixture that makes it: SQLite by default; test
    classes re-run on another database set :class:`PostgreSQLDatabase`
    or :class:`MariaDBDatabase`.
    """

    database = Database

    def _fake_logs(self):
        # A test's log records, every library's at DEBUG, are kept with
        # it and shown if it fails.  (oslotest, unless OS_LOG_CAPTURE is
        # set, has the root logger print them all on stderr instead: some
        # 80,000 lines a run, between the results.)
        self.log_fixture = self.useFixture(fixtures.FakeLogger(
            level=logging.DEBUG,
            format=oslotest_log.ConfigureLogging.DEFAULT_FORMAT))

    def setUp(self):
        _freeze_imports()
        super().setUp()
        self.config_fixture = self.useFixture(config_fixture.Config(CONF))
        CONF([], project='ironic-steps', default_config_files=[])
        self.config(host='test-conductor')
        # What a service keeps on disk (agents' certificates) stays in
        # the test's own directory.
        self.config(state_path=self.useFixture(fixtures.TempDir()).path)
        self.config(node_locked_retry_interval=0.01, group='conductor')
        # Tests drive heartbeats themselves unless they ask for the agent.
        self.config(agent_delay=-1, group='fake')
        self.database.require(self)
        self.db = self.useFixture(self.database())
        self.context = context.get_admin_context()

    def config(self, **kw):
        self.config_fixture.config(**kw)

    def use_in_memory_messaging(self, response_timeout=10):
        """Conductor calls through oslo.messaging's in-memory transport."""
        self.useFixture(conffixture.ConfFixture(CONF,
                                                transport_url='fake:/'))
        self.config(rpc_transport='oslo')
        self.config(rpc_response_timeout=response_timeout)

    #: What a refused request must leave as it was.
    _FLOW_FIELDS = ('provision_state', 'target_provision_state',
                    'provision_updated_at', 'driver_internal_info',
                    'deploy_step', 'clean_step', 'updated_at', 'last_error',
                    'reservation')

    def assertNodeUnchanged(self, node):
        """``node`` (as read before a refused request) is still stored."""
        stored = objects.Node.get(self.context, node.uuid)
        for field in self._FLOW_FIELDS:
            self.assertEqual(getattr(node, field), getattr(stored, field),
                             field)

    def create_node(self, **fields):
        """Store a node the way the API does, through the conductor code."""
        fields.setdefault('driver', 'fake-hardware')
        node = objects.Node(self.context, **fields)
        try:
            return manager.ConductorManager().create_node(self.context, node)
        except messaging.ExpectedException as wrapped:
            # What oslo.messaging's server would unwrap for the caller.
            raise wrapped.exc_info[1] from None


class ConductorTestCase(TestCase):
    """A started conductor, reachable through the RPC API like the API's."""

    #: {group: {option: value}} set before the conductor starts (options
    #: it reads once, such as the periods of its periodic tasks).
    conductor_config = {}

    def setUp(self):
        super().setUp()
        for group, options in self.conductor_config.items():
            self.config(group=group, **options)
        self.manager = manager.ConductorManager()
        fake_agent.start()
        self.manager.start(self.context)
        rpcapi.set_local_manager(self.manager)
        self.addCleanup(rpcapi.set_local_manager, None)
        self.addCleanup(self.manager.stop)
        self.addCleanup(fake_agent.stop)
        self.rpcapi = rpcapi.ConductorAPI()
        self._agent_tokens = {}

    def agent_heartbeat(self, node):
        """Heartbeat as a real agent does: look the node up first, which
        hands the agent token out once per flow, then send it."""
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        if token != agent_token.MASK:
            self._agent_tokens[node.uuid] = token
        self.rpcapi.heartbeat(self.context, node.uuid,
                              agent_token=self._agent_tokens.get(node.uuid))

    def wait_for_state(self, node, state, timeout=10):
        """Wait until ``node`` rests in ``state`` with its lock released."""
        deadline = time.monotonic() + timeout
        while True:
            current = objects.Node.get(self.context, node.uuid)
            if current.provision_state == state and not current.reservation:
                return current
            if time.monotonic() > deadline:
                self.fail('Node %s is %s (last_error %r), not %s after %ss'
                          % (node.uuid, current.provision_state,
                             current.last_error, state, timeout))
            time.sleep(0.01)

    def make_available(self, **fields):
        node = self.create_node(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, 'manageable')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'provide')
        return self.wait_for_state(node, 'available')

    def make_active(self, **fields):
        """A node deployed by fake-hardware, its agent played here."""
        node = self.make_available(**fields)
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, 'wait call-back')
        self.agent_heartbeat(node)
        return self.wait_for_state(node, 'active')


class RPCConductors(fixtures.Fixture):
    """Conductors with their own oslo.messaging servers, in this process."""

    def __init__(self, context, hosts):
        super().__init__()
        self.context = context
        self.hosts = hosts

    def _setUp(self):
        self.managers, self.servers = {}, {}
        # Last to stop: each conductor stops it, and it starts again while
        # others remain.
        self.addCleanup(fake_agent.stop)
        fake_agent.start()
        for host in self.hosts:
            self.managers[host] = manager.ConductorManager(host=host)
            self.managers[host].start(self.context)
            self.servers[host] = rpc.get_server(
                host, list(self.managers[host].endpoints),
                objects_base.IronicStepsObjectSerializer())
            self.servers[host].start()
            self.addCleanup(self.stop, host)
        self.addCleanup(rpc.cleanup)

    def stop(self, host):
        """Stop one conductor: it leaves the ring and answers no more."""
        server = self.servers.pop(host, None)
        if server is not None:
            server.stop()
            server.wait()
            agent_ran = fake_agent.running() is not None
            self.managers.pop(host).stop(feeders=(fake_agent.stop,))
            registry.reset_ring()
            if self.managers and agent_ran:
                # The machines' agent outlives a conductor: the others
                # take its heartbeats.
                fake_agent.start()
