"""The hottest node statements on the embedded SQLite run straight on its
driver and do what SQLAlchemy would have done."""

import datetime
import sqlite3

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import direct_statements
from ironic_steps.db.sqlalchemy import node_statements
from ironic_steps import objects
from tests import base


class DirectStatementTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.dbapi = db_api.get_instance()

    def through_sqlalchemy(self, key, ident):
        with sqlalchemy_api._read_one() as connection:
            return connection.execute(
                node_statements.NODE_WITH_TRAITS_BY[key],
                {'ident': ident}).one()

    def test_a_node_read_directly_is_the_row_sqlalchemy_reads(self):
        node = self.create_node(
            name='rack-1', maintenance=True,
            driver_info={'redfish_address': 'https://127.0.0.1:8000'},
            instance_info={'image_source': 'http://127.0.0.1/image'},
            properties={'cpus': 4}, extra={'nested': {'list': [1, 2]}})
        self.dbapi.set_node_traits(node.id, ['CUSTOM_B', 'CUSTOM_A'])
        node.extra = {'changed': True}   # an updated_at too
        node.save()
        for key, ident in (('uuid', node.uuid), ('name', 'rack-1'),
                           ('id', node.id)):
            direct = getattr(self.dbapi, 'get_node_by_' + key)(
                ident, with_traits=True)
            expected = self.through_sqlalchemy(key, ident)
            self.assertEqual(expected._fields, direct._fields)
            self.assertEqual(tuple(expected), tuple(direct))
            # The same types, not only equal values (True == 1).
            self.assertEqual([type(value) for value in expected],
                             [type(value) for value in direct])
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], direct.traits)
        self.assertIs(True, direct.maintenance)
        self.assertIsInstance(direct.updated_at, datetime.datetime)
        self.assertEqual({'changed': True}, direct.extra)

    def test_without_traits_the_row_has_the_columns_only(self):
        node = self.create_node()
        row = self.dbapi.get_node_by_uuid(node.uuid)
        self.assertNotIn('traits', row._fields)
        self.assertEqual(node.id, row.id)

    def test_a_missing_node_is_not_found(self):
        self.assertRaises(exception.NodeNotFound,
                          self.dbapi.get_node_by_uuid,
                          '1be26c0b-03f2-4d2e-ae87-c02d7f33c123', True)

    def test_statement_listeners_hear_the_read_and_may_refuse_it(self):
        node = self.create_node()
        recorded = self.useFixture(base.SQLStatements())
        objects.Node.get_row(self.context, node.uuid, with_traits=True)
        self.assertEqual(['SELECT'], recorded.verbs())

        def refuse(conn, cursor, statement, *args):
            raise RuntimeError('refused: ' + statement.split()[0])

        with base.StatementHook(refuse):
            error = self.assertRaises(
                RuntimeError, objects.Node.get_row, self.context, node.uuid)
        self.assertEqual('refused: SELECT', str(error))

    def test_a_read_holds_no_snapshot_behind_it(self):
        # Each read is fetched to its end, so the connection goes back to
        # the pool without an open read: the next one sees later writes.
        node = self.create_node()
        for value in range(1, 4):
            node.extra = {'n': value}
            node.save()
            self.assertEqual({'n': value}, self.dbapi.get_node_by_uuid(
                node.uuid).extra)

    def test_binds_are_converted_as_sqlalchemy_would(self):
        node = self.create_node()
        created = self.dbapi.get_node_by_uuid(node.uuid).created_at
        read = direct_statements.DirectStatement(
            sa.select(node_statements.NODE_BY['id'].selected_columns.uuid)
            .where(sa.column('created_at') == sa.bindparam(
                'when', type_=sa.DateTime())))
        self.assertEqual(node.uuid, read.one_or_none(
            sqlalchemy_api.get_engine(), {'when': created}).uuid)

    def test_a_column_default_to_compute_is_refused(self):
        # updated_at's onupdate default: only SQLAlchemy computes it.
        update = direct_statements.DirectStatement(
            node_statements.UPDATE_NODE.values(extra=sa.bindparam('extra')))
        error = self.assertRaises(
            TypeError, update.rowcount, sqlalchemy_api.get_engine(),
            {'node_id': 1, 'extra': None})
        self.assertIn('default', str(error))

    def test_the_statements_follow_the_database_the_api_points_at(self):
        node = self.create_node()
        self.dbapi.get_node_by_uuid(node.uuid)
        first = direct_statements.idle_connections(
            sqlalchemy_api.get_engine())
        self.useFixture(base.Database())    # another, empty database
        self.assertRaises(exception.NodeNotFound,
                          self.dbapi.get_node_by_uuid, node.uuid)
        # The connections to the first database were closed, not leaked.
        for connection in first:
            self.assertRaises(sqlite3.ProgrammingError, connection.execute,
                              'SELECT 1')


