"""The same behaviour on PostgreSQL, the distributed mode's database."""

import sqlalchemy as sa

from ironic_steps import objects
from tests import base
from tests.unit.api import test_inspection_rules
from tests.unit.api import test_node_resources
from tests.unit.api import test_strict_input
from tests.unit.conductor import test_deployments
from tests.unit.db import test_migrations
from tests.unit.objects import test_allocation
from tests.unit.objects import test_bios_setting
from tests.unit.objects import test_conductor
from tests.unit.objects import test_deploy_template
from tests.unit.objects import test_node
from tests.unit.objects import test_step_history


class MigrationsOnPostgreSQLTest(test_migrations.MigratedSchemaTest):
    """The migrations build the models' schema on PostgreSQL."""

    # The migrations themselves: their result, not a copy of it.
    database = base.MigratedPostgreSQLDatabase


class CopiedSchemaOnPostgreSQLTest(MigrationsOnPostgreSQLTest):
    """The copy of the migrated database every other test here gets (see
    tests.base) has the migrations' schema too."""

    database = base.PostgreSQLDatabase


class InspectionRulesOnPostgreSQLTest(test_inspection_rules.ListTest,
                                      test_inspection_rules.UpdateAndDeleteTest):
    """Inspection rules listed, sorted, paged and changed on PostgreSQL."""

    database = base.PostgreSQLDatabase


class NulCharacterOnPostgreSQLTest(test_strict_input.NulCharacterTest):
    """Refused before PostgreSQL, which cannot store it, sees it."""

    database = base.PostgreSQLDatabase


class DeployOnPostgreSQLTest(test_deployments.DeployWithStepsTest):
    """Every deploy-flow test of the SQLite suite, on PostgreSQL."""

    database = base.PostgreSQLDatabase


class NodeReadWriteOnPostgreSQLTest(test_node.ReadWriteTest):
    """Reading, saving and locking nodes (two conductors racing for one
    lock too), on PostgreSQL."""

    database = base.PostgreSQLDatabase


class TransactionCostOnPostgreSQLTest(test_deployments.TransactionCostTest):
    """One write per transition on PostgreSQL too (UPDATE ... RETURNING)."""

    database = base.PostgreSQLDatabase


class NodeTraitsOnPostgreSQLTest(test_node.TraitsTest):
    """Node traits: one-query reads (string_agg), cascades, all-or-nothing
    writes, on PostgreSQL."""

    database = base.PostgreSQLDatabase


class DeployTemplatesOnPostgreSQLTest(
        test_deploy_template.DeployTemplateTest):
    """Template queries (joins, keyset pages, unique names, cascades) on
    PostgreSQL."""

    database = base.PostgreSQLDatabase


class BIOSSettingsOnPostgreSQLTest(test_bios_setting.BIOSSettingTest):
    """The BIOS settings cache: replacements in one transaction, changed
    rows only, cascades with the node, on PostgreSQL."""

    database = base.PostgreSQLDatabase


class ConductorsOnPostgreSQLTest(test_conductor.ConductorTest):
    """Conductors and the hardware they registered: replaced in one
    transaction, read live or by page, on PostgreSQL."""

    database = base.PostgreSQLDatabase


class PortsOnPostgreSQLTest(test_node_resources.PortTest):
    """Ports through the API on PostgreSQL: the MAC's uniqueness, paging
    and the node's foreign key."""

    database = base.PostgreSQLDatabase


class VifsOnPostgreSQLTest(test_node_resources.VifTest):
    """VIFs recorded by compare-and-set on a JSON column, on PostgreSQL."""

    database = base.PostgreSQLDatabase


class NodeDeletionOnPostgreSQLTest(test_node_resources.NodeDeletionTest):
    """A node's records go with it (ON DELETE CASCADE) on PostgreSQL."""

    database = base.PostgreSQLDatabase


class ChassisOnPostgreSQLTest(test_node_resources.ChassisDeletionRaceMixin,
                              test_node_resources.ChassisTest):
    """A chassis in use is refused deletion on PostgreSQL too."""

    database = base.PostgreSQLDatabase


class AllocationsOnPostgreSQLTest(test_allocation.AllocationTest):
    """A node given to one allocation at most, released with it, names
    unique: the duplicate errors of PostgreSQL read right."""

    database = base.PostgreSQLDatabase


class StepHistoryOnPostgreSQLTest(test_step_history.StepHistoryTest):
    """Step history on PostgreSQL: the bound read and trimmed through a derived
    table, cascades with the node."""

    database = base.PostgreSQLDatabase


class ClosedConnectionsOnPostgreSQLTest(base.TestCase):
    """A connection the server closes under a statement (a restart, a
    failover) fails that statement with a lost connection, which a node
    write retries on a new connection: a conductor's flow goes on."""

    database = base.PostgreSQLDatabase

    def test_a_node_write_whose_connection_is_closed_is_retried(self):
        node = self.create_node(name='n1')
        admin = sa.create_engine(self.db.url, poolclass=sa.pool.NullPool)
        self.addCleanup(admin.dispose)
        closed = []

        def close_under_the_update(conn, cursor, statement, *args):
            if statement.startswith('UPDATE nodes') and not closed:
                pid = conn.connection.dbapi_connection.get_backend_pid()
                with admin.connect() as other:
                    closed.append(other.execute(sa.text(
                        'SELECT pg_terminate_backend(:pid)'),
                        {'pid': pid}).scalar())

        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        close_under_the_update)
        self.addCleanup(sa.event.remove, sa.engine.Engine,
                        'before_cursor_execute', close_under_the_update)
        node.description = 'written after'
        node.save()
        self.assertEqual([True], closed)
        self.assertEqual('written after',
                         objects.Node.get(self.context, 'n1').description)
