"""Watching a flow (step_progress) and reading what ran (/x-steps/history).

Through the real API, a real conductor and its step runner, real SQLite;
the steps belong to test-only hardware served by
:class:`tests.plugins.HardwarePlugin`, and some wait at a gate the test
opens, so the test can look at the node between steps as an operator
watching it would.
"""

import datetime
import threading

import sqlalchemy as sa

from ironic_steps.common import states
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.drivers import base
from tests import base as tests_base
from tests import plugins
from tests.unit.api import base as api_base

_WAIT = 10


class Gates:
    """Steps that stop until the test lets them go."""

    def __init__(self, *names):
        self.entered = {name: threading.Event() for name in names}
        self.released = {name: threading.Event() for name in names}

    def pass_through(self, name):
        self.entered[name].set()
        # Bounded: a failed test must not leave a worker blocked forever.
        self.released[name].wait(_WAIT)

    def wait_entered(self, test, name):
        test.assertTrue(self.entered[name].wait(_WAIT),
                        'step %s never started' % name)

    def release(self, name):
        self.released[name].set()


class WatchedDeploy(base.DeployInterface):
    """Three deploy steps, each stopping at its gate (if given); the
    second reports its own progress first (if ``reports``)."""

    def __init__(self, gates=None, reports=True):
        self.gates = gates
        self.reports = reports

    def _gate(self, name):
        if self.gates is not None:
            self.gates.pass_through(name)

    @base.deploy_step(priority=90)
    def partition(self, task):
        self._gate('partition')

    @base.deploy_step(priority=80)
    def write_image(self, task):
        if self.reports:
            base.report_progress(task, 40, 'writing image: 4 of 10 GiB')
        self._gate('write_image')

    @base.deploy_step(priority=70, argsinfo={
        'admin_password': {'description': 'the password to set'},
        'hostname': {'description': 'the host name to set'}})
    def configure(self, task, admin_password=None, hostname=None):
        self._gate('configure')


class FailingDeploy(base.DeployInterface):

    @base.deploy_step(priority=90)
    def partition(self, task):
        pass

    @base.deploy_step(priority=50)
    def write_image(self, task):
        raise RuntimeError('image checksum mismatch')


class _HistoryTestBase(api_base.ApiTestCase):

    def use_hardware(self, deploy):
        self.useFixture(plugins.HardwarePlugin('test-hw', deploy=deploy))

    def node_body(self, node):
        response = self.get('/v1/nodes/%s' % node.uuid)
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()

    def progress(self, node):
        return self.node_body(node)['driver_internal_info'].get(
            'step_progress')

    def history(self, node, query=''):
        response = self.get('/v1/nodes/%s/x-steps/history%s'
                            % (node.uuid, query))
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()['history']

    def deploy(self, node, target='active', **body):
        response = self.put('/v1/nodes/%s/states/provision' % node.uuid,
                            json={'target': target, **body})
        self.assertEqual(202, response.status_code, response.data)

    def stored_history_rows(self, node):
        with sqlalchemy_api.get_engine().connect() as connection:
            return connection.execute(sa.text(
                'SELECT count(*) FROM node_step_history WHERE node_id = '
                ':node_id'), {'node_id': node.id}).scalar()


