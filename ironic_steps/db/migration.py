"""Schema migrations: find the alembic scripts and run them.

Migrations are upgrade-only.  The scripts live in the ``alembic_migrations``
package, found through the import system so an installed ironic-steps works
without its source tree.
"""

import importlib.util
import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script

from ironic_steps.db.sqlalchemy import api as sqlalchemy_api


def migrations_dir():
    """Directory of the alembic environment shipped with ironic-steps."""
    spec = importlib.util.find_spec('alembic_migrations')
    if spec is None or spec.origin is None:
        raise RuntimeError('The alembic_migrations package of ironic-steps '
                           'is not installed; reinstall ironic-steps.')
    module = importlib.import_module('alembic_migrations')
    if getattr(module, 'OWNER', None) != 'ironic-steps':
        raise RuntimeError('%s is not the alembic_migrations package of '
                           'ironic-steps' % spec.origin)
    return os.path.dirname(spec.origin)


def _config(connection):
    config = alembic_config.Config()
    config.set_main_option('script_location', migrations_dir())
    config.attributes['connection'] = connection
    return config


def upgrade(revision='head'):
    """Bring the configured database up to ``revision``."""
    with sqlalchemy_api.get_engine().begin() as connection:
        command.upgrade(_config(connection), revision)


def version():
    """The revision the database is at, or None for an empty database."""
    with sqlalchemy_api.get_engine().connect() as connection:
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()


def pending():
    """Revisions not yet applied, oldest first."""
    script = alembic_script.ScriptDirectory(migrations_dir())
    current = version()
    revisions = [rev.revision for rev in script.walk_revisions(
        base='base', head='heads')]
    revisions.reverse()
    if current is None:
        return revisions
    return revisions[revisions.index(current) + 1:]
