"""The same behaviour on PostgreSQL, the distributed mode's database."""

import threading

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from tests import base
from tests.unit.api import test_strict_input
from tests.unit.conductor import test_deployments
from tests.unit.db import test_migrations
from tests.unit.objects import test_bios_setting
from tests.unit.objects import test_conductor
from tests.unit.objects import test_deploy_template
from tests.unit.objects import test_node


class MigrationsOnPostgreSQLTest(base.TestCase):

    database = base.PostgreSQLDatabase

    test_the_migrated_schema_matches_the_models = (
        test_migrations.MigrationWalkTest
        .test_the_migrated_schema_matches_the_models)

    def test_every_revision_is_applied(self):
        from ironic_steps.db import migration
        self.assertEqual([], migration.pending())
        self.assertEqual(test_migrations.head_revision(),
                         migration.version())


class LockingOnPostgreSQLTest(base.TestCase):

    database = base.PostgreSQLDatabase

    def test_of_two_racing_conductors_exactly_one_gets_the_lock(self):
        node = self.create_node()
        barrier = threading.Barrier(2)
        results = {}

        def reserve(host):
            barrier.wait()
            try:
                db_api.get_instance().reserve_node(host, node.id)
                results[host] = 'locked'
            except exception.NodeLocked as exc:
                results[host] = str(exc)

        threads = [threading.Thread(target=reserve, args=(host,))
                   for host in ('conductor-1', 'conductor-2')]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        winners = [host for host, result in results.items()
                   if result == 'locked']
        self.assertEqual(1, len(winners))
        loser = ({'conductor-1', 'conductor-2'} - set(winners)).pop()
        self.assertIn(winners[0], results[loser])


class NulCharacterOnPostgreSQLTest(test_strict_input.NulCharacterTest):
    """Refused before PostgreSQL, which cannot store it, sees it."""

    database = base.PostgreSQLDatabase


class DeployOnPostgreSQLTest(test_deployments.DeployWithStepsTest):
    """Every deploy-flow test of the SQLite suite, on PostgreSQL."""

    database = base.PostgreSQLDatabase


class NodeReadWriteOnPostgreSQLTest(test_node.ReadWriteTest):
    """Reading, saving and locking nodes, on PostgreSQL."""

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