class ProgressTest(_HistoryTestBase):

    def test_a_watched_deploy_shows_each_step_number_name_and_start(self):
        # Given a deploy whose steps stop until let go
        gates = Gates('partition', 'write_image', 'configure')
        self.use_hardware(WatchedDeploy(gates))
        node = self.make_available(driver='test-hw')
        before = datetime.datetime.now(datetime.timezone.utc)
        self.deploy(node)
        flow_runs = set()
        for number, name in enumerate(
                ('partition', 'write_image', 'configure'), start=1):
            # When the operator shows the node while the step runs
            gates.wait_entered(self, name)
            shown = self.progress(node)
            # Then the node says which step of how many, and since when
            self.assertEqual('deploy', shown['flow'])
            self.assertEqual(number, shown['number'])
            self.assertEqual(3, shown['total'])
            self.assertEqual('deploy.%s' % name, shown['step'])
            self.assertIsNone(shown['outcome'])
            started = datetime.datetime.fromisoformat(shown['started_at'])
            self.assertGreaterEqual(started.replace(
                tzinfo=datetime.timezone.utc), before)
            before = started.replace(tzinfo=datetime.timezone.utc)
            flow_runs.add(shown['flow_run'])
            gates.release(name)
        # One deploy, one flow run; the finished deploy leaves no progress
        self.assertEqual(1, len(flow_runs))
        self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn('step_progress',
                         self.node_body(node)['driver_internal_info'])

    def test_a_step_reporting_its_own_progress_shows_percent_and_message(
            self):
        gates = Gates('partition', 'write_image', 'configure')
        gates.release('partition')
        self.use_hardware(WatchedDeploy(gates))
        node = self.make_available(driver='test-hw')
        self.deploy(node)
        # When write_image reports 40% and then waits
        gates.wait_entered(self, 'write_image')
        shown = self.progress(node)
        # Then its percent and message are on the node, with their time
        self.assertEqual(40, shown['percent'])
        self.assertEqual('writing image: 4 of 10 GiB', shown['message'])
        self.assertIsNotNone(shown['updated_at'])
        # and the next step starts without them
        gates.release('write_image')
        gates.wait_entered(self, 'configure')
        shown = self.progress(node)
        self.assertEqual('deploy.configure', shown['step'])
        self.assertIsNone(shown['percent'])
        self.assertIsNone(shown['message'])
        gates.release('configure')
        self.wait_for_state(node, states.ACTIVE)

    def test_progress_reports_within_the_interval_are_not_saved_at_once(
            self):
        # Given a step that reports twice in quick succession
        self.config(step_progress_interval=3600, group='conductor')
        saved = []

        class Chatty(base.DeployInterface):
            @base.deploy_step(priority=50)
            def write_image(self, task):
                saved.append(base.report_progress(task, 10, 'first'))
                saved.append(base.report_progress(task, 20, 'second'))

        self.use_hardware(Chatty())
        node = self.make_available(driver='test-hw')
        self.deploy(node)
        self.wait_for_state(node, states.ACTIVE)
        # Then only the first is written at once; the second waits
        self.assertEqual([True, False], saved)

    def test_a_failed_deploy_keeps_its_progress_naming_the_failed_step(self):
        self.use_hardware(FailingDeploy())
        node = self.make_available(driver='test-hw')
        self.deploy(node)
        self.wait_for_state(node, states.DEPLOYFAIL)
        shown = self.progress(node)
        self.assertEqual((2, 2, 'deploy.write_image', 'failed'),
                         (shown['number'], shown['total'], shown['step'],
                          shown['outcome']))


