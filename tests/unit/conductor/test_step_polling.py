"""Polled steps: out-of-band work a conductor checks until it is done."""

import datetime
import threading
import time

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import registry
from ironic_steps.conductor import rpcapi
from ironic_steps.conductor import step_polling
from ironic_steps.conductor import task_manager
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps import objects
from tests import base as tests_base
from tests import clock
from tests import plugins


class FakeBMC:
    """What a BMC job says when asked; the test sets ``answer``."""

    def __init__(self):
        self.answer = None
        self.checks = []
        self.started = []
        self.lock = threading.Lock()


class PolledDeploy(base.DeployInterface):
    """A deploy whose middle step starts a BMC job and is polled."""

    def __init__(self, bmc, timeout=None):
        self.bmc = bmc
        self.timeout = timeout

    @base.deploy_step(priority=100)
    def deploy(self, task):
        pass

    @base.deploy_step(priority=50)
    @base.clean_step(priority=0, argsinfo={
        'size': {'description': 'GiB', 'required': False}})
    def build_volume(self, task, size=10):
        self.bmc.started.append(size)
        return base.poll_step(task, self.check_volume, timeout=self.timeout,
                              job='job-%d' % size)

    def check_volume(self, task, job):
        with self.bmc.lock:
            self.bmc.checks.append((task.node.uuid, job))
        answer = self.bmc.answer
        if isinstance(answer, Exception):
            raise answer
        return answer

    @base.deploy_step(priority=10)
    def boot(self, task):
        task.node.extra = {**(task.node.extra or {}), 'booted': True}


