"""[database] options, owned by oslo.db; we only set the default URL."""

import copy

from oslo_db import options as db_options

#: The embedded default: one SQLite file under the state path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/ironic-steps.sqlite'


def register_opts(conf):
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)


def list_opts():
    """oslo.db's options, showing our default connection in the sample."""
    listed = []
    for group, opts in db_options.list_opts():
        opts = copy.deepcopy(opts)
        for opt in opts:
            if opt.name == 'connection':
                opt.default = DEFAULT_CONNECTION
        listed.append((group, opts))
    return listed