class HistoryTest(_HistoryTestBase):

    SECRET_STEP = {'interface': 'deploy', 'step': 'configure',
                   'args': {'admin_password': 'hunter2',
                            'hostname': 'web-1'},
                   'priority': 70}

    def test_two_deploys_leave_their_steps_with_durations_and_masked_secrets(
            self):
        # Given a node deployed, then rebuilt, with a password in its steps
        self.use_hardware(WatchedDeploy())
        node = self.make_available(driver='test-hw')
        self.deploy(node, deploy_steps=[self.SECRET_STEP])
        self.wait_for_state(node, states.ACTIVE)
        self.deploy(node, target='rebuild', deploy_steps=[self.SECRET_STEP])
        self.wait_for_state(node, states.ACTIVE)
        # When its history is read
        history = self.history(node)
        # Then every step of both deploys is there, oldest first
        self.assertEqual(
            ['deploy.partition', 'deploy.write_image', 'deploy.configure'] * 2,
            ['%s.%s' % (e['interface'], e['step']) for e in history])
        self.assertEqual({'success'}, {e['outcome'] for e in history})
        self.assertEqual({'deploy'}, {e['flow'] for e in history})
        self.assertEqual({node.uuid}, {e['node_uuid'] for e in history})
        # each deploy a flow run of its own
        runs = [e['flow_run'] for e in history]
        self.assertEqual(1, len(set(runs[:3])))
        self.assertEqual(1, len(set(runs[3:])))
        self.assertNotEqual(runs[0], runs[3])
        # with its duration, its end minus its start
        for entry in history:
            started = datetime.datetime.fromisoformat(entry['started_at'])
            finished = datetime.datetime.fromisoformat(entry['finished_at'])
            self.assertAlmostEqual((finished - started).total_seconds(),
                                   entry['duration'], places=5)
            self.assertGreaterEqual(entry['duration'], 0)
        # and the password masked, the rest of its arguments shown
        self.assertEqual({'admin_password': '******', 'hostname': 'web-1'},
                         history[2]['args'])
        self.assertEqual(70, history[2]['priority'])
        self.assertNotIn(b'hunter2', self.get(
            '/v1/nodes/%s/x-steps/history' % node.uuid).data)

    def test_history_is_read_per_flow_run_and_per_flow(self):
        self.use_hardware(WatchedDeploy())
        node = self.make_available(driver='test-hw')
        self.deploy(node)
        self.wait_for_state(node, states.ACTIVE)
        first_run = self.history(node)[0]['flow_run']
        self.deploy(node, target='rebuild')
        self.wait_for_state(node, states.ACTIVE)
        # Only the first deploy's steps
        shown = self.history(node, '?flow_run=%s' % first_run)
        self.assertEqual(3, len(shown))
        self.assertEqual({first_run}, {e['flow_run'] for e in shown})
        # Clean steps: none ran on this node
        self.assertEqual([], self.history(node, '?flow=clean'))
        self.assertEqual(6, len(self.history(node, '?flow=deploy')))

    def test_a_failed_step_is_recorded_with_its_error(self):
        self.use_hardware(FailingDeploy())
        node = self.make_available(driver='test-hw')
        self.deploy(node)
        failed = self.wait_for_state(node, states.DEPLOYFAIL)
        history = self.history(node)
        self.assertEqual([('partition', 'success', None),
                          ('write_image', 'failed', failed.last_error)],
                         [(e['step'], e['outcome'], e['error'])
                          for e in history])
        self.assertIn('image checksum mismatch', history[1]['error'])

    def test_the_bound_drops_the_oldest_entries(self):
        # Given a node that keeps 4 entries, deployed three times (9 steps)
        self.config(step_history_max_entries=4, group='conductor')
        self.use_hardware(WatchedDeploy())
        node = self.make_available(driver='test-hw')
        runs = []
        for target in ('active', 'rebuild', 'rebuild'):
            self.deploy(node, target=target)
            self.wait_for_state(node, states.ACTIVE)
            runs.append(self.history(node)[-1]['flow_run'])
        # Then the 4 newest are shown: the last deploy's 3 and one before
        history = self.history(node)
        self.assertEqual(
            [(runs[1], 'configure'), (runs[2], 'partition'),
             (runs[2], 'write_image'), (runs[2], 'configure')],
            [(e['flow_run'], e['step']) for e in history])
        self.assertEqual([], self.history(node, '?flow_run=%s' % runs[0]))
        # and the table holds no more than twice the bound (one DELETE
        # per bound's worth of entries, not per step)
        self.assertLessEqual(self.stored_history_rows(node), 8)
        self.assertGreaterEqual(self.stored_history_rows(node), 4)

    def manual_clean(self, node):
        """Start manual cleaning: erase_devices waits for the agent."""
        self.assertEqual(202, self.provision(node.uuid, 'manage').status_code)
        self.wait_for_state(node, states.MANAGEABLE)
        response = self.put(
            '/v1/nodes/%s/states/provision' % node.uuid,
            json={'target': 'clean', 'clean_steps': [
                {'interface': 'deploy', 'step': 'erase_devices'},
                {'interface': 'deploy', 'step': 'erase_devices_metadata'}]})
        self.assertEqual(202, response.status_code, response.data)
        return self.wait_for_state(node, states.CLEANWAIT)

    def test_a_step_waiting_for_its_agent_shows_progress_then_history(self):
        # Given manual cleaning waiting for its agent at the first step
        node = self.manual_clean(self.make_available())
        shown = self.progress(node)
        # Then the waiting step is shown as running, 1 of 2
        self.assertEqual(('clean', 1, 2, 'deploy.erase_devices', None),
                         (shown['flow'], shown['number'], shown['total'],
                          shown['step'], shown['outcome']))
        this_run = '?flow_run=%s' % shown['flow_run']
        self.assertEqual([], self.history(node, this_run))
        # When the agent calls back, the rest runs and both are recorded
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.MANAGEABLE)
        history = self.history(node, this_run)
        self.assertEqual([('erase_devices', 'success', 0),
                          ('erase_devices_metadata', 'success', 10)],
                         [(e['step'], e['outcome'], e['priority'])
                          for e in history])
        # after the automated cleaning that made the node available
        self.assertEqual(['erase_devices_metadata', 'erase_devices',
                          'erase_devices_metadata'],
                         [e['step'] for e in self.history(
                             node, '?flow=clean')])
        self.assertEqual([], self.history(node, '?flow=deploy'))

    def test_an_aborted_step_is_recorded_as_aborted(self):
        node = self.manual_clean(self.make_available())
        this_run = '?flow_run=%s' % self.progress(node)['flow_run']
        self.assertEqual(202, self.provision(node.uuid, 'abort').status_code)
        failed = self.wait_for_state(node, states.CLEANFAIL)
        self.assertEqual([('erase_devices', 'aborted', failed.last_error)],
                         [(e['step'], e['outcome'], e['error'])
                          for e in self.history(node, this_run)])

    def test_the_history_goes_with_the_node(self):
        self.use_hardware(WatchedDeploy())
        node = self.make_available(driver='test-hw')
        self.deploy(node)
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(3, self.stored_history_rows(node))
        self.deploy(node, target='deleted')
        self.wait_for_state(node, states.AVAILABLE)
        response = self.delete('/v1/nodes/%s' % node.uuid)
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(0, self.stored_history_rows(node))

    def test_unknown_filters_are_refused_naming_the_valid_ones(self):
        node = self.make_available()
        response = self.get('/v1/nodes/%s/x-steps/history?flow=inspect'
                            % node.uuid)
        self.assertError(response, 400, 'flow must be one of deploy, clean',
                         "'inspect'")
        response = self.get('/v1/nodes/%s/x-steps/history?limit=3'
                            % node.uuid)
        self.assertError(response, 400, 'limit', 'flow, flow_run')
        response = self.get('/v1/nodes/%s/x-steps/history?flow_run=x'
                            % node.uuid)
        self.assertError(response, 400, 'flow_run must be the UUID')

    def test_an_unknown_node_is_404(self):
        response = self.get('/v1/nodes/no-such-node/x-steps/history')
        self.assertError(response, 404, 'no-such-node')


