"""[database] options: oslo.db's, with our default URL, plus SQLite's."""

import copy

from oslo_config import cfg
from oslo_db import options as db_options

#: The embedded default: one SQLite file under the state path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/ironic-steps.sqlite'


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


def list_opts():
    """oslo.db's options, showing our default connection in the sample."""
    listed = []
    for group, opts in db_options.list_opts():
        opts = copy.deepcopy(opts)
        for opt in opts:
            if opt.name == 'connection':
                opt.default = DEFAULT_CONNECTION
        if group == 'database':
            opts += sqlite_opts
        listed.append((group, opts))
    return listed
