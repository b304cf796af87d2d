"""The alembic migrations, walked from an empty SQLite file; the schema
they build, on the test's database."""

import contextlib
import importlib
import importlib.machinery
import os
import sqlite3
import sys
import types
from unittest import mock

import fixtures
import sqlalchemy as sa
from alembic import autogenerate
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from oslo_db import exception as db_exc

from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import models
from tests import base

INITIAL = '2c1f0b4d9e01'
ADD_DEPLOY_STEP = '7b3e5d2a8f10'
CREATE_CONDUCTORS = '9d4c1e7a2b35'
CREATE_TRAITS_AND_TEMPLATES = '4f2a9c8e1b63'
ADD_NODE_API_FIELDS = '4e8a6c2d1f93'
CREATE_BIOS_SETTINGS = 'ebbaf9649dc9'
CREATE_CONDUCTOR_HARDWARE_INTERFACES = 'f8cd5fbcbc5e'
CREATE_NODE_RESOURCES = '3a7d5e9c2b14'
CREATE_ALLOCATIONS = '3a7d2e9c5b14'
ADD_DEPLOY_TEMPLATE_STEP_TIMEOUT = 'a5c7e9b13d20'
CREATE_NODE_STEP_HISTORY = '3a7d9e2c5b81'
ADD_NODE_BOOT_MODE = 'c4e1a7d5b920'
ADD_BIOS_REGISTRY = '7e7ad8d4ad75'
CREATE_NODE_INVENTORY = '5c0bd2215f21'
ADD_NODE_SHARD_AND_PARENT = '80005d9f58ab'
ADD_NODE_SERVICE_STEP = 'b8e2f4a61c07'
CREATE_RUNBOOKS = '9d4b6e1f2a37'
ADD_NODE_FIRMWARE_INTERFACE = '93d1e23ed9ff'
CREATE_FIRMWARE_INFORMATION = '814b3ae7aacd'
ADD_PORT_NAME = 'b1d4e7a9c288'
ADD_PORT_AND_PORTGROUP_FIELDS = 'd2e6a8c4f197'
CREATE_INSPECTION_RULES = 'e7c3a9b52d14'
ADD_NODE_DISABLE_POWER_OFF = 'e7a3c5f91b2d'
ADD_NODE_INSTANCE_NAME = 'a4c9e1f7b358'
ADD_NODE_HEALTH = 'c7d2f4a9e613'
#: Every revision, oldest first: one line, no branch.
REVISIONS = [INITIAL, ADD_DEPLOY_STEP, CREATE_CONDUCTORS,
             CREATE_TRAITS_AND_TEMPLATES, ADD_NODE_API_FIELDS,
             CREATE_BIOS_SETTINGS, CREATE_CONDUCTOR_HARDWARE_INTERFACES,
             CREATE_NODE_RESOURCES, CREATE_ALLOCATIONS,
             ADD_DEPLOY_TEMPLATE_STEP_TIMEOUT, CREATE_NODE_STEP_HISTORY,
             ADD_NODE_BOOT_MODE, ADD_BIOS_REGISTRY, CREATE_NODE_INVENTORY,
             ADD_NODE_SHARD_AND_PARENT, ADD_NODE_SERVICE_STEP,
             CREATE_RUNBOOKS, ADD_NODE_FIRMWARE_INTERFACE,
             CREATE_FIRMWARE_INFORMATION, ADD_PORT_NAME,
             ADD_PORT_AND_PORTGROUP_FIELDS, CREATE_INSPECTION_RULES,
             ADD_NODE_DISABLE_POWER_OFF, ADD_NODE_INSTANCE_NAME,
             ADD_NODE_HEALTH]
_TRAITS_AND_TEMPLATES = {'node_traits', 'deploy_templates',
                         'deploy_template_steps'}


def insert_node(connection, uuid, driver, provision_state):
    """A node row with only the columns every revision has."""
    connection.execute(sa.text(
        "INSERT INTO nodes (uuid, driver, provision_state, maintenance) "
        "VALUES (:uuid, :driver, :state, 0)"),
        {'uuid': uuid, 'driver': driver, 'state': provision_state})