class PolledStepsTest(tests_base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        self.bmc = FakeBMC()
        self.deploy_interface = PolledDeploy(self.bmc)
        self.useFixture(plugins.HardwarePlugin('polled',
                                               deploy=self.deploy_interface))
        self.config(enabled_hardware_types=['fake-hardware', 'polled'])
        self.poller = self.manager._poller
        self.clock = self.poller.clock = clock.ManualClock()

    def look(self, after=0):
        """One look of the poller ``after`` seconds since the last, and
        wait for the checks it started."""
        self.clock.advance(after)
        self.poller.run(self.context)
        self.wait_for_checks()

    def wait_for_checks(self):
        deadline = time.monotonic() + 10
        while self.poller.running():
            self.assertLess(time.monotonic(), deadline, 'checks never ended')
            time.sleep(0.01)

    def poll(self):
        """A look now (a new poll is first seen), and one an interval
        later (its check is due)."""
        self.look()
        self.look(after=CONF.conductor.step_poll_interval)

    def deploy_to_poll(self, **fields):
        node = self.make_available(driver='polled', **fields)
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        return self.wait_for_state(node, states.DEPLOYWAIT)

    def test_a_polled_step_waits_until_its_check_says_done(self):
        node = self.deploy_to_poll()
        polling = node.driver_internal_info[base.POLLING_KEY]
        self.assertEqual(('deploy', 'check_volume', {'job': 'job-10'}),
                         (polling['interface'], polling['method'],
                          polling['args']))
        self.assertEqual('build_volume', node.deploy_step['step'])
        # Not yet: the BMC's status is kept
        self.bmc.answer = 'Volume 40% built'
        self.poll()
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(
            'Volume 40% built',
            node.driver_internal_info[base.POLLING_KEY]['status'])
        # Done: the flow goes on with the next step, and ends
        self.bmc.answer = base.DONE
        self.poll()
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertTrue(node.extra['booted'])
        self.assertNotIn(base.POLLING_KEY, node.driver_internal_info)
        self.assertEqual([(node.uuid, 'job-10')] * 2, self.bmc.checks)
        self.assertEqual([10], self.bmc.started)

    def test_a_check_that_raises_fails_the_step_with_its_message(self):
        node = self.deploy_to_poll()
        self.bmc.answer = exception.StepFailed(
            reason='the BMC says: RAID 5 needs three drives')
        self.poll()
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('deploy.build_volume', node.last_error)
        self.assertIn('RAID 5 needs three drives', node.last_error)
        self.assertNotIn(base.POLLING_KEY, node.driver_internal_info)
        self.assertEqual('build_volume', node.deploy_step['step'])

    def test_a_check_that_cannot_reach_the_bmc_is_asked_again(self):
        node = self.deploy_to_poll()
        self.bmc.answer = exception.BMCUnavailable(
            node=node.uuid, operation='read the volume',
            error='HTTP 503: BMC is restarting')
        self.poll()
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertIn('BMC is restarting',
                      node.driver_internal_info[base.POLLING_KEY]['status'])
        self.assertIsNone(node.last_error)
        self.bmc.answer = base.DONE
        self.poll()
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(2, len(self.bmc.checks))

    def test_a_step_that_outlasts_its_timeout_fails_naming_the_last_status(
            self):
        self.deploy_interface.timeout = 0.3
        node = self.deploy_to_poll()
        self.bmc.answer = 'Task 7 running, 10%'
        self.poll()
        time.sleep(0.4)
        self.poll()
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('deploy.build_volume timed out after 0.3 seconds',
                      node.last_error)
        self.assertIn('Task 7 running, 10%', node.last_error)
        # the BMC was not asked again once time ran out
        self.assertEqual(1, len(self.bmc.checks))

    def test_a_step_out_of_time_is_in_the_step_history_as_a_timeout(self):
        self.deploy_interface.timeout = 0.3
        node = self.deploy_to_poll()
        self.bmc.answer = 'Task 7 running, 10%'
        self.poll()
        time.sleep(0.4)
        self.poll()
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        history = objects.NodeStepHistory.list_by_node(self.context, node.id)
        self.assertEqual([('deploy', 'success', None),
                          ('build_volume', 'timeout', node.last_error)],
                         [(e.step, e.outcome, e.error) for e in history])
        self.assertGreaterEqual(history[-1].duration, 0.3)

    def test_a_check_reporting_progress_shows_it_while_its_step_waits(self):
        # Given a check that reports how far the BMC has got
        def check_volume(interface, task, job):
            base.report_progress(task, 40, 'volume 40% built')
            return None
        self.deploy_interface.check_volume = check_volume.__get__(
            self.deploy_interface)
        node = self.deploy_to_poll()
        self.poll()
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        # Then the node shows it, on the waiting step
        progress = node.driver_internal_info[base.PROGRESS_KEY]
        self.assertEqual(('deploy.build_volume', 2, 3, 40, 'volume 40% built'),
                         (progress['step'], progress['number'],
                          progress['total'], progress['percent'],
                          progress['message']))
        self.assertIsNone(progress['outcome'])
        # and when the work is done the flow goes on and records the step
        del self.deploy_interface.check_volume
        self.bmc.answer = base.DONE
        self.poll()
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(
            ['deploy', 'build_volume', 'boot'],
            [e.step for e in objects.NodeStepHistory.list_by_node(
                self.context, node.id)])

    def test_the_configured_timeout_applies_when_the_driver_says_none(self):
        node = self.deploy_to_poll()
        self.config(step_poll_timeout=1, group='conductor')
        info = node.driver_internal_info
        polling = info[base.POLLING_KEY]
        polling['started_at'] = '2000-01-01T00:00:00+00:00'
        node.driver_internal_info = {**info, base.POLLING_KEY: polling}
        node.save()
        self.poll()
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('timed out after 1 seconds', node.last_error)
        self.assertEqual([], self.bmc.checks)

    def test_a_heartbeat_does_not_resume_a_polled_step(self):
        node = self.deploy_to_poll()
        self.agent_heartbeat(node)
        after = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(node.driver_internal_info[base.POLLING_KEY],
                         after.driver_internal_info[base.POLLING_KEY])
        self.assertEqual(node.deploy_step, after.deploy_step)
        self.assertEqual([], self.bmc.checks)

    def test_the_agent_call_back_timeout_does_not_apply(self):
        node = self.deploy_to_poll()
        self.config(deploy_callback_timeout=1, group='conductor')
        objects.Node.dbapi.update_node(node.id, {
            'provision_updated_at': node.provision_updated_at.replace(
                year=2000, tzinfo=None)})
        self.manager.housekeeping.check_wait_timeouts(self.context)
        self.wait_for_state(node, states.DEPLOYWAIT)

    def test_a_locked_node_is_skipped_until_it_is_free(self):
        node = self.deploy_to_poll()
        self.bmc.answer = base.DONE
        objects.Node.reserve(self.context, 'someone-else', node.id)
        self.poll()
        self.assertEqual([], self.bmc.checks)
        objects.Node.release(self.context, 'someone-else', node.id)
        self.poll()
        self.wait_for_state(node, states.ACTIVE)

    def test_the_batch_bounds_the_checks_running_at_once(self):
        self.config(step_poll_batch_size=2, group='conductor')
        nodes = [self.deploy_to_poll(name='node-%d' % i) for i in range(3)]
        release = threading.Event()

        def slow(task, job):
            with self.bmc.lock:
                self.bmc.checks.append(task.node.uuid)
            release.wait(10)
            return 'building'

        self.deploy_interface.check_volume = slow
        self.poller.run(self.context)
        self.clock.advance(CONF.conductor.step_poll_interval)
        self.poller.run(self.context)
        self.poller.run(self.context)   # no room while two run
        self.assertEqual(2, self.poller.running())
        release.set()
        self.wait_for_checks()
        self.look()   # the third node's turn
        self.assertEqual(sorted(node.uuid for node in nodes),
                         sorted(self.bmc.checks))

    def test_each_step_is_checked_once_per_interval_however_often_it_looks(
            self):
        node = self.deploy_to_poll()
        self.bmc.answer = 'building'
        interval = CONF.conductor.step_poll_interval
        self.look()
        # Not before one interval since the step began to wait
        for _ in range(4):
            self.look(after=interval / 5)
        self.assertEqual([], self.bmc.checks)
        self.look(after=interval / 5)
        self.assertEqual(1, len(self.bmc.checks))
        # Then one interval from the end of each check
        for _ in range(4):
            self.look(after=interval / 5)
        self.assertEqual(1, len(self.bmc.checks))
        self.look(after=interval / 5)
        self.assertEqual(2, len(self.bmc.checks))
        self.wait_for_state(node, states.DEPLOYWAIT)

    def test_more_nodes_than_the_batch_are_all_checked_each_interval(self):
        self.config(step_poll_batch_size=2, group='conductor')
        nodes = [self.deploy_to_poll(name='node-%d' % i) for i in range(5)]
        self.bmc.answer = 'building'
        self.look()
        self.clock.advance(CONF.conductor.step_poll_interval)
        # Checks end quickly, so the looks of one interval reach them all
        for _ in range(3):
            self.look()
        self.assertEqual(sorted(node.uuid for node in nodes),
                         sorted(uuid for uuid, _job in self.bmc.checks))

    def test_a_step_waiting_longer_than_an_interval_is_due_at_first_sight(
            self):
        # As after a takeover: this conductor never saw the poll begin.
        node = self.deploy_to_poll()
        info = node.driver_internal_info
        began = (timeutils.utcnow(with_timezone=True)
                 - datetime.timedelta(
                     seconds=2 * CONF.conductor.step_poll_interval))
        polling = {**info[base.POLLING_KEY], 'started_at': began.isoformat()}
        node.driver_internal_info = {**info, base.POLLING_KEY: polling}
        node.save()
        self.bmc.answer = 'building'
        self.look()
        self.assertEqual([(node.uuid, 'job-10')], self.bmc.checks)

    def test_a_check_still_running_is_not_started_again(self):
        node = self.deploy_to_poll()
        release = threading.Event()

        def slow(task, job):
            self.bmc.checks.append(job)
            release.wait(10)
            return base.DONE

        self.deploy_interface.check_volume = slow
        self.poller.run(self.context)
        self.clock.advance(CONF.conductor.step_poll_interval)
        self.poller.run(self.context)
        self.clock.advance(CONF.conductor.step_poll_interval)
        self.poller.run(self.context)
        self.assertEqual(1, self.poller.running())
        release.set()
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(['job-10'], self.bmc.checks)

    def test_only_the_conductor_that_owns_the_node_polls_it(self):
        node = self.deploy_to_poll()
        self.bmc.answer = base.DONE
        not_mine = step_polling.StepPoller(self.manager._acquire,
                                           self.manager._reserve_worker,
                                           owns=lambda uuid, driver: False)
        not_mine.run(self.context)
        self.assertEqual(0, not_mine.running())
        self.assertEqual([], self.bmc.checks)
        self.wait_for_state(node, states.DEPLOYWAIT)

    def test_a_polled_clean_step_ends_the_manual_cleaning(self):
        node = self.create_node(driver='polled')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        self.rpcapi.do_node_clean(self.context, node.uuid, clean_steps=[
            {'interface': 'deploy', 'step': 'build_volume',
             'args': {'size': 4}}])
        node = self.wait_for_state(node, states.CLEANWAIT)
        self.assertEqual({'job': 'job-4'},
                         node.driver_internal_info[base.POLLING_KEY]['args'])
        self.bmc.answer = base.DONE
        self.poll()
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertNotIn(base.POLLING_KEY, node.driver_internal_info)

    def test_an_abort_forgets_the_poll(self):
        node = self.deploy_to_poll()
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'abort')
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertNotIn(base.POLLING_KEY, node.driver_internal_info)
        self.bmc.answer = base.DONE
        self.poll()
        self.assertEqual([], self.bmc.checks)