class DirectWriteTest(base.TestCase):
    """Taking and dropping a lock, and lone node updates, on the driver."""

    def setUp(self):
        super().setUp()
        self.dbapi = db_api.get_instance()
        self.node = self.create_node()
        self.recorded = self.useFixture(base.SQLStatements())

    def test_a_lock_is_taken_once_and_dropped_by_its_holder_only(self):
        taken = self.dbapi.reserve_node('conductor-1', self.node.uuid)
        self.assertEqual('conductor-1', taken.reservation)
        # The row comes back converted, as SQLAlchemy's RETURNING would.
        self.assertEqual(self.node.uuid, taken.uuid)
        self.assertIsInstance(taken.created_at, datetime.datetime)
        self.assertIsInstance(taken.maintenance, bool)
        error = self.assertRaises(exception.NodeLocked,
                                  self.dbapi.reserve_node, 'conductor-2',
                                  self.node.id)
        self.assertIn('conductor-1', str(error))
        self.assertFalse(self.dbapi.release_node('conductor-2', self.node.id))
        self.assertTrue(self.dbapi.release_node('conductor-1', self.node.id))
        self.assertIsNone(self.dbapi.get_node_by_id(self.node.id).reservation)
        # Taking and dropping a lock is not a change of the node.
        self.assertEqual(self.node.updated_at, self.dbapi.get_node_by_id(
            self.node.id).updated_at)
        self.assertEqual(['UPDATE', 'UPDATE', 'UPDATE', 'UPDATE'],
                         [verb for verb in self.recorded.verbs()
                          if verb != 'SELECT'])

    def test_a_stale_lock_is_taken_over(self):
        self.dbapi.reserve_node('dead-conductor', self.node.id)
        taken = self.dbapi.reserve_node('conductor-2', self.node.id,
                                        replacing='dead-conductor')
        self.assertEqual('conductor-2', taken.reservation)

    def test_a_missing_node_cannot_be_locked(self):
        self.assertRaises(exception.NodeNotFound, self.dbapi.reserve_node,
                          'conductor-1', 9999)

    def test_a_lone_update_converts_what_it_writes_and_can_release(self):
        self.dbapi.reserve_node('conductor-1', self.node.id)
        written_at, released = self.dbapi.update_node(
            self.node.id, {'extra': {'deep': [1, {'a': None}]},
                           'maintenance': True,
                           'provision_updated_at': datetime.datetime(
                               2026, 12, 7, 8, 0, 0, 123456)},
            release='conductor-1')
        self.assertTrue(released)
        row = self.dbapi.get_node_by_id(self.node.id)
        self.assertEqual({'deep': [1, {'a': None}]}, row.extra)
        self.assertIs(True, row.maintenance)
        self.assertEqual(datetime.datetime(2026, 12, 7, 8, 0, 0, 123456),
                         row.provision_updated_at)
        self.assertEqual(written_at, row.updated_at)
        self.assertIsNone(row.reservation)

    def test_a_fenced_update_by_a_lost_holder_writes_nothing(self):
        self.dbapi.reserve_node('conductor-2', self.node.id)
        self.assertRaises(exception.NodeLockLost, self.dbapi.update_node,
                          self.node.id, {'extra': {'stale': True}},
                          fence='conductor-1')
        self.assertIsNone(self.dbapi.get_node_by_id(self.node.id).extra)

    def test_a_duplicate_name_is_still_named(self):
        # A unique column is written through SQLAlchemy, whose error
        # oslo.db translates.
        self.create_node(name='taken')
        self.assertRaises(exception.DuplicateName, self.dbapi.update_node,
                          self.node.id, {'name': 'taken'})

    def test_a_direct_write_is_durable_for_other_connections(self):
        self.dbapi.update_node(self.node.id, {'extra': {'seen': 'yes'}})
        with sqlalchemy_api._read_one() as connection:
            stored = connection.execute(node_statements.NODE_BY['id'],
                                        {'ident': self.node.id}).one()
        self.assertEqual({'seen': 'yes'}, stored.extra)

    def ended_step(self, step, **changes):
        started = datetime.datetime(2026, 12, 7, 8, 0, 0)
        return dict(dict(
            node_id=self.node.id, flow='deploy',
            flow_run='6f1b0b0e-8d1d-4b9a-9d5e-0c6a3cf1c001',
            interface='deploy', step=step, args={'secret': '******'},
            priority=50, started_at=started, finished_at=started,
            outcome='success'), **changes)

    def test_a_change_and_the_steps_it_ends_are_written_together(self):
        written_at, _released = self.dbapi.update_node(
            self.node.id, {'provision_state': 'deploying'},
            ended_steps=[self.ended_step('one'), self.ended_step('two')])
        self.assertEqual(['BEGIN', 'UPDATE', 'INSERT', 'COMMIT'],
                         self.traced(lambda: self.dbapi.update_node(
                             self.node.id, {'extra': {'n': 1}},
                             ended_steps=[self.ended_step('three')])))
        rows = self.dbapi.get_step_history(self.node.id, 10)
        self.assertEqual(['one', 'two', 'three'], [row.step for row in rows])
        self.assertEqual({'secret': '******'}, rows[0].args)
        self.assertEqual(written_at, rows[0].created_at)
        self.assertEqual('deploying',
                         self.dbapi.get_node_by_id(self.node.id)
                         .provision_state)

    def test_a_refused_step_takes_the_change_back_with_it(self):
        refused = self.ended_step('two', flow=None)   # NOT NULL
        self.assertRaises(db_exc.DBError, self.dbapi.update_node,
                          self.node.id, {'extra': {'lost': True}},
                          ended_steps=[self.ended_step('one'), refused])
        self.assertIsNone(self.dbapi.get_node_by_id(self.node.id).extra)
        self.assertEqual([], self.dbapi.get_step_history(self.node.id, 10))
        # The connection was left without a transaction open.
        self.dbapi.update_node(self.node.id, {'extra': {'next': True}})
        self.assertEqual({'next': True},
                         self.dbapi.get_node_by_id(self.node.id).extra)

    def traced(self, call):
        """What SQLite itself ran during ``call``, by verb."""
        seen = []
        connections = direct_statements.idle_connections(
            sqlalchemy_api.get_engine())
        for connection in connections:
            connection.set_trace_callback(seen.append)
        try:
            call()
        finally:
            for connection in connections:
                connection.set_trace_callback(None)
        return [statement.split()[0].upper() for statement in seen]
