"""[database] options: oslo.db's, with our defaults, plus SQLite's.

oslo.db's ``db_max_retries``, ``db_retry_interval``,
``db_inc_retry_interval`` and ``db_max_retry_interval`` bound how long a
conductor retries a node write that lost its database connection (see
:func:`ironic_steps.db.sqlalchemy.api.retry_on_disconnect`).  The longest
wait between two tries is ours, 2 s instead of 10: it is the time a flow
may stay idle after the database is back.
"""

import copy

from oslo_config import cfg
from oslo_db import options as db_options

#: The embedded default: one SQLite file under the state path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/ironic-steps.sqlite'
#: Our defaults for oslo.db's options (see the module doc).
_DEFAULTS = {'connection': DEFAULT_CONNECTION, 'db_max_retry_interval': 2}


sqlite_opts = [
    cfg.StrOpt('sqlite_wal_synchronous',
               default='normal', choices=['normal', 'full'],
               help='Durability of the embedded SQLite database (WAL mode). '
                    '"normal": a commit does not wait for the disk; a power '
                    'loss may undo the last node transitions but never '
                    'corrupts the database, and a crash of the service '
                    'loses nothing. "full": every commit waits for an '
                    'fsync, which caps step transitions at the rate the '
                    'disk syncs.'),
]


def register_opts(conf):
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)
    conf.register_opts(sqlite_opts, group='database')
    conf.set_default('db_max_retry_interval',
                     _DEFAULTS['db_max_retry_interval'], group='database')


def list_opts():
    """oslo.db's options, showing our defaults in the sample."""
    listed = []
    for group, opts in db_options.list_opts():
        opts = copy.deepcopy(opts)
        for opt in opts:
            if group == 'database' and opt.name in _DEFAULTS:
                opt.default = _DEFAULTS[opt.name]
        if group == 'database':
            opts += sqlite_opts
        listed.append((group, opts))
    return listed
