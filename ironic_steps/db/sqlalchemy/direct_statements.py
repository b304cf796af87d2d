"""The hottest node statements run straight on the embedded SQLite's
driver.

A node GET reads one row; a deploy takes and drops the node's lock and
records each step transition, one UPDATE each.  Through SQLAlchemy's
Core, with oslo.db's events, each of these costs 100 to 200
microseconds on top of SQLite's own 20 to 40 (an execution context, a
cursor result, a connection lent by the pool and taken back, a commit),
and the API and the conductor share one interpreter.  Here SQLAlchemy
still builds the SQL (once per dialect) and supplies each column type's
own conversions, both ways; only the execution is ours: the SQL goes to
a driver connection in autocommit mode and rows come back as named
tuples.

Only for file-based SQLite tuned by :mod:`.sqlite`, and only lone
statements, each atomic on its own, or a node's change with the step
history it ends, in a transaction of their own (:func:`transaction`).  A
read in WAL mode never waits for a writer, and a writer holds the
engine's write lock as every other does.  A node UPDATE that could break
a constraint (a unique name, a foreign key) is not run here: oslo.db's
translation of that error is what the callers rely on.  Other databases
go through SQLAlchemy, where oslo.db translates errors and watches
outages.  A listener of ``before_cursor_execute`` on the engine still
hears these statements (tests record and refuse statements that way).
"""

import collections
import contextlib
import sqlite3

from oslo_db import exception as db_exc

from ironic_steps.conf import CONF

_REQUIRED = object()


class DirectStatement:
    """``statement`` (a SELECT, an UPDATE with or without RETURNING, an
    INSERT, whose values all come from its binds) run on a driver
    connection of its own."""

    def __init__(self, statement):
        self._statement = statement
        self._prepared = {}

    def _prepare(self, dialect):
        compiled = self._statement.compile(dialect=dialect)
        if compiled.insert_prefetch or compiled.update_prefetch:
            # Values SQLAlchemy computes at each execution (a column's
            # Python default): only its execution context does that.
            raise TypeError('%s: a column default to compute'
                            % self._statement)
        binds = []
        for name in compiled.positiontup:
            bind = compiled.binds[name]
            binds.append((
                name, _REQUIRED if bind.required else bind.value,
                bind.type.dialect_impl(dialect).bind_processor(dialect)))
        columns = self._statement.exported_columns
        row_type = collections.namedtuple('Row', columns.keys())
        converts = [(index, convert) for index, convert in enumerate(
            column.type.dialect_impl(dialect).result_processor(dialect, None)
            for column in columns) if convert is not None]
        prepared = (compiled.string, binds, row_type, converts)
        self._prepared[dialect] = prepared
        return prepared

    def _prepared_for(self, engine):
        dialect = engine.dialect
        return self._prepared.get(dialect) or self._prepare(dialect)

    @staticmethod
    def _values(binds, params):
        values = []
        for name, default, convert in binds:
            value = params[name] if default is _REQUIRED else params.get(
                name, default)
            values.append(value if convert is None else convert(value))
        return values

    def _run(self, engine, params, connection):
        sql, binds, row_type, converts = self._prepared_for(engine)
        values = self._values(binds, params)
        listening = engine.dispatch.before_cursor_execute
        if listening:
            listening(None, None, sql, values, None, False)
        with _lent(engine, connection) as lent:
            cursor = lent.execute(sql, values)
            # Fetched to the end: the statement is then reset and holds
            # no read snapshot while the connection is idle.
            rows = cursor.fetchall()
            count = cursor.rowcount
        return rows, count, row_type, converts

    def rows(self, engine, params, connection=None):
        """The rows (of a SELECT, or an UPDATE's RETURNING), each column
        converted as SQLAlchemy would.

        :param connection: one from :func:`transaction` to run in.
        """
        rows, _count, row_type, converts = self._run(engine, params,
                                                     connection)
        converted = []
        for row in rows:
            row = list(row)
            for index, convert in converts:
                row[index] = convert(row[index])
            converted.append(row_type._make(row))
        return converted

    def one_or_none(self, engine, params, connection=None):
        rows = self.rows(engine, params, connection)
        return rows[0] if rows else None

    def rowcount(self, engine, params, connection=None):
        """How many rows an UPDATE without RETURNING changed."""
        return self._run(engine, params, connection)[1]

    def run_many(self, engine, many_params, connection):
        """Run an INSERT once for each of ``many_params``, in
        ``connection``'s transaction."""
        sql, binds, _row_type, _converts = self._prepared_for(engine)
        many_values = [self._values(binds, params) for params in many_params]
        listening = engine.dispatch.before_cursor_execute
        if listening:
            listening(None, None, sql, many_values, None, True)
        with _lent(engine, connection) as lent:
            lent.executemany(sql, many_values)


@contextlib.contextmanager
def _lent(engine, connection=None):
    """``connection``, or one lent for the block; SQLite's errors as
    oslo.db's."""
    connections = None
    if connection is None:
        connections = _connections(engine)
        connection = connections.lend()
    try:
        yield connection
    except sqlite3.Error as exc:
        raise db_exc.DBError(exc) from exc
    finally:
        if connections is not None:
            connections.give_back(connection)


@contextlib.contextmanager
def transaction(engine):
    """A driver connection in a transaction of its own, for statements
    that must be written together (a node's change and its step history):
    committed when the block ends, rolled back if it raises.  The caller
    holds the engine's write lock."""
    with _lent(engine) as connection:
        connection.execute('BEGIN')
        try:
            yield connection
        except BaseException:
            connection.execute('ROLLBACK')
            raise
        connection.execute('COMMIT')


class _Connections:
    """Driver connections to one pool's database, lent one at a time.

    A connection per thread would keep a hundred conductor workers' files
    open; the connections in use at once are rather as many as the
    statements SQLite runs at once, a few.  (``list.pop`` and ``append``
    are atomic: no lock.)
    """

    def __init__(self, engine):
        self.pool = engine.pool
        self._args, self._kwargs = engine.dialect.create_connect_args(
            engine.url)
        self._kwargs['check_same_thread'] = False   # lent to any thread
        self._dbapi = engine.dialect.dbapi
        self._idle = []

    def lend(self):
        try:
            return self._idle.pop()
        except IndexError:
            return self._open()

    def give_back(self, connection):
        self._idle.append(connection)

    def _open(self):
        connection = self._dbapi.connect(*self._args, **self._kwargs)
        # What the engine's pool sets on each of its connections (see
        # sqlite.tune and the database API's sqlite_fk); and autocommit:
        # every statement here is a transaction of its own.
        connection.isolation_level = None
        connection.execute('PRAGMA foreign_keys=ON')
        connection.execute('PRAGMA synchronous=%s'
                           % CONF.database.sqlite_wal_synchronous.upper())
        return connection

    def close_idle(self):
        while self._idle:
            self._idle.pop().close()


_current = None


def _connections(engine):
    """The connections to ``engine``'s database: a new set when its pool
    changed (a dispose, another database), the old one's idle connections
    closed (those lent out then close when dropped)."""
    global _current
    current = _current
    if current is not None and current.pool is engine.pool:
        return current
    fresh = _Connections(engine)
    _current = fresh
    if current is not None:
        current.close_idle()
    return fresh


def idle_connections(engine):
    """The idle connections to ``engine``'s database, one made if there
    were none: for tests that trace what SQLite runs (a statement run by
    one thread at a time takes the last of them)."""
    connections = _connections(engine)
    if not connections._idle:
        connections.give_back(connections.lend())
    return list(connections._idle)
