"""ironic-steps-dbsync: create or upgrade the database schema.

    ironic-steps-dbsync [--config-file FILE] upgrade [--revision REV]
    ironic-steps-dbsync [--config-file FILE] version
    ironic-steps-dbsync [--config-file FILE] pending
"""

import sys

from oslo_config import cfg

from ironic_steps.conf import CONF
from ironic_steps.db import migration
from ironic_steps import service


def _upgrade():
    migration.upgrade(CONF.command.revision)
    print('Database is at revision %s' % migration.version())


def _version():
    print(migration.version() or 'empty (no schema)')


def _pending():
    for revision in migration.pending():
        print(revision)


def _add_commands(subparsers):
    upgrade = subparsers.add_parser(
        'upgrade', help='Apply every pending migration (or up to '
                        '--revision). Creates the schema in an empty '
                        'database.')
    upgrade.add_argument('--revision', default='head',
                         help='Stop at this revision (default: head).')
    upgrade.set_defaults(func=_upgrade)
    subparsers.add_parser(
        'version', help='Print the revision the database is at.'
    ).set_defaults(func=_version)
    subparsers.add_parser(
        'pending', help='List migrations not yet applied, oldest first.'
    ).set_defaults(func=_pending)


def main(argv=None):
    CONF.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Commands', handler=_add_commands))
    service.prepare_service(sys.argv if argv is None else argv)
    service.ensure_state_path()
    CONF.command.func()
    return 0


if __name__ == '__main__':
    sys.exit(main())
