"""The NodeStepHistory object: how step runs are recorded, read, bounded
and dropped, against a real database (re-run on PostgreSQL and MariaDB).

Its fingerprint is recorded with the others in test_node.py.
"""

import datetime

import fixtures
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps import objects
from tests import base

NodeStepHistory = objects.NodeStepHistory
_START = datetime.datetime(2026, 12, 1, 6, 0, 0, 123456,
                           tzinfo=datetime.timezone.utc)


class StepHistoryTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def record(self, step, flow='deploy', flow_run=None, node=None,
               seconds=1.5, **fields):
        entry = NodeStepHistory(
            self.context, node_id=(node or self.node).id, flow=flow,
            flow_run=flow_run or uuidutils.generate_uuid(),
            interface='deploy', step=step, args=fields.pop('args', {}),
            priority=fields.pop('priority', 50), started_at=_START,
            finished_at=_START + datetime.timedelta(seconds=seconds),
            outcome=fields.pop('outcome', 'success'),
            error=fields.pop('error', None))
        entry.create()
        return entry

    def steps(self, node=None, **filters):
        return [entry.step for entry in NodeStepHistory.list_by_node(
            self.context, (node or self.node).id, **filters)]

    def test_entries_read_back_as_written_oldest_first(self):
        run = uuidutils.generate_uuid()
        self.record('partition', flow_run=run, seconds=0.25)
        self.record('write_image', flow_run=run, outcome='failed',
                    error='Deploy step deploy.write_image failed: boom',
                    args={'image_url': 'http://x/y', 'keys': [{'a': 1}]})
        first, second = NodeStepHistory.list_by_node(self.context,
                                                     self.node.id)
        self.assertEqual(('partition', 'success', 0.25),
                         (first.step, first.outcome, first.duration))
        self.assertEqual(_START, second.started_at)
        self.assertEqual(_START + datetime.timedelta(seconds=1.5),
                         second.finished_at)
        self.assertEqual({'image_url': 'http://x/y', 'keys': [{'a': 1}]},
                         second.args)
        self.assertEqual(('failed', run, 50),
                         (second.outcome, second.flow_run, second.priority))
        self.assertIn('boom', second.error)

    def test_every_nodes_entries_are_read_in_one_go_by_node(self):
        other = self.create_node(name='node-2')
        self.record('partition')
        self.record('write_image', node=other, args={'image_url': 'x'})
        self.record('boot')
        rows = NodeStepHistory.rows_by_node(self.context)
        self.assertEqual({self.node.id: ['partition', 'boot'],
                          other.id: ['write_image']},
                         {node_id: [row.step for row in entries]
                          for node_id, entries in rows.items()})
        self.assertEqual({'image_url': 'x'}, rows[other.id][0].args)

    def test_reading_filters_by_flow_and_flow_run(self):
        run = uuidutils.generate_uuid()
        self.record('erase_devices_metadata', flow='clean')
        self.record('deploy', flow_run=run)
        self.record('write_image', flow_run=run)
        self.record('deploy')
        self.assertEqual(['erase_devices_metadata'],
                         self.steps(flow='clean'))
        self.assertEqual(['deploy', 'write_image'], self.steps(flow_run=run))
        self.assertEqual(['deploy', 'write_image', 'deploy'],
                         self.steps(flow='deploy'))

    def test_only_the_newest_entries_of_the_bound_are_read(self):
        self.config(step_history_max_entries=2, group='conductor')
        other = self.create_node(name='node-2')
        for step in ('one', 'two', 'three'):
            self.record(step)
            self.record('other-' + step, node=other)
        self.assertEqual(['two', 'three'], self.steps())
        self.assertEqual(['other-two', 'other-three'], self.steps(other))

    def test_trimming_drops_the_oldest_beyond_the_bound_of_that_node_only(
            self):
        other = self.create_node(name='node-2')
        for step in ('one', 'two', 'three', 'four'):
            self.record(step)
        self.record('other-one', node=other)
        self.config(step_history_max_entries=2, group='conductor')
        self.assertEqual(2, NodeStepHistory.trim(self.context, self.node.id))
        self.config(step_history_max_entries=10, group='conductor')
        self.assertEqual(['three', 'four'], self.steps())
        self.assertEqual(['other-one'], self.steps(other))
        # Within the bound, nothing goes
        self.assertEqual(0, NodeStepHistory.trim(self.context, self.node.id))

    def test_the_entries_go_with_their_node(self):
        other = self.create_node(name='node-2')
        self.record('one')
        self.record('other-one', node=other)
        self.node.destroy()
        self.assertEqual([], self.steps())
        self.assertEqual(['other-one'], self.steps(other))

    def entry(self, step, without=None):
        fields = dict(
            node_id=self.node.id, flow='deploy',
            flow_run=uuidutils.generate_uuid(), interface='deploy',
            step=step, args={}, priority=50, started_at=_START,
            finished_at=_START, outcome='success')
        fields.pop(without, None)
        return NodeStepHistory.new_row(**fields)

    def test_entries_recorded_with_the_node_are_written_by_its_next_save(
            self):
        self.node.record_with_next_save(self.entry('one'))
        self.node.record_with_next_save(self.entry('two'))
        self.assertEqual([], self.steps())
        self.node.extra = {'step': 'three'}
        self.node.save()
        self.assertEqual(['one', 'two'], self.steps())
        self.assertEqual({'step': 'three'}, objects.Node.get(
            self.context, self.node.uuid).extra)
        # written once: the next save writes no entry again
        self.node.extra = {}
        self.node.save()
        self.assertEqual(['one', 'two'], self.steps())

    def test_a_save_that_drops_its_lock_writes_the_entries_too(self):
        node = objects.Node.reserve(self.context, 'conductor-a',
                                    self.node.id)
        node.record_with_next_save(self.entry('one'))
        self.assertTrue(node.save(release='conductor-a'))
        self.assertEqual(['one'], self.steps())

    def test_a_node_write_refused_by_its_fence_writes_no_entry(self):
        node = objects.Node.reserve(self.context, 'conductor-a',
                                    self.node.id)
        objects.Node.reserve(self.context, 'conductor-b', self.node.id,
                             replacing='conductor-a')
        node.record_with_next_save(self.entry('one'))
        node.extra = {'late': True}
        self.assertRaises(exception.NodeLockLost, node.save)
        self.assertEqual([], self.steps())
        self.assertIsNone(objects.Node.get(self.context,
                                           self.node.uuid).extra)

    def test_an_entry_the_database_refuses_does_not_stop_the_node_save(
            self):
        self.node.record_with_next_save(
            self.entry('one', without='flow'))   # NOT NULL in the table
        self.node.extra = {'saved': True}
        logged = self.useFixture(fixtures.FakeLogger(level='WARNING'))
        self.node.save()
        self.assertEqual({'saved': True}, objects.Node.get(
            self.context, self.node.uuid).extra)
        self.assertEqual([], self.steps())
        self.assertIn('Could not record 1 ended step(s) of node %s'
                      % self.node.uuid, logged.output)

    def test_nothing_is_recorded_while_pinned_before_0_6(self):
        self.config(pin_release_version='0.5')
        exc = self.assertRaises(exception.NotInPinnedRelease, self.record,
                                'one')
        self.assertIn('0.6', str(exc))
        self.config(pin_release_version=None)
        self.assertEqual([], self.steps())

    def test_a_new_row_is_refused_while_pinned_before_0_6_or_if_not_fields(
            self):
        self.config(pin_release_version='0.5')
        self.assertRaises(exception.NotInPinnedRelease, self.entry, 'one')
        self.config(pin_release_version=None)
        exc = self.assertRaises(ValueError, NodeStepHistory.new_row,
                                step='one', colour='blue', size=3)
        self.assertIn('colour, size', str(exc))
