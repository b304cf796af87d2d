"""Node reads on the embedded SQLite run straight on its driver and give
what SQLAlchemy would have given."""

import datetime
import sqlite3

import sqlalchemy as sa

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import direct_reads
from ironic_steps import objects
from tests import base


class DirectReadTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.dbapi = db_api.get_instance()

    def through_sqlalchemy(self, key, ident):
        with sqlalchemy_api._read_one() as connection:
            return connection.execute(
                sqlalchemy_api._NODE_WITH_TRAITS_BY[key],
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

    def test_a_bind_sqlalchemy_would_convert_is_refused(self):
        nodes = sa.table('nodes', sa.column('uuid'),
                         sa.column('created_at', sa.DateTime()))
        read = direct_reads.DirectRead(sa.select(nodes.c.uuid).where(
            nodes.c.created_at == sa.bindparam('when', type_=sa.DateTime())))
        error = self.assertRaises(
            TypeError, read.one_or_none, sqlalchemy_api.get_engine(),
            {'when': datetime.datetime(2026, 1, 1)})
        self.assertIn('when', str(error))

    def test_a_thread_reads_the_database_the_api_points_at_now(self):
        node = self.create_node()
        self.dbapi.get_node_by_uuid(node.uuid)
        first = direct_reads.thread_connection(sqlalchemy_api.get_engine())
        self.useFixture(base.Database())    # another, empty database
        self.assertRaises(exception.NodeNotFound,
                          self.dbapi.get_node_by_uuid, node.uuid)
        # The connection to the first database was closed, not leaked.
        self.assertRaises(sqlite3.ProgrammingError, first.execute,
                          'SELECT 1')
