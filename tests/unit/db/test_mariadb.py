"""The same behaviour on MariaDB (PyMySQL), the distributed mode's other
database, and what it takes there (see ironic_steps.db.sqlalchemy.mysql).

Not re-run here: the NUL character tests, since the API refuses a NUL
before any database sees it (and MariaDB, unlike PostgreSQL, could store
one).
"""

import sqlalchemy as sa

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import models
from ironic_steps import objects
from tests import base
from tests.unit.api import test_node_resources
from tests.unit.conductor import test_deployments
from tests.unit.db import test_migrations
from tests.unit.objects import test_allocation
from tests.unit.objects import test_bios_setting
from tests.unit.objects import test_deploy_template
from tests.unit.objects import test_node
from tests.unit.objects import test_step_history


class MigrationsOnMariaDBTest(test_migrations.MigratedSchemaTest):
    """The migrations build the models' schema on MariaDB, with the
    options that make it store what the other databases store."""

    # The migrations themselves: their result, not a copy of it.
    database = base.MigratedMariaDBDatabase

    def query(self, sql):
        with sqlalchemy_api.get_engine().connect() as connection:
            return connection.execute(sa.text(sql)).all()

    def test_every_table_is_innodb_in_utf8mb4_with_a_binary_collation(self):
        tables = self.query(
            "SELECT table_name, engine, table_collation "
            "FROM information_schema.tables WHERE table_schema = DATABASE() "
            "AND table_name != 'alembic_version'")
        self.assertEqual(sorted(models.Base.metadata.tables),
                         sorted(name for name, _, _ in tables))
        self.assertEqual({('InnoDB', 'utf8mb4_bin')},
                         {(engine, collation) for _, engine, collation
                          in tables})
        # Columns added after their table was created too.
        self.assertEqual([('utf8mb4_bin',)], self.query(
            "SELECT DISTINCT collation_name FROM information_schema.columns "
            "WHERE table_schema = DATABASE() AND collation_name IS NOT NULL "
            "AND table_name != 'alembic_version'"))

    def test_every_time_keeps_microseconds(self):
        self.assertEqual([(6,)], self.query(
            "SELECT DISTINCT datetime_precision "
            "FROM information_schema.columns "
            "WHERE table_schema = DATABASE() AND data_type = 'datetime'"))


class CopiedSchemaOnMariaDBTest(MigrationsOnMariaDBTest):
    """The copy of the migrated database every other test here gets (see
    tests.base) has the migrations' schema too."""

    database = base.MariaDBDatabase


class LockOnMariaDBTest(base.TestCase):
    """MariaDB cannot return the row an UPDATE locked: the lock reads it
    back in its own transaction."""

    database = base.MariaDBDatabase

    def test_the_locked_node_is_read_from_the_database_not_a_replica(self):
        # Given reads that go to a replica far behind (it has no nodes)
        node = self.create_node()
        replica = self.useFixture(base.MariaDBDatabase())
        sqlalchemy_api.configure(connection=self.db.url,
                                 slave_connection=replica.url)
        self.assertRaises(exception.NodeNotFound, objects.Node.get,
                          self.context, node.uuid)
        # Then the lock's winner gets the node it locked, its loser the
        # winner's name
        locked = objects.Node.reserve(self.context, 'conductor-a', node.uuid)
        self.assertEqual((node.uuid, 'conductor-a'),
                         (locked.uuid, locked.reservation))
        exc = self.assertRaises(exception.NodeLocked, objects.Node.reserve,
                                self.context, 'conductor-b', node.id)
        self.assertIn('conductor-a', str(exc))


class DeployOnMariaDBTest(test_deployments.DeployWithStepsTest):
    """Every deploy-flow test of the SQLite suite, on MariaDB."""

    database = base.MariaDBDatabase


class NodeReadWriteOnMariaDBTest(test_node.ReadWriteTest):
    """Reading, saving and locking nodes (two conductors racing for one
    lock too), on MariaDB: names in any case, times to the microsecond,
    text beyond 64 KiB and beyond the Basic Multilingual Plane."""

    database = base.MariaDBDatabase


class NodeListOnMariaDBTest(test_node.ListTest):
    """Filters, sorts (NULLs last) and keyset pages, on MariaDB."""

    database = base.MariaDBDatabase


class TransactionCostOnMariaDBTest(test_deployments.TransactionCostTest):
    """As many node writes as elsewhere: without UPDATE ... RETURNING a lock
    adds a read, not a write."""

    database = base.MariaDBDatabase


class NodeTraitsOnMariaDBTest(test_node.TraitsTest):
    """Node traits on MariaDB: one-query reads (GROUP_CONCAT, whole),
    parallel replacements without deadlocks."""

    database = base.MariaDBDatabase


class DeployTemplatesOnMariaDBTest(test_deploy_template.DeployTemplateTest):
    """Template queries (joins, keyset pages, unique names, cascades) on
    MariaDB."""

    database = base.MariaDBDatabase


class BIOSSettingsOnMariaDBTest(test_bios_setting.BIOSSettingTest):
    """The BIOS settings cache on MariaDB: names found exactly, case
    included."""

    database = base.MariaDBDatabase


class NodeResourcesOnMariaDBTest(test_node_resources.NodeDeletionTest):
    """A node's records go with it (ON DELETE CASCADE) on MariaDB, whose
    foreign keys on UUID columns need matching collations."""

    database = base.MariaDBDatabase


class VifsOnMariaDBTest(test_node_resources.VifTest):
    """VIFs recorded by compare-and-set on a LONGTEXT column, on MariaDB."""

    database = base.MariaDBDatabase


class ChassisOnMariaDBTest(test_node_resources.ChassisDeletionRaceMixin,
                           test_node_resources.ChassisTest):
    """A chassis in use is refused deletion on MariaDB too."""

    database = base.MariaDBDatabase


class AllocationsOnMariaDBTest(test_allocation.AllocationTest):
    """A node given to one allocation at most, released with it, names
    unique: the duplicate errors of MariaDB read right."""

    database = base.MariaDBDatabase


class StepHistoryOnMariaDBTest(test_step_history.StepHistoryTest):
    """Step history on MariaDB: the bound read and trimmed through a derived
    table, cascades with the node."""

    database = base.MariaDBDatabase
