"""A conductor that loses its database mid-step, on a real PostgreSQL.

The server is the test process's (each test has a fresh, migrated
database on it: :class:`tests.base.PostgreSQLDatabase`), stopped and
started under a running deploy, and started again at cleanup, whatever
the test did: a short outage costs the flow a pause; a long one fails it
where it stood, and its lock is freed once the database answers again.
"""

import threading
import time

import fixtures

from ironic_steps.common import outage
from ironic_steps.common import states
from ironic_steps.conductor import task_manager
from ironic_steps.drivers import base as drivers_base
from ironic_steps import objects
from tests import base
from tests import plugins
from tests import postgresql


class GatedDeploy(drivers_base.DeployInterface):
    """A deploy whose middle step runs until the test lets it end."""

    def __init__(self):
        self.running = threading.Event()
        self.finish = threading.Event()

    @drivers_base.deploy_step(priority=100)
    def deploy(self, task):
        pass

    @drivers_base.deploy_step(priority=50)
    def write_image(self, task):
        self.running.set()
        self.finish.wait(30)


class DatabaseOutageTest(base.ConductorTestCase):

    database = base.PostgreSQLDatabase

    def setUp(self):
        super().setUp()
        self.deploy_interface = GatedDeploy()
        self.useFixture(plugins.HardwarePlugin('gated',
                                               deploy=self.deploy_interface))
        self.config(enabled_hardware_types=['fake-hardware', 'gated'])
        self.server = postgresql.shared_server()
        self.addCleanup(self.server.start)
        self.logs = self.useFixture(fixtures.FakeLogger(level='INFO'))
        outage.DATABASE.reset()
        self.addCleanup(outage.DATABASE.reset)

    def deploy_until_the_step_runs(self):
        node = self.make_available(driver='gated')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.assertTrue(self.deploy_interface.running.wait(10))
        return node

    def test_a_short_outage_pauses_the_flow_which_then_ends_active(self):
        # The defaults: 20 tries, 1 s apart, then 2 s apart
        node = self.deploy_until_the_step_runs()
        self.server.stop()
        self.deploy_interface.finish.set()   # its record cannot be saved
        time.sleep(2)
        self.server.start()
        node = self.wait_for_state(node, states.ACTIVE, timeout=30)
        self.assertIsNone(node.last_error)

    def test_a_long_outage_fails_the_step_and_frees_the_lock_after(self):
        self.config(db_max_retries=1, group='database')
        node = self.deploy_until_the_step_runs()
        self.server.stop()
        self.deploy_interface.finish.set()
        # The worker gives up: its lock stays in the database, held by no
        # work
        self.wait_until(
            lambda: not task_manager.HELD.holding(self.manager.host))
        self.server.start()
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual((states.DEPLOYING, self.manager.host),
                         (stored.provision_state, stored.reservation))
        self.manager.housekeeping.free_abandoned_locks(self.context)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('Conductor test-conductor lost the database (',
                      node.last_error)
        self.assertIn('Connection refused) while', node.last_error)
        self.assertNotIn('sqlalche.me', node.last_error)
        self.assertIn('while the node was deploying (step '
                      'deploy.write_image)', node.last_error)
        # A new deploy runs on the freed node
        self.deploy_interface.running.clear()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.assertTrue(self.deploy_interface.running.wait(10))
        self.wait_for_state(node, states.ACTIVE)

    def test_locks_of_running_work_are_not_freed(self):
        node = self.deploy_until_the_step_runs()
        self.manager.housekeeping.free_abandoned_locks(self.context)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(self.manager.host, stored.reservation)
        self.assertIsNone(stored.last_error)
        self.deploy_interface.finish.set()
        self.wait_for_state(node, states.ACTIVE)

    def test_periodic_tasks_say_the_outage_once_and_its_end(self):
        runs = [run for _spacing, run in
                self.manager.housekeeping.periodic_tasks(self.context)]
        self.server.stop()
        for _ in range(5):
            for run in runs:
                run()
            self.manager._heart.beat()
        self.assertTrue(outage.DATABASE.ongoing)
        self.server.start()
        for run in runs:
            run()
        self.manager._heart.beat()
        self.assertFalse(outage.DATABASE.ongoing)
        output = self.logs.output
        self.assertEqual(1, output.count('The database is unreachable'),
                         output)
        self.assertEqual(1, output.count(
            'The database is reachable again after'), output)
        self.assertNotIn('Traceback', output)
        self.assertNotIn('sqlalche.me', output)

    def wait_until(self, condition, timeout=30):
        deadline = time.monotonic() + timeout
        while not condition():
            self.assertLess(time.monotonic(), deadline, 'never happened')
            time.sleep(0.05)
