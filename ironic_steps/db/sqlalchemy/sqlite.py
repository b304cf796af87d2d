"""How the embedded SQLite database is run, for a multi-threaded service.

* **WAL journal**: API readers go on while a conductor writes.  The mode is
  stored in the database file, so it is set once.
* **synchronous = NORMAL** (``[database] sqlite_wal_synchronous``): in WAL
  mode a commit then waits for no fsync; the WAL is synced at checkpoints.
  An application crash loses nothing; a power loss may lose the last
  transitions, never the database's consistency.  With FULL every step
  transition waits for the disk, and one writer at a time means deploys
  queue behind fsyncs.
* **A pool of connections**: oslo.db gives file-based SQLite no pool (it
  opens and closes a connection for every transaction); reusing them makes
  a query several times cheaper.  Connections move between threads, which
  is safe because the pool lends each to one thread at a time.
* **One writer at a time, queued in Python**: SQLite lets one transaction
  write; the others retry inside SQLite's busy handler, which sleeps up to
  100 ms between tries, so a hundred conductor workers spend their time
  asleep.  A lock around write transactions makes them wait their turn
  instead, and readers (WAL) never wait.
* **One statement, no BEGIN**: oslo.db wraps every SQLite transaction in
  an explicit BEGIN ... COMMIT, so that several statements share one
  snapshot.  A lone statement is atomic on its own, and the two extra
  calls into SQLite cost more than their own time: each lets another
  thread take the GIL, and getting it back is a context switch.  Node
  reads, locks and transitions are lone statements
  (:func:`one_statement`).  Several statements that must agree share a
  transaction whose BEGIN goes straight to the driver
  (:func:`transaction`).
* **A lean engine for those two**: oslo.db listens to every transaction's
  begin, commit and rollback on the engine, to emulate BEGIN; an engine
  with any listener makes SQLAlchemy look up its events around each
  statement, a tenth of a node write's CPU.  The statements above manage
  BEGIN themselves, so they run on a second engine over the same pool and
  dialect (the same connections, the pool's events and oslo.db's error
  translation, a dialect event) with no engine listener.
* **The hottest node statements past SQLAlchemy's execution**: a node
  GET's SELECT, a lock taken and dropped, a lone node UPDATE run on driver
  connections of their own (:mod:`.direct_statements`).
"""

import contextlib
import os
import threading

import sqlalchemy as sa
from sqlalchemy import pool

from ironic_steps.common import private_files
from ironic_steps.conf import CONF

_TUNED = '_ironic_steps_tuned'
_LEAN = '_ironic_steps_lean'


def _is_file(engine):
    return (engine.dialect.name == 'sqlite'
            and engine.url.database not in (None, '', ':memory:'))


def create_private_file(url):
    """For a SQLite ``url`` naming a file, create that file (and its
    directory) private before SQLite opens it: it holds BMC passwords.
    SQLite gives its WAL and shared-memory files the database file's
    mode.  Any other URL: nothing to do."""
    if not url:
        return   # not configured here (tests)
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() != 'sqlite' or parsed.database in (
            None, '', ':memory:') or parsed.database.startswith('file:'):
        return
    directory = os.path.dirname(os.path.abspath(parsed.database))
    private_files.make_directory(directory)
    private_files.create(parsed.database)


def _use_wal(engine):
    # oslo.db opens its own transactions on SQLite, and the journal mode
    # cannot change inside one: use the bare DB-API connection.
    raw = engine.raw_connection()
    try:
        raw.driver_connection.execute('PRAGMA journal_mode=WAL')
    finally:
        raw.close()


def _pool_connections(engine):
    old = engine.pool
    cargs, cparams = engine.dialect.create_connect_args(engine.url)
    cparams['check_same_thread'] = False
    # Keeps the pool events oslo.db and SQLAlchemy registered (_dispatch).
    engine.pool = pool.QueuePool(
        lambda: engine.dialect.connect(*cargs, **cparams),
        pool_size=CONF.database.max_pool_size or 10,
        max_overflow=max(CONF.database.max_overflow or 0, 20),
        timeout=CONF.database.pool_timeout or 30,
        dialect=engine.dialect, _dispatch=old.dispatch)
    old.dispose()