class PollStepMisuseTest(tests_base.TestCase):
    """A driver author's mistakes in poll_step fail the step clearly."""

    def task(self, provision_state=states.DEPLOYING):
        self.useFixture(plugins.HardwarePlugin(
            'polled', deploy=PolledDeploy(FakeBMC())))
        self.config(enabled_hardware_types=['fake-hardware', 'polled'])
        node = self.create_node(driver='polled')
        task = task_manager.acquire(self.context, node.uuid)
        self.addCleanup(task.release_resources)
        task.node.provision_state = provision_state
        return task

    def test_outside_a_running_step_it_is_refused(self):
        task = self.task(states.AVAILABLE)
        exc = self.assertRaises(exception.InvalidStep, base.poll_step, task,
                                task.driver.deploy.check_volume)
        self.assertIn('not from a running deploy, clean or service step', str(exc))

    def test_the_check_must_be_a_method_of_the_nodes_interfaces(self):
        task = self.task()
        other = PolledDeploy(FakeBMC())
        for check in (other.check_volume, len):
            exc = self.assertRaises(exception.InvalidStep, base.poll_step,
                                    task, check)
            self.assertIn("interfaces", str(exc))

    def test_arguments_must_be_json_and_timeout_positive(self):
        task = self.task()
        check = task.driver.deploy.check_volume
        self.assertIn('must be JSON', str(self.assertRaises(
            exception.InvalidStep, base.poll_step, task, check,
            job=object())))
        for timeout in (0, -1, 'soon', True):
            self.assertIn('positive number', str(self.assertRaises(
                exception.InvalidStep, base.poll_step, task, check,
                timeout=timeout)))
        self.assertEqual(states.DEPLOYWAIT,
                         base.poll_step(task, check, job='j'))
        self.assertEqual(CONF.conductor.step_poll_timeout, 1800)


