"""The embedded SQLite database is tuned for a threaded service."""

import threading

import sqlalchemy as sa
from sqlalchemy import pool

from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import direct_statements
from ironic_steps import objects
from tests import base

# PRAGMA synchronous answers with a number.
NORMAL, FULL = 1, 2


class SQLiteTuningTest(base.TestCase):

    def pragma(self, name):
        with sqlalchemy_api.get_engine().connect() as connection:
            return connection.exec_driver_sql('PRAGMA %s' % name).scalar()

    def test_connections_are_pooled_wal_and_do_not_wait_for_fsync(self):
        self.assertIsInstance(sqlalchemy_api.get_engine().pool,
                              pool.QueuePool)
        self.assertEqual('wal', self.pragma('journal_mode'))
        self.assertEqual(NORMAL, self.pragma('synchronous'))

    def test_full_durability_can_be_chosen(self):
        self.config(sqlite_wal_synchronous='full', group='database')
        sqlalchemy_api.configure(connection=self.db.url)
        self.assertEqual(FULL, self.pragma('synchronous'))

    def test_pooled_connections_serve_many_threads(self):
        node = self.create_node()
        errors = []

        def bump(thread_index):
            try:
                for i in range(20):
                    current = objects.Node.get(self.context, node.uuid)
                    current.extra = {'thread': thread_index, 'i': i}
                    current.save()
            except Exception as exc:   # collected, asserted below
                errors.append(exc)

        threads = [threading.Thread(target=bump, args=(n,))
                   for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        with sqlalchemy_api.get_engine().connect() as connection:
            self.assertEqual(1, connection.execute(
                sa.text('SELECT count(*) FROM nodes')).scalar())

    def statements_of(self, call):
        """The verbs of what SQLite itself ran during ``call``: its trace
        callback sees the BEGIN and COMMIT that go straight to the driver,
        which SQLAlchemy's events do not."""
        engine = sqlalchemy_api.get_engine()
        seen = []

        def trace(dbapi_connection, *_):
            dbapi_connection.set_trace_callback(seen.append)

        def untrace(dbapi_connection, *_):
            dbapi_connection.set_trace_callback(None)

        sa.event.listen(engine, 'checkout', trace)
        sa.event.listen(engine, 'checkin', untrace)
        # The hottest node statements go to connections of their own
        # (direct_statements): traced too.
        direct = direct_statements.idle_connections(engine)
        for connection in direct:
            connection.set_trace_callback(seen.append)
        try:
            call()
        finally:
            sa.event.remove(engine, 'checkout', trace)
            sa.event.remove(engine, 'checkin', untrace)
            for connection in direct:
                connection.set_trace_callback(None)
        return [statement.split()[0].upper() for statement in seen]

    def test_lone_node_reads_and_writes_run_without_begin(self):
        # Each is one statement, atomic on its own: a BEGIN and a COMMIT
        # around it would only be two more calls into SQLite.
        node = self.create_node()
        self.assertEqual(['SELECT'], self.statements_of(
            lambda: objects.Node.get(self.context, node.uuid)))
        self.assertEqual(['UPDATE'], self.statements_of(
            lambda: objects.Node.reserve(self.context, 'c-1', node.id)))
        node.extra = {'rack': 1}
        self.assertEqual(['UPDATE'], self.statements_of(
            lambda: node.save(release='c-1')))
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual({'rack': 1}, stored.extra)
        self.assertIsNone(stored.reservation)

    def test_a_node_creation_is_still_one_transaction(self):
        self.assertEqual(['BEGIN', 'INSERT', 'SELECT', 'COMMIT'],
                         self.statements_of(self.create_node))

    def test_a_transaction_that_fails_leaves_nothing_behind(self):
        # The node and its history in one transaction: an INSERT that
        # fails takes the node's change back with it.
        node = self.create_node()

        def refuse(conn, cursor, statement, *args):
            if statement.upper().startswith('INSERT INTO NODE_STEP_HISTORY'):
                raise sa.exc.OperationalError(statement, {}, Exception('x'))

        with base.StatementHook(refuse), self.assertRaises(RuntimeError):
            with sqlalchemy_api._writer() as connection:
                connection.execute(sa.text(
                    "UPDATE nodes SET extra = '{\"a\": 1}' WHERE id = :id"),
                    {'id': node.id})
                self.assertRaises(
                    sa.exc.OperationalError, connection.execute, sa.text(
                        "INSERT INTO node_step_history (node_id) "
                        "VALUES (:id)"), {'id': node.id})
                raise RuntimeError('the block fails')
        self.assertEqual({}, objects.Node.get(self.context, node.uuid).extra
                         or {})

    def test_node_writes_run_on_an_engine_without_listeners(self):
        # oslo.db's begin/commit/rollback listeners make SQLAlchemy look
        # up events around every statement of their engine.
        engines = sqlalchemy_api.statement_engines()
        self.assertEqual(2, len(engines))
        for event in ('begin', 'commit', 'rollback'):
            self.assertNotEqual([], list(getattr(engines[0].dispatch, event)))
            self.assertEqual([], list(getattr(engines[1].dispatch, event)))
        self.assertIs(engines[0].pool, engines[1].pool)
        node = self.create_node()
        used = []
        record = used.append
        sa.event.listen(engines[1], 'engine_connect', record)
        self.addCleanup(sa.event.remove, engines[1], 'engine_connect',
                        record)
        # (A unique column: the write is not one of direct_statements'.)
        node.name = 'renamed'
        node.save()
        self.assertEqual(1, len(used))
        self.assertEqual('renamed',
                         objects.Node.get(self.context, node.uuid).name)

    def test_the_lean_engine_follows_its_engine_through_a_dispose(self):
        node = self.create_node()
        engine = sqlalchemy_api.get_engine()
        engine.dispose()
        node.name = 'after-dispose'    # through the lean engine (above)
        node.save()
        self.assertIs(engine.pool, sqlalchemy_api.statement_engines()[1].pool)
        self.assertEqual('after-dispose',
                         objects.Node.get(self.context, node.uuid).name)


class ReconnectTest(base.TestCase):
    """What each test's database rests on: sqlalchemy_api.reconnect and a
    fresh copy of the template over the file of the test before."""

    def test_the_same_options_keep_the_engines_with_fresh_connections(self):
        engine = sqlalchemy_api.get_engine()
        pool = engine.pool
        self.create_node()
        self.assertGreater(pool.checkedin(), 0)
        sqlalchemy_api.reconnect(connection=self.db.url)
        self.assertIs(engine, sqlalchemy_api.get_engine())
        self.assertIsNot(pool, engine.pool)
        self.assertEqual(0, pool.checkedin())
        self.assertEqual(1, len(objects.Node.list(self.context)))

    def test_after_configure_the_engines_are_made_anew(self):
        engine = sqlalchemy_api.get_engine()
        sqlalchemy_api.configure(connection=self.db.url)
        sqlalchemy_api.reconnect(connection=self.db.url)
        self.assertIsNot(engine, sqlalchemy_api.get_engine())

    def test_the_next_test_finds_the_file_empty_again(self):
        self.create_node()
        engine = sqlalchemy_api.get_engine()
        fresh = self.useFixture(base.Database())
        self.assertEqual(self.db.path, fresh.path)
        self.assertIs(engine, sqlalchemy_api.get_engine())
        self.assertEqual([], objects.Node.list(self.context))
        self.create_node()
        self.assertEqual(1, len(objects.Node.list(self.context)))