def head_revision():
    """The newest revision, as alembic itself reads the scripts."""
    return alembic_script.ScriptDirectory(
        migration.migrations_dir()).get_current_head()


def _compare_server_default(context, inspected_column, metadata_column,
                            inspected_default, metadata_default,
                            rendered_metadata_default):
    """Whether two server defaults differ; None: let alembic compare.

    MySQL keeps booleans as TINYINT: a default of false reads back as 0.
    """
    if (context.dialect.name == 'mysql'
            and isinstance(metadata_column.type, sa.Boolean)):
        as_stored = {'false': '0', 'true': '1'}.get(
            rendered_metadata_default, rendered_metadata_default)
        return inspected_default != as_stored
    return None


class MigrationWalkTest(base.TestCase):

    def setUp(self):
        super().setUp()
        directory = self.useFixture(fixtures.TempDir()).path
        self.path = os.path.join(directory, 'empty.sqlite')
        sqlalchemy_api.configure(connection='sqlite:///%s' % self.path)
        self.addCleanup(sqlalchemy_api.configure)

    def a_node_at(self, revision, uuid, driver, provision_state):
        """The database at ``revision`` with one node; its engine."""
        migration.upgrade(revision)
        engine = sqlalchemy_api.get_engine()
        with engine.begin() as connection:
            insert_node(connection, uuid, driver, provision_state)
        return engine

    def node_columns(self):
        inspector = sa.inspect(sqlalchemy_api.get_engine())
        return {column['name'] for column in inspector.get_columns('nodes')}

    def test_walk_from_empty_to_head(self):
        head = head_revision()
        # Given an empty database, every revision is pending, oldest first
        self.assertIsNone(migration.version())
        revisions = migration.pending()
        self.assertEqual([INITIAL, ADD_DEPLOY_STEP], revisions[:2])
        self.assertEqual(head, revisions[-1])
        # When it is brought to the first revision
        migration.upgrade(INITIAL)
        # Then nodes exists, as it was before deploy steps
        self.assertEqual(INITIAL, migration.version())
        self.assertEqual(revisions[1:], migration.pending())
        columns = self.node_columns()
        self.assertIn('clean_step', columns)
        self.assertNotIn('deploy_step', columns)
        # When it is brought to head, deploy_step has been added
        migration.upgrade()
        self.assertIn('deploy_step', self.node_columns())
        self.assertEqual(head, migration.version())
        self.assertEqual([], migration.pending())

    def test_each_revision_applies_on_its_own(self):
        revisions = migration.pending()
        for applied, revision in enumerate(revisions, start=1):
            migration.upgrade(revision)
            self.assertEqual(revision, migration.version())
            self.assertEqual(revisions[applied:], migration.pending())
            if revision == ADD_DEPLOY_STEP:
                self.assertIn('deploy_step', self.node_columns())

    def test_traits_and_templates_tables_come_with_their_revision(self):
        migration.upgrade(CREATE_CONDUCTORS)
        tables = set(sa.inspect(sqlalchemy_api.get_engine()).get_table_names())
        self.assertEqual(set(), tables & _TRAITS_AND_TEMPLATES)
        migration.upgrade(CREATE_TRAITS_AND_TEMPLATES)
        inspector = sa.inspect(sqlalchemy_api.get_engine())
        self.assertLessEqual(_TRAITS_AND_TEMPLATES,
                             set(inspector.get_table_names()))
        # Rows of a node or template go with it.
        for table, parent in (('node_traits', 'nodes'),
                              ('deploy_template_steps', 'deploy_templates')):
            [foreign_key] = inspector.get_foreign_keys(table)
            self.assertEqual(parent, foreign_key['referred_table'])
            self.assertEqual('CASCADE', foreign_key['options']['ondelete'])

    def test_bios_settings_come_with_their_revision_keyed_by_node_and_name(
            self):
        migration.upgrade(ADD_NODE_API_FIELDS)
        self.assertNotIn('bios_settings', sa.inspect(
            sqlalchemy_api.get_engine()).get_table_names())
        migration.upgrade(CREATE_BIOS_SETTINGS)
        inspector = sa.inspect(sqlalchemy_api.get_engine())
        self.assertEqual(['node_id', 'name'], inspector.get_pk_constraint(
            'bios_settings')['constrained_columns'])
        [foreign_key] = inspector.get_foreign_keys('bios_settings')
        self.assertEqual('nodes', foreign_key['referred_table'])
        self.assertEqual('CASCADE', foreign_key['options']['ondelete'])
        value, = [column for column in inspector.get_columns('bios_settings')
                  if column['name'] == 'value']
        self.assertTrue(value['nullable'])

    def test_conductor_hardware_interfaces_come_with_their_revision(self):
        # Given a database at the previous head with a conductor of 0.4
        migration.upgrade(CREATE_BIOS_SETTINGS)
        engine = sqlalchemy_api.get_engine()
        self.assertNotIn('conductor_hardware_interfaces',
                         sa.inspect(engine).get_table_names())
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO conductors (hostname, online) "
                "VALUES ('old-conductor', 1)"))
        # When the revision runs
        migration.upgrade(CREATE_CONDUCTOR_HARDWARE_INTERFACES)
        # Then the table is keyed by conductor, type, interface and name,
        # its rows go with their conductor, and the old conductor has
        # none (it registered nothing)
        inspector = sa.inspect(engine)
        self.assertEqual(
            ['conductor_id', 'hardware_type', 'interface_type',
             'interface_name'],
            inspector.get_pk_constraint(
                'conductor_hardware_interfaces')['constrained_columns'])
        [foreign_key] = inspector.get_foreign_keys(
            'conductor_hardware_interfaces')
        self.assertEqual('conductors', foreign_key['referred_table'])
        self.assertEqual('CASCADE', foreign_key['options']['ondelete'])
        with engine.connect() as connection:
            self.assertEqual(0, connection.execute(sa.text(
                'SELECT COUNT(*) FROM conductor_hardware_interfaces')
            ).scalar_one())

    def test_the_revisions_are_one_line(self):
        self.assertEqual(REVISIONS, migration.pending())
        self.assertEqual(REVISIONS[-1], head_revision())

    def test_existing_nodes_get_the_node_api_fields_and_no_op_interfaces(
            self):
        migration.upgrade(CREATE_TRAITS_AND_TEMPLATES)
        engine = sqlalchemy_api.get_engine()
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO nodes (uuid, driver, provision_state, "
                "maintenance) VALUES ('9b9c2e6e-0d2c-4d0e-9a53-"
                "3c2f6a1f0e11', 'fake-hardware', 'available', 0)"))
            connection.execute(sa.text(
                "INSERT INTO node_traits (node_id, trait) SELECT id, "
                "'CUSTOM_KEPT' FROM nodes"))
        migration.upgrade(ADD_NODE_API_FIELDS)
        with engine.connect() as connection:
            row = connection.execute(sa.text(
                'SELECT console_interface, inspect_interface, '
                'network_interface, rescue_interface, storage_interface, '
                'protected, retired, console_enabled, conductor_group '
                'FROM nodes')).one()
            traits = connection.execute(sa.text(
                'SELECT trait FROM node_traits')).scalars().all()
        self.assertEqual(('no-console', 'no-inspect', 'noop', 'no-rescue',
                          'noop', False, False, False, ''), tuple(row))
        self.assertEqual(['CUSTOM_KEPT'], traits)

    def test_a_nodes_records_go_with_it_and_its_traits_survive_the_revision(
            self):
        # Given a node with a trait at the previous head
        migration.upgrade(CREATE_CONDUCTOR_HARDWARE_INTERFACES)
        engine = sqlalchemy_api.get_engine()
        uuid = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO nodes (uuid, driver, provision_state, "
                "maintenance) VALUES (:uuid, 'fake-hardware', 'enroll', 0)"),
                {'uuid': uuid})
            connection.execute(sa.text(
                "INSERT INTO node_traits (node_id, trait) "
                "SELECT id, 'CUSTOM_GPU' FROM nodes"))
        # When the revision runs
        migration.upgrade(CREATE_NODE_RESOURCES)
        # Then the node keeps its trait and is in no chassis, and a port of
        # the node goes with it
        with engine.begin() as connection:
            self.assertEqual(1, connection.execute(sa.text(
                'SELECT COUNT(*) FROM node_traits')).scalar_one())
            self.assertIsNone(connection.execute(sa.text(
                'SELECT chassis_uuid FROM nodes')).scalar_one())
            connection.execute(sa.text(
                "INSERT INTO ports (uuid, address, node_uuid, pxe_enabled, "
                "is_smartnic) VALUES ('8a4e3c8e-7d2b-4b8a-9c55-2f0b9a3d9e21',"
                " '52:54:00:00:00:01', :uuid, 1, 0)"), {'uuid': uuid})
            connection.execute(sa.text('DELETE FROM nodes'))
            self.assertEqual(0, connection.execute(sa.text(
                'SELECT COUNT(*) FROM ports')).scalar_one())

    def test_existing_template_steps_keep_their_drivers_timeout(self):
        # Given a template step written before the column
        migration.upgrade(CREATE_CONDUCTOR_HARDWARE_INTERFACES)
        engine = sqlalchemy_api.get_engine()
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO deploy_templates (uuid, name) VALUES "
                "('5d2f2a3e-6a57-4b8e-9d1e-0c2b7f6a9e10', 'CUSTOM_OLD')"))
            connection.execute(sa.text(
                "INSERT INTO deploy_template_steps (deploy_template_id, "
                "interface, step, args, priority) SELECT id, 'raid', "
                "'apply_configuration', '{}', 10 FROM deploy_templates"))
        # When the revision runs, the step has no timeout of its own
        migration.upgrade(ADD_DEPLOY_TEMPLATE_STEP_TIMEOUT)
        with engine.connect() as connection:
            self.assertIsNone(connection.execute(sa.text(
                'SELECT timeout FROM deploy_template_steps')).scalar_one())

    def test_existing_bios_settings_survive_with_unknown_registry_facts(
            self):
        # Given a node with a cached BIOS setting at the previous head
        migration.upgrade(ADD_NODE_BOOT_MODE)
        engine = sqlalchemy_api.get_engine()
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO nodes (uuid, driver, provision_state, "
                "maintenance) VALUES ('6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c',"
                " 'fake-hardware', 'manageable', 0)"))
            connection.execute(sa.text(
                "INSERT INTO bios_settings (node_id, name, value) "
                "SELECT id, 'BootMode', 'Uefi' FROM nodes"))
        # When the revision runs
        migration.upgrade(ADD_BIOS_REGISTRY)
        # Then the setting keeps its value and every registry fact is
        # unknown
        facts = ('attribute_type', 'allowable_values', 'lower_bound',
                 'max_length', 'min_length', 'read_only', 'reset_required',
                 'unique', 'upper_bound')
        with engine.connect() as connection:
            row = connection.execute(sa.select(
                models.BIOSSetting.__table__)).one()._mapping
        self.assertEqual(('BootMode', 'Uefi'), (row['name'], row['value']))
        self.assertEqual(dict.fromkeys(facts), {f: row[f] for f in facts})

    def test_existing_nodes_are_in_no_shard_have_no_parent_nor_inventory(
            self):
        # Given a node at the release before (0.10)
        migration.upgrade(ADD_BIOS_REGISTRY)
        engine = sqlalchemy_api.get_engine()
        with engine.begin() as connection:
            # (The model's columns with defaults all exist at 0.10.)
            connection.execute(sa.insert(models.Node.__table__).values(
                uuid='2a6e3d1c-5b4f-4e7a-9c8d-0f1e2d3c4b5a',
                driver='fake-hardware', provision_state='enroll'))
        # When the revisions of 0.11 run
        migration.upgrade(ADD_NODE_SHARD_AND_PARENT)
        # Then it has no shard, parent or inventory; an inventory, once
        # recorded, goes with its node
        with engine.begin() as connection:
            self.assertEqual((None, None), tuple(connection.execute(sa.text(
                'SELECT shard, parent_node FROM nodes')).one()))
            self.assertEqual(0, connection.execute(sa.text(
                'SELECT COUNT(*) FROM node_inventory')).scalar_one())
            connection.execute(sa.text(
                "INSERT INTO node_inventory (node_id, inventory_data, "
                "plugin_data) SELECT id, '{}', '{}' FROM nodes"))
            connection.execute(sa.text('DELETE FROM nodes'))
            self.assertEqual(0, connection.execute(sa.text(
                'SELECT COUNT(*) FROM node_inventory')).scalar_one())
        inspector = sa.inspect(engine)
        self.assertEqual({'nodes_shard_idx', 'nodes_parent_node_idx'},
                         {index['name'] for index in inspector.get_indexes(
                             'nodes')} & {'nodes_shard_idx',
                                          'nodes_parent_node_idx'})

    def test_existing_nodes_have_no_service_step(self):
        # Given a deployed node of release 0.11
        migration.upgrade(ADD_NODE_SHARD_AND_PARENT)
        engine = sqlalchemy_api.get_engine()
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO nodes (uuid, driver, provision_state, "
                "maintenance, deploy_step) VALUES ('5d0c6f2e-8a1b-4c3d-"
                "9e7f-1a2b3c4d5e6f', 'fake-hardware', 'active', 0, '{}')"))
        # When the revision of 0.12 runs
        migration.upgrade(ADD_NODE_SERVICE_STEP)
        # Then it runs no service step and keeps what it had
        with engine.connect() as connection:
            self.assertEqual(('active', None, '{}'), tuple(connection.execute(
                sa.text('SELECT provision_state, service_step, deploy_step '
                        'FROM nodes')).one()))

    def test_existing_nodes_get_no_firmware_and_components_go_with_them(
            self):
        # Given a node at the release before (0.11)
        engine = self.a_node_at(ADD_NODE_SHARD_AND_PARENT,
                                '3c7e4d2a-6b5f-4f8a-9d0e-1f2a3b4c5d6e',
                                'redfish', 'manageable')
        # When the revisions of 0.12 run
        migration.upgrade(CREATE_FIRMWARE_INFORMATION)
        # Then its firmware is not managed and it has no components; a
        # component, once read, goes with its node, and is one per name
        with engine.begin() as connection:
            self.assertEqual('no-firmware', connection.execute(sa.text(
                'SELECT firmware_interface FROM nodes')).scalar_one())
            self.assertEqual(0, connection.execute(sa.text(
                'SELECT COUNT(*) FROM firmware_information')).scalar_one())
            connection.execute(sa.text(
                "INSERT INTO firmware_information (node_id, component, "
                "initial_version) SELECT id, 'bios', '1.0' FROM nodes"))
        with engine.begin() as connection:
            self.assertRaises(db_exc.DBDuplicateEntry, connection.execute,
                              sa.text(
                                  "INSERT INTO firmware_information "
                                  "(node_id, component, initial_version) "
                                  "SELECT id, 'bios', '2.0' FROM nodes"))
        with engine.begin() as connection:
            connection.execute(sa.text('DELETE FROM nodes'))
            self.assertEqual(0, connection.execute(sa.text(
                'SELECT COUNT(*) FROM firmware_information')).scalar_one())

    def _a_port_in_a_group_at_0_11(self):
        """A node with a port (extra: a blue cable) in a portgroup, written
        with release 0.11's columns only; (node, group) UUIDs."""
        node = '2a6e3d1c-5b4f-4e7a-9c8d-0f1e2d3c4b5a'
        group = '6b0d2f4e-1c3a-4b5d-8e7f-9a0b1c2d3e4f'
        with sqlalchemy_api.get_engine().begin() as connection:
            # (The node model's columns with defaults all exist at 0.11;
            # the port's and portgroup's of later revisions do not.)
            connection.execute(sa.insert(models.Node.__table__).values(
                uuid=node, driver='fake-hardware', provision_state='enroll'))
            connection.execute(sa.text(
                "INSERT INTO portgroups (uuid, node_uuid, "
                "standalone_ports_supported) VALUES (:uuid, :node, 1)"),
                {'uuid': group, 'node': node})
            connection.execute(sa.text(
                "INSERT INTO ports (uuid, address, node_uuid, "
                "portgroup_uuid, pxe_enabled, is_smartnic, extra) VALUES "
                "('8c1e3a5b-7d9f-4a2b-b4c6-d8e0f2a4b6c8', "
                "'52:54:00:12:34:56', :node, :group, 1, 0, "
                "'{\"cable\": \"blue\"}')"), {'node': node, 'group': group})
        return node, group

    def test_existing_ports_keep_everything_and_get_no_name(self):
        # Given a node with a port in a portgroup at release 0.11
        migration.upgrade(ADD_NODE_SHARD_AND_PARENT)
        node, group = self._a_port_in_a_group_at_0_11()
        engine = sqlalchemy_api.get_engine()
        # When the port name revision runs
        migration.upgrade(ADD_PORT_NAME)
        # Then the port is as it was, without a name, still in its group
        # and still going with its node; a name is unique
        with engine.begin() as connection:
            self.assertEqual(
                (None, '52:54:00:12:34:56', group, '{"cable": "blue"}'),
                tuple(connection.execute(sa.text(
                    'SELECT name, address, portgroup_uuid, extra '
                    'FROM ports')).one()))
            connection.execute(sa.text("UPDATE ports SET name = 'eth0'"))
        with engine.begin() as connection:
            self.assertRaises(
                db_exc.DBDuplicateEntry, connection.execute, sa.text(
                    "INSERT INTO ports (uuid, address, node_uuid, name, "
                    "pxe_enabled, is_smartnic) VALUES ('9d2f4b6c-8e0a-4b3c-"
                    "a5d7-e9f1a3b5c7d9', '52:54:00:12:34:57', :node, 'eth0', "
                    "1, 0)"), {'node': node})
        with engine.begin() as connection:
            connection.execute(sa.text('DELETE FROM nodes'))
            self.assertEqual(0, connection.execute(sa.text(
                'SELECT COUNT(*) FROM ports')).scalar_one())

    def test_existing_ports_and_groups_get_ironics_defaults(self):
        # Given a named port in a portgroup before the revision
        migration.upgrade(ADD_NODE_SHARD_AND_PARENT)
        self._a_port_in_a_group_at_0_11()
        migration.upgrade(ADD_PORT_NAME)
        engine = sqlalchemy_api.get_engine()
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE ports SET name = 'eth0'"))
        # When the revision runs
        migration.upgrade(ADD_PORT_AND_PORTGROUP_FIELDS)
        # Then the port is available for dynamic portgroups, the group is
        # not one, and the rest is unset
        with engine.begin() as connection:
            self.assertEqual((None, None, None, 1, 'eth0'), tuple(
                connection.execute(sa.text(
                    'SELECT description, vendor, category, '
                    'available_for_dynamic_portgroup, name FROM ports'))
                .one()))
            self.assertEqual((None, None, 0), tuple(connection.execute(
                sa.text('SELECT physical_network, category, '
                        'dynamic_portgroup FROM portgroups')).one()))

    def test_existing_nodes_may_be_powered_off(self):
        # Given a node of release 0.12
        engine = self.a_node_at(ADD_PORT_AND_PORTGROUP_FIELDS,
                                '5d1e0c3b-7a2f-4e6d-9b8c-0a1f2e3d4c5b',
                                'redfish', 'active')
        # When the revision of 0.13 runs
        migration.upgrade(ADD_NODE_DISABLE_POWER_OFF)
        # Then its power may be turned off, as before; and a node written
        # by a 0.12 conductor, which knows no such column, gets the same
        with engine.begin() as connection:
            insert_node(connection, '6e2f1d4c-8b3a-4f7e-8c9d-1b2a3f4e5d6c',
                        'redfish', 'enroll')
            self.assertEqual([0, 0], list(connection.execute(sa.text(
                'SELECT disable_power_off FROM nodes')).scalars()))

    def test_existing_nodes_have_no_instance_name_nor_health(self):
        engine = self.a_node_at(ADD_NODE_DISABLE_POWER_OFF,
                                '7f3a2e5d-9c4b-4a8f-8d0e-2c3b4a5f6e7d',
                                'redfish', 'active')
        migration.upgrade(ADD_NODE_HEALTH)
        with engine.begin() as connection:
            self.assertEqual((None, None), tuple(connection.execute(sa.text(
                'SELECT instance_name, health FROM nodes')).one()))

    def test_upgrading_at_head_is_a_no_op(self):
        migration.upgrade()
        columns = self.node_columns()
        migration.upgrade()
        self.assertEqual(head_revision(), migration.version())
        self.assertEqual(columns, self.node_columns())

    def test_the_database_uses_write_ahead_logging(self):
        migration.upgrade()
        with contextlib.closing(sqlite3.connect(self.path)) as connection:
            self.assertEqual('wal', connection.execute(
                'PRAGMA journal_mode').fetchone()[0])


