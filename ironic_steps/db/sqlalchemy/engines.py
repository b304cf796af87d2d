"""The database API's engines: oslo.db's facade, configured once per
process (or again by tests and tools), and its engines tuned for SQLite
and MySQL and watched for the end of an outage."""

import threading

import sqlalchemy as sa
from oslo_db.sqlalchemy import enginefacade

from ironic_steps.common import outage
from ironic_steps.db.sqlalchemy import mysql
from ironic_steps.db.sqlalchemy import sqlite

_WATCHED = '_ironic_steps_watched'
_FACADE_LOCK = threading.RLock()   # tuned() asks facade() under it
_facade = None
_tuned = None
#: The options reconnect() configured the facade with, until configure().
_reconnectable = None


def _new_facade(**kwargs):
    facade = enginefacade.transaction_context()
    # oslo.db yields the GIL (sleep(0)) on every connection check-in, a
    # courtesy to green threads; with real threads it only adds latency.
    # SQLite enforces foreign keys only when asked: the schema's ON DELETE
    # CASCADEs (a node's traits and BIOS settings, a template's steps)
    # rely on it.
    kwargs.setdefault('sqlite_fk', True)
    facade.configure(thread_checkin=False, **kwargs)
    return facade


def facade():
    global _facade
    current = _facade
    if current is not None:   # every write asks: no lock once made
        return current
    with _FACADE_LOCK:
        if _facade is None:
            _facade = _new_facade()
        return _facade


def tuned():
    """(writer, reader): the facade's engines, tuned; looked up once per
    facade, not at every statement (the facade's lock and its engine
    look-up were a fiftieth of a node read)."""
    global _tuned
    engines = _tuned
    if engines is None:
        with _FACADE_LOCK:
            if _tuned is None:
                current = facade()
                # The writer first: it makes the SQLite file WAL.
                writer = _tune(current.writer.get_engine())
                _tuned = (writer, _tune(current.reader.get_engine()))
            engines = _tuned
    return engines


def configure(**kwargs):
    """Point the database API at another database (tests, tools).

    Takes oslo.db enginefacade options, e.g. ``connection='sqlite:///x'``;
    without arguments, ``[database]`` is read on first use.
    """
    global _facade, _tuned, _reconnectable
    with _FACADE_LOCK:
        old, _facade = _facade, _new_facade(**kwargs)
        _tuned = None
        _reconnectable = None
    if old is not None:
        old.dispose_pool()


def reconnect(**kwargs):
    """configure(), except that the engines an earlier reconnect() made for
    the same options stay, with the statements they compiled; only their
    pooled connections are closed.  For tests, which copy a fresh database
    over one file for each test.  The engines are made here, from the
    configuration as it is now.
    """
    global _reconnectable
    if _reconnectable == kwargs:
        for engine in set(tuned()):
            engine.dispose()
        return
    configure(**kwargs)
    tuned()
    _reconnectable = kwargs


def get_engine():
    return tuned()[0]


def statement_engines():
    """Every engine this API runs statements on, for listeners of
    statements (tests, tools)."""
    return sqlite.engines(get_engine())


def _tune(engine):
    return _watch(mysql.tune(sqlite.tune(engine)))


def _watch(engine):
    """Every statement that succeeds on ``engine`` ends an outage of the
    database (:data:`outage.DATABASE`): that is how the API, which runs no
    periodic task, learns it is back.  Not for SQLite, a local file."""
    if engine.dialect.name == 'sqlite' or getattr(engine, _WATCHED, False):
        return engine
    setattr(engine, _WATCHED, True)
    sa.event.listen(engine, 'after_cursor_execute',
                    lambda *_: outage.DATABASE.succeeded())
    return engine
