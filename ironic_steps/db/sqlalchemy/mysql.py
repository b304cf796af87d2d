"""How MySQL and MariaDB are run, so that they behave as PostgreSQL does.

The schema and queries are written once for every database; out of the box
MySQL and MariaDB would differ from SQLite and PostgreSQL in ways a user
sees.  What this module sets, and why:

* **Tables declare utf8mb4 with the binary collation** (``TABLE_OPTIONS``),
  whatever the database's defaults: any Unicode text is stored (not only
  the Basic Multilingual Plane), and a name compares as PostgreSQL and
  SQLite compare it, case and accents included: ``Node-1`` and ``node-1``
  are two nodes, BIOS setting ``BootMode`` is not ``bootmode``.  (Ironic
  on MySQL uses a case-insensitive collation, so there they collide.)
  ``utf8mb4_bin``, the binary collation MySQL and MariaDB both have,
  ignores trailing spaces when comparing; no name the API accepts has
  them.
* **Times keep their microseconds** (:data:`DateTime`, ``DATETIME(6)``):
  a plain DATETIME drops them, so a node would read back another
  ``updated_at`` than it saved, and the order of events within a second
  would be lost.
* **Text has no limit of its own** (:data:`Text`, ``LONGTEXT``): TEXT
  stops at 64 KiB, where a node's JSON fields or ``last_error`` would be
  refused on MySQL alone.  The server's ``max_allowed_packet`` still
  bounds a statement.
* **READ COMMITTED** (:func:`tune`), PostgreSQL's level, instead of
  REPEATABLE READ: under REPEATABLE READ, InnoDB locks the gaps next to
  the rows a DELETE looks for, so two conductors replacing the traits of
  two new nodes deadlock on the gap between them.  (With binary logging,
  the log format must then be ROW or MIXED, the defaults.)
* **group_concat_max_len** is raised (:func:`tune`): a node's traits are
  read as one aggregated string, and MySQL cuts it silently at 1,024
  bytes by default, fewer than a node's traits can take.

A database without RETURNING for UPDATE (MySQL, MariaDB) takes a node's
lock in two statements of one transaction: see ``reserve_node``.
"""

import threading

import sqlalchemy as sa
from sqlalchemy.dialects import mysql as mysql_dialect

_NAMES = ('mysql', 'mariadb')

#: Options of every table; the other databases ignore them.
TABLE_OPTIONS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4',
                 'mysql_collate': 'utf8mb4_bin'}

#: A time with its microseconds on every database.
DateTime = sa.DateTime().with_variant(mysql_dialect.DATETIME(fsp=6), *_NAMES)

#: Text as long as PostgreSQL's and SQLite's.
Text = sa.Text().with_variant(mysql_dialect.LONGTEXT(), *_NAMES)

# Longer than the traits of a node can be, comma-separated, in utf8mb4
# (50 traits of 255 characters, 4 bytes each).
_GROUP_CONCAT_MAX_LEN = 1024 * 1024

_TUNED = '_ironic_steps_tuned'
_TUNE_LOCK = threading.Lock()


def tune(engine):
    """Apply the session settings above to a MySQL or MariaDB engine, once."""
    if engine.dialect.name not in _NAMES or getattr(engine, _TUNED, False):
        return engine
    with _TUNE_LOCK:
        if not getattr(engine, _TUNED, False):
            _set_on_connect(engine)
            setattr(engine, _TUNED, True)
    return engine


def _set_on_connect(engine):
    @sa.event.listens_for(engine, 'connect')
    def set_session(dbapi_connection, _record):
        engine.dialect.set_isolation_level(dbapi_connection, 'READ COMMITTED')
        with dbapi_connection.cursor() as cursor:
            cursor.execute('SET SESSION group_concat_max_len = %d'
                           % _GROUP_CONCAT_MAX_LEN)

    # oslo.db connected once to test the engine, before this listener:
    # that connection must not be handed out with the server's defaults.
    engine.dispose()