class TwoConductorsTest(tests_base.TestCase):
    """Over oslo.messaging, each node's polled step is checked by the
    conductor the hash ring gives it, and by no other."""

    wait_for_state = tests_base.ConductorTestCase.wait_for_state

    def setUp(self):
        super().setUp()
        self.use_in_memory_messaging()
        self.bmc = FakeBMC()
        self.useFixture(plugins.HardwarePlugin(
            'polled', deploy=RecordingHolderDeploy(self.bmc)))
        self.config(enabled_hardware_types=['fake-hardware', 'polled'])
        self.conductors = self.useFixture(tests_base.RPCConductors(
            self.context, ['conductor-a', 'conductor-b']))
        self.rpcapi = rpcapi.ConductorAPI()

    def test_only_the_owner_checks_each_node(self):
        nodes = []
        for index in range(8):
            node = self.create_node(driver='polled', name='n-%d' % index)
            for action, state in (('manage', states.MANAGEABLE),
                                  ('provide', states.AVAILABLE)):
                self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                                   action)
                self.wait_for_state(node, state)
            self.rpcapi.do_node_deploy(self.context, node.uuid)
            nodes.append(self.wait_for_state(node, states.DEPLOYWAIT))
        owners = {node.uuid: registry.conductor_for(node.uuid, node.driver)
                  for node in nodes}
        self.assertEqual({'conductor-a', 'conductor-b'},
                         set(owners.values()))
        self.bmc.answer = 'building'
        for manager in self.conductors.managers.values():
            manual = manager._poller.clock = clock.ManualClock()
            manager._poller.run(self.context)
            manual.advance(CONF.conductor.step_poll_interval)
            manager._poller.run(self.context)
        deadline = time.monotonic() + 10
        while len(self.bmc.checks) < len(nodes):
            self.assertLess(time.monotonic(), deadline, self.bmc.checks)
            time.sleep(0.01)
        time.sleep(0.2)   # any stray second check would show by now
        self.assertEqual(owners, dict(self.bmc.checks))


class RecordingHolderDeploy(PolledDeploy):
    """Records which conductor holds the node when its check runs."""

    def check_volume(self, task, job):
        with self.bmc.lock:
            self.bmc.checks.append((task.node.uuid, task.node.reservation))
        return self.bmc.answer