class MigratedSchemaTest(base.TestCase):
    """The database of the test's ``database`` fixture, which the
    migrations built: re-run on every database (see test_postgresql)."""

    def test_every_revision_is_applied(self):
        self.assertEqual([], migration.pending())
        self.assertEqual(head_revision(), migration.version())

    def test_the_migrated_schema_matches_the_models(self):
        with sqlalchemy_api.get_engine().connect() as connection:
            context = alembic_migration.MigrationContext.configure(
                connection, opts={
                    'compare_type': True,
                    'compare_server_default': _compare_server_default})
            diff = autogenerate.compare_metadata(context,
                                                 models.Base.metadata)
        self.assertEqual([], diff)


class MigrationsDirTest(base.TestCase):

    def test_the_scripts_are_found_through_the_import_system(self):
        # From any working directory: not a path relative to the sources.
        elsewhere = self.useFixture(fixtures.TempDir()).path
        cwd = os.getcwd()
        os.chdir(elsewhere)
        self.addCleanup(os.chdir, cwd)
        package = importlib.import_module('alembic_migrations')
        found = migration.migrations_dir()
        self.assertEqual(os.path.dirname(package.__file__), found)
        self.assertTrue(os.path.isabs(found))
        self.assertTrue(os.path.isfile(os.path.join(found, 'env.py')))
        versions = os.listdir(os.path.join(found, 'versions'))
        self.assertIn('%s_create_nodes.py' % INITIAL, versions)
        self.assertIn('%s_add_node_deploy_step.py' % ADD_DEPLOY_STEP,
                      versions)

    def test_another_projects_alembic_migrations_is_refused(self):
        impostor = types.ModuleType('alembic_migrations')
        impostor.__spec__ = importlib.machinery.ModuleSpec(
            'alembic_migrations', None,
            origin='/elsewhere/alembic_migrations/__init__.py')
        patcher = mock.patch.dict(sys.modules,
                                  {'alembic_migrations': impostor})
        patcher.start()
        self.addCleanup(patcher.stop)
        exc = self.assertRaises(RuntimeError, migration.migrations_dir)
        self.assertIn('/elsewhere/alembic_migrations/__init__.py', str(exc))
        self.assertIn('is not the alembic_migrations package of '
                      'ironic-steps', str(exc))
