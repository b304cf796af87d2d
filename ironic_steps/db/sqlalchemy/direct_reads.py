"""Hot single-row SELECTs run straight on the embedded SQLite's driver.

A node GET reads one row by its key.  Through SQLAlchemy's Core that
read costs about 100 microseconds on top of SQLite's own 40 (an
execution context, a cursor result, the connection's bookkeeping), a
sixth of the GET's CPU, and the API serves reads on one thread.  Here
SQLAlchemy still builds the SQL (once per dialect) and supplies each
column type's own result conversion; only the execution is ours: the
SQL goes to a driver connection of the reading thread's own and the row
comes back as a named tuple.

Each thread keeps one connection for these reads, opened as the engine's
pool opens its own: lending one from the pool and taking it back cost as
much again as the read.  A read in WAL mode takes no lock that outlives
it, so a connection idle in a thread holds nothing up; it follows the
engine to a new pool (a dispose, another database) and is closed with
its thread.

Only for file-based SQLite tuned by :mod:`.sqlite` (WAL: a read never
waits for a writer and holds nothing once fetched).  Other databases go
through SQLAlchemy, where oslo.db translates errors and watches outages.
A listener of ``before_cursor_execute`` on the engine still hears these
statements (tests record and refuse statements that way).
"""

import collections
import sqlite3
import threading

from oslo_db import exception as db_exc


class DirectRead:
    """``statement`` (a SELECT of at most one row, whose only binds are
    named parameters without type conversion) run on a driver connection
    of ``engine``'s pool."""

    def __init__(self, statement):
        self._statement = statement
        self._prepared = {}

    def _prepare(self, dialect):
        compiled = self._statement.compile(dialect=dialect)
        for name in compiled.positiontup:
            bind_type = compiled.binds[name].type.dialect_impl(dialect)
            if bind_type.bind_processor(dialect):
                raise TypeError('%s: a bind with a conversion' % name)
        columns = self._statement.selected_columns
        row_type = collections.namedtuple('Row', columns.keys())
        converts = [(index, convert) for index, convert in enumerate(
            column.type.dialect_impl(dialect).result_processor(dialect, None)
            for column in columns) if convert is not None]
        prepared = (compiled.string, tuple(compiled.positiontup), row_type,
                    converts)
        self._prepared[dialect] = prepared
        return prepared

    def one_or_none(self, engine, params):
        """The row, with each column converted as SQLAlchemy would, or
        None."""
        dialect = engine.dialect
        prepared = self._prepared.get(dialect) or self._prepare(dialect)
        sql, names, row_type, converts = prepared
        values = tuple(params[name] for name in names)
        listening = engine.dispatch.before_cursor_execute
        if listening:
            listening(None, None, sql, values, None, False)
        try:
            rows = thread_connection(engine).execute(sql, values).fetchall()
        except sqlite3.Error as exc:
            raise db_exc.DBError(exc) from exc
        if not rows:
            return None
        row = list(rows[0])
        for index, convert in converts:
            row[index] = convert(row[index])
        return row_type._make(row)


_THREAD = threading.local()


def thread_connection(engine):
    """This thread's reading connection to ``engine``'s database (public
    for tests that trace what SQLite runs)."""
    held = getattr(_THREAD, 'held', None)
    if held is not None and held[0] is engine.pool:
        return held[1]
    if held is not None:
        held[1].close()
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    connection = engine.dialect.dbapi.connect(*args, **kwargs)
    _THREAD.held = (engine.pool, connection)
    return connection
