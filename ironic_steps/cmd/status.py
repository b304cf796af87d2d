"""ironic-steps-status upgrade check: is it safe to upgrade now?

    ironic-steps-status [--config-file FILE] upgrade check

Exit status 0: safe; 1: safe, with warnings to read; 2: not safe.
"""

import functools
import sys

from oslo_db import exception as db_exc
from oslo_upgradecheck import upgradecheck

from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF
from ironic_steps.db import api as db_api
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api

Code = upgradecheck.Code
Result = upgradecheck.Result

#: A conductor restarted while it runs a node's steps fails that flow.
_IN_FLIGHT = step_kinds.UNDER_WAY_STATES


def _needs_database(check):
    """A check that cannot reach the database fails, saying why."""
    @functools.wraps(check)
    def checked(self):
        try:
            return check(self)
        except db_exc.DBError as exc:
            return Result(Code.FAILURE, 'Cannot read the database (%s): %s'
                          % (type(exc).__name__, exc))
    return checked


class Checks(upgradecheck.UpgradeCommands):

    def _check_release_pin(self):
        pinned = CONF.pin_release_version
        if pinned:
            return Result(Code.WARNING, (
                'Pinned to release %s: services send what that release '
                'understands and new deploys use the legacy path if it '
                'predates deploy steps. Unset [DEFAULT] pin_release_version '
                'and restart each service once all run the new release.'
                % pinned))
        return Result(Code.SUCCESS, 'Not pinned: every service must run '
                                    'this release before the next upgrade.')

    @_needs_database
    def _check_migrations(self):
        current = migration.version()
        pending = migration.pending()
        if current is None:
            return Result(Code.FAILURE, 'The database has no schema; run '
                                        '"ironic-steps-dbsync upgrade".')
        if pending:
            return Result(Code.FAILURE, (
                'The database is at %s; pending migrations: %s. Run '
                '"ironic-steps-dbsync upgrade" before starting services of '
                'this release.' % (current, ', '.join(pending))))
        return Result(Code.SUCCESS, 'The database schema is current (%s).'
                      % current)

    @_needs_database
    def _check_nodes_in_flight(self):
        if migration.version() is None:
            return Result(Code.FAILURE, 'No schema, so no nodes to check.')
        counts = db_api.get_instance().count_nodes_by_state()
        busy = {state: n for state, n in counts.items() if state in _IN_FLIGHT}
        if busy:
            return Result(Code.WARNING, (
                'Nodes mid-operation: %s. Restart a conductor only when '
                'none of its nodes is deploying or cleaning: a flow it runs '
                'is failed by the restart (waiting nodes resume on any '
                'conductor).' % ', '.join(
                    '%d %s' % (n, state) for state, n in sorted(busy.items()))))
        return Result(Code.SUCCESS, 'No node is deploying, cleaning or '
                                    'waiting for its agent.')

    _upgrade_checks = (
        ('Release pin', _check_release_pin),
        ('Database migrations', _check_migrations),
        ('Nodes mid-deploy', _check_nodes_in_flight),
    )


def main(argv=None):
    sqlalchemy_api.configure()
    return upgradecheck.main(CONF, project='ironic-steps',
                             upgrade_command=Checks(),
                             argv=(sys.argv if argv is None else argv)[1:])


if __name__ == '__main__':
    sys.exit(main())
