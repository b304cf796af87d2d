"""The distributed mode on a bad day, with real processes: conductors and
an API on one PostgreSQL database and a real RabbitMQ; a conductor killed
with SIGKILL mid-deploy, the database stopped mid-deploy.

What must hold each time: every node ends ``active`` or failed with a
reason, none stays in a working or waiting state, none is left locked.
"""

import os
import subprocess
import time

import fixtures
import testtools

from tests.functional import fixtures as functional
from tests.functional import rabbitmq
from tests.functional import test_rolling_upgrade
from tests import postgresql

A, B = 'conductor-a', 'conductor-b'
SETTLED = ('active', 'deploy failed')
#: Seconds without a heartbeat after which a conductor counts as dead.
HEARTBEAT_TIMEOUT = 4


class FaultsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if not rabbitmq.available():
            if os.environ.get('CI'):
                self.fail('RabbitMQ is required in CI (.ci/run installs it)')
            self.skipTest('RabbitMQ is not installed (apt-get install '
                          'rabbitmq-server)')
        postgresql.require(self)
        self.broker = self.useFixture(rabbitmq.RabbitMQServer())
        self.database = self.useFixture(postgresql.PostgreSQLServer())
        url = self.database.url()
        self.state_path = self.useFixture(fixtures.TempDir()).path
        self.options = {
            'DEFAULT': {'rpc_transport': 'oslo',
                        'transport_url': self.broker.url},
            'database': {'connection': url},
            # Steps long enough to be caught in the middle; the agent
            # takes a while to write the image.
            'fake': {'step_delay': 0.3, 'agent_delay': 2},
            'conductor': {'heartbeat_interval': 1,
                          'heartbeat_timeout': HEARTBEAT_TIMEOUT,
                          'hash_ring_reset_interval': 1,
                          'node_locked_retry_interval': 0.1},
        }
        config = os.path.join(self.state_path, 'dbsync.conf')
        with open(config, 'w') as conf:
            conf.write('[DEFAULT]\nstate_path = %s\n[database]\n'
                       'connection = %s\n' % (self.state_path, url))
        subprocess.run(
            [os.path.join(functional.BIN, 'ironic-steps-dbsync'),
             '--config-file', config, 'upgrade'],
            check=True, capture_output=True)
        self.conductors = {host: self.start('ironic-steps-conductor', host)
                           for host in (A, B)}
        self.api = functional.RestClient(
            self.start('ironic-steps-api', 'api').endpoint)

    def start(self, command, host):
        return self.useFixture(functional.ServiceProcess(
            command, self.options, state_path=self.state_path, host=host))

    def settle(self, node_uuids, timeout):
        """Wait until every node rests, unlocked; their records."""
        deadline = time.monotonic() + timeout
        while True:
            nodes = [self.api.node(node_uuid) for node_uuid in node_uuids]
            if all(node['provision_state'] in SETTLED
                   and not node['reservation'] for node in nodes):
                return nodes
            if time.monotonic() > deadline:
                self.fail('not settled after %s s: %s' % (timeout, [
                    (node['uuid'], node['provision_state'],
                     node['reservation'], node['last_error'])
                    for node in nodes]))
            time.sleep(0.2)

    def deploy(self, node_uuids):
        for node_uuid in node_uuids:
            self.api.request('PUT', '/v1/nodes/%s/states/provision'
                             % node_uuid, {'target': 'active'})

    def test_a_conductor_killed_mid_deploy_leaves_no_node_stuck(self):
        on_a = test_rolling_upgrade.uuids_owned_by([A, B], A, 6)
        on_b = test_rolling_upgrade.uuids_owned_by([A, B], B, 2)
        self.api.enrol_available(on_a + on_b)
        self.deploy(on_a + on_b)
        # Kill A while some of its nodes wait for their agent
        self.wait_until(lambda: any(
            self.api.node(node_uuid)['provision_state'] == 'wait call-back'
            for node_uuid in on_a))
        self.conductors[A].kill()
        killed_at = time.monotonic()
        waiting = [node_uuid for node_uuid in on_a
                   if self.api.node(node_uuid)['provision_state']
                   == 'wait call-back']
        nodes = self.settle(on_a + on_b, timeout=60)
        settled_in = time.monotonic() - killed_at
        for node in nodes:
            if node['provision_state'] == 'deploy failed':
                # It was mid-step on A: failed where it stood, saying why
                self.assertIn(A, node['last_error'])
                self.assertIn('stopped heartbeating', node['last_error'])
        # The agents of the nodes waiting on A went on, to B
        by_uuid = {node['uuid']: node for node in nodes}
        for node_uuid in waiting:
            self.assertEqual('active', by_uuid[node_uuid]['provision_state'],
                             by_uuid[node_uuid]['last_error'])
        for node_uuid in on_b:
            self.assertEqual('active', by_uuid[node_uuid]['provision_state'])
        # Not after the call-back timeout (30 minutes): after the dead
        # conductor's heartbeats are missed
        self.assertLess(settled_in, HEARTBEAT_TIMEOUT + 20)
        # What failed deploys again, on B
        failed = [node['uuid'] for node in nodes
                  if node['provision_state'] == 'deploy failed']
        self.deploy(failed)
        for node in self.settle(failed, timeout=60):
            self.assertEqual('active', node['provision_state'])

    def test_a_database_outage_mid_deploy_leaves_no_node_stuck(self):
        node_uuids = (test_rolling_upgrade.uuids_owned_by([A, B], A, 4)
                      + test_rolling_upgrade.uuids_owned_by([A, B], B, 4))
        self.api.enrol_available(node_uuids)
        self.deploy(node_uuids)
        self.wait_until(lambda: any(
            self.api.node(node_uuid)['provision_state'] == 'deploying'
            for node_uuid in node_uuids))
        self.database.stop()
        time.sleep(6)
        self.database.start()
        back_at = time.monotonic()
        nodes = self.settle(node_uuids, timeout=90)
        settled_in = time.monotonic() - back_at
        for node in nodes:
            if node['provision_state'] == 'deploy failed':
                self.assertIn('lost the database', node['last_error'])
        # Both conductors are still alive: nobody took the other over
        for node in nodes:
            self.assertNotIn('stopped heartbeating', node['last_error'] or '')
        self.assertLess(settled_in, 60)
        for service in self.conductors.values():
            self.assertNotIn('Traceback', service.log())

    def wait_until(self, condition, timeout=60):
        deadline = time.monotonic() + timeout
        while not condition():
            self.assertLess(time.monotonic(), deadline, 'never happened')
            time.sleep(0.1)