class PinnedTest(_HistoryTestBase):

    def test_pinned_to_0_5_no_progress_no_history_and_no_path(self):
        # Given services pinned to 0.5, from before progress and history
        self.config(pin_release_version='0.5')
        gates = Gates('partition', 'write_image', 'configure')
        self.use_hardware(WatchedDeploy(gates))
        node = self.make_available(driver='test-hw')
        # When a node is deployed and watched
        self.deploy(node)
        for name in ('partition', 'write_image', 'configure'):
            gates.wait_entered(self, name)
            # Then no step shows progress, not even one reporting it
            self.assertNotIn('step_progress',
                             self.node_body(node)['driver_internal_info'])
            gates.release(name)
        self.wait_for_state(node, states.ACTIVE)
        # nothing is recorded, and the path does not exist
        self.assertEqual(0, self.stored_history_rows(node))
        response = self.get('/v1/nodes/%s/x-steps/history' % node.uuid)
        self.assertError(response, 404, 'could not be found')


class CostTest(_HistoryTestBase):
    """Progress costs no statement (but a step's own reports, which are
    throttled); each ended step one INSERT."""

    def deploy_counting(self, pinned):
        if pinned:
            self.config(pin_release_version='0.5')
        self.use_hardware(WatchedDeploy(reports=False))
        node = self.make_available(driver='test-hw')
        recorded = self.useFixture(tests_base.SQLStatements())
        self.deploy(node)
        self.wait_for_state(node, states.ACTIVE)
        history = [s for s in recorded.statements
                   if 'node_step_history' in s]
        return recorded.node_writes(), history

    def test_a_deploy_adds_one_insert_per_step_and_no_node_write(self):
        node_writes_pinned, history_pinned = self.deploy_counting(True)
        self.assertEqual([], history_pinned)
        self.config(pin_release_version=None)
        node_writes, history = self.deploy_counting(False)
        # The same node writes with progress as without it
        self.assertEqual(len(node_writes_pinned), len(node_writes))
        # and one INSERT per step (three), nothing else
        self.assertEqual(['INSERT'] * 3, [s.split()[0] for s in history])

    def test_the_bound_costs_one_delete_per_bound_of_entries(self):
        self.config(step_history_max_entries=3, group='conductor')
        _node_writes, history = self.deploy_counting(False)
        # (The third entry, made when its step ends, is due to trim; it
        # is inserted by the node's next save, after the DELETE.)
        self.assertEqual(['INSERT', 'INSERT', 'DELETE', 'INSERT'],
                         [s.split()[0] for s in history])
