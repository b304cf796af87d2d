"""Hot single-row SELECTs run straight on the embedded SQLite's driver.

A node GET reads one row by its key.  Through SQLAlchemy's Core that
read costs about 100 microseconds on top of SQLite's own 40 (an
execution context, a cursor result, the connection's bookkeeping), a
sixth of the GET's CPU, and the API serves reads on one thread.  Here
SQLAlchemy still builds the SQL (once per dialect) and supplies each
column type's own result conversion; only the execution is ours: the
SQL goes to a pooled driver connection and the row comes back as a
named tuple.

Only for file-based SQLite tuned by :mod:`.sqlite` (WAL: a read never
waits for a writer and holds nothing once fetched).  Other databases go
through SQLAlchemy, where oslo.db translates errors and watches outages.
A listener of ``before_cursor_execute`` on the engine still hears these
statements (tests record and refuse statements that way).
"""

import collections
import sqlite3

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
        connection = engine.pool.connect()
        try:
            listening = engine.dispatch.before_cursor_execute
            if listening:
                listening(None, None, sql, values, None, False)
            rows = connection.driver_connection.execute(sql, values).fetchall()
        except sqlite3.Error as exc:
            raise db_exc.DBError(exc) from exc
        finally:
            connection.close()
        if not rows:
            return None
        row = list(rows[0])
        for index, convert in converts:
            row[index] = convert(row[index])
        return row_type._make(row)