# oslo.db's SQLite "begin" listener emits BEGIN unless this key of the
# connection's info says a transaction is already open.
_OSLO_DB_IN_TRANSACTION = 'in_transaction'


@contextlib.contextmanager
def one_statement(engine):
    """A connection for a single statement, committed when the block ends.

    On SQLite the statement runs in autocommit mode, without BEGIN and
    COMMIT (see the module's docstring); elsewhere in a transaction of its
    own.  A second statement in the block would not share a snapshot with
    the first on SQLite: use a transaction for that.
    """
    if engine.dialect.name != 'sqlite':
        with engine.connect() as connection:
            yield connection
            connection.commit()
        return
    with _lean(engine).connect() as connection:
        connection.info[_OSLO_DB_IN_TRANSACTION] = True
        try:
            yield connection
            connection.commit()
        finally:
            # (Only here: reading ``info`` of a connection the server
            # closed raises, and would hide why it was closed.)
            connection.info.pop(_OSLO_DB_IN_TRANSACTION, None)


@contextlib.contextmanager
def transaction(engine):
    """A connection in a transaction of its own, committed when the block
    ends (rolled back if it raises), on a tuned SQLite ``engine``.

    oslo.db would run its BEGIN as a statement through SQLAlchemy, with
    the events and bookkeeping of one, and take the connection through its
    transaction context: together a sixth of a step transition's CPU.
    Here BEGIN is handed to the driver's connection, and SQLAlchemy's
    commit (the driver's) ends the transaction SQLite then holds.
    """
    with _lean(engine).connect() as connection:
        connection.info[_OSLO_DB_IN_TRANSACTION] = True
        try:
            connection.connection.driver_connection.execute('BEGIN')
            yield connection
            connection.commit()
        finally:
            connection.info.pop(_OSLO_DB_IN_TRANSACTION, None)


def _lean(engine):
    lean = getattr(engine, _LEAN, None)
    if lean is None:
        return engine
    if lean.pool is not engine.pool:
        # The engine was disposed of (a new pool): follow it, as dispose()
        # does, keeping the statements compiled so far.
        lean.pool = engine.pool
    return lean


def _new_lean(engine):
    lean = sa.engine.Engine(engine.pool, engine.dialect, engine.url)
    setattr(engine, _LEAN, lean)
    return lean


def engines(engine):
    """``engine`` and the lean engine beside it, if any: where a listener
    of statements must listen to see them all."""
    return (engine,) if getattr(engine, _LEAN, None) is None else (
        engine, _lean(engine))


def is_tuned(engine):
    """Whether ``engine`` is a file-based SQLite engine set up here (the
    MySQL module marks its engines tuned too: the lean engine is ours)."""
    return getattr(engine, _LEAN, None) is not None


def is_tuned_file(engine):
    """Whether ``engine`` is a file-based SQLite engine set up here."""
    # (The MySQL module marks its engines with the same attribute.)
    return engine.dialect.name == 'sqlite' and getattr(engine, _TUNED, False)


def write_lock(engine):
    """What a write transaction holds: the engine's lock, or nothing."""
    return getattr(engine, '_ironic_steps_write_lock', None) or (
        contextlib.nullcontext())


def tune(engine):
    """Apply the settings above to a file-based SQLite engine, once."""
    if not _is_file(engine) or getattr(engine, _TUNED, False):
        return engine
    _use_wal(engine)
    _pool_connections(engine)
    engine._ironic_steps_write_lock = threading.Lock()
    _new_lean(engine)
    synchronous = CONF.database.sqlite_wal_synchronous.upper()

    @sa.event.listens_for(engine, 'connect')
    def set_synchronous(dbapi_connection, _record):
        dbapi_connection.execute('PRAGMA synchronous=%s' % synchronous)

    setattr(engine, _TUNED, True)
    return engine
