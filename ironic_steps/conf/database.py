"""[database] options, owned by oslo.db; we only set the default URL."""

from oslo_db import options as db_options

#: The embedded default: one SQLite file under the state path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/ironic-steps.sqlite'


def register_opts(conf):
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)


def list_opts():
    return db_options.list_opts()
