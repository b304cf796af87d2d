"""The distributed mode on a bad day, with real processes: three
conductors and an API on one database server and a real RabbitMQ; a
conductor killed with SIGKILL mid-deploy, the database stopped
mid-deploy, RabbitMQ restarted mid-deploy, fifty clients connecting at
once mid-deploy.  The deploy flows run on PostgreSQL and on MariaDB.

What must hold each time: every node ends ``active`` or failed with a
reason, none stays in a working or waiting state, none is left locked,
and what failed deploys again without restarting anything.

The servers are the test process's own (one broker, one server of each
database kind): each test has a fresh virtual host on the broker
(:class:`tests.functional.rabbitmq.VirtualHost`) and a fresh migrated
database (:mod:`tests.functional.schema`).  A test that stops the broker
or the database server has it started again at its cleanup.  The service
processes are forked from the test process's service fork server
(:mod:`tests.functional.service_forkserver`): the console scripts' own
entry points, without their seconds of imports.
"""

import time
import urllib.parse

import fixtures
import testtools

from tests import burst
from tests.functional import fixtures as functional
from tests.functional import rabbitmq
from tests.functional import schema
from tests.functional import test_api_outages
from tests.functional import test_rolling_upgrade
from tests import mariadb
from tests import postgresql

A, B, C = 'conductor-a', 'conductor-b', 'conductor-c'
CONDUCTORS = (A, B, C)
SETTLED = ('active', 'deploy failed')
WORKING = ('deploying', 'wait call-back')
#: Seconds without a heartbeat after which a conductor counts as dead.
HEARTBEAT_TIMEOUT = 4
#: Tests whose services see the broker go away: they keep oslo.messaging's
#: own heartbeat checks (rabbitmq.SERVICE_OPTIONS checks the connection
#: twenty times as often, and a check that finds the broker gone
#: reconnects, holding the connection: not what a deployment does).
STOP_THE_BROKER = ('test_a_rabbitmq_restart_mid_deploy_leaves_no_node_stuck',)


def owned_by(owner, count):
    return test_rolling_upgrade.uuids_owned_by(list(CONDUCTORS), owner,
                                               count)


class DeployFaults:
    """The faults every database server goes through (a mixin of
    test cases, one per server)."""

    #: The :class:`tests.database_servers.DatabaseServer` under test.
    database_server = None

    def setUp(self):
        super().setUp()
        rabbitmq.require(self)
        self.database_server.require(self)
        self.broker = self.useFixture(rabbitmq.VirtualHost())
        self.database = self.database_server.shared()
        url = schema.migrated_database(self.database)
        state_path = self.useFixture(fixtures.TempDir()).path
        options = {
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
        if self._testMethodName not in STOP_THE_BROKER:
            options['oslo_messaging_rabbit'] = dict(rabbitmq.SERVICE_OPTIONS)
        services = self.useFixture(functional.Services(state_path, options,
                                                       forked=True))
        started = services.start(
            *[('ironic-steps-conductor', host) for host in CONDUCTORS],
            ('ironic-steps-api', 'api'))
        self.conductors = dict(zip(CONDUCTORS, started))
        self.api_service = started[-1]
        self.api = functional.RestClient(self.api_service.endpoint)

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

    def deploy_mid_flight(self, node_uuids):
        """Start deploying ``node_uuids``; return once one is working."""
        self.api.enrol_available(node_uuids)
        self.deploy(node_uuids)
        self.wait_until(lambda: any(
            self.api.node(node_uuid)['provision_state'] in WORKING
            for node_uuid in node_uuids))

    def assertFailedDeploysSucceedAgain(self, nodes):
        failed = [node['uuid'] for node in nodes
                  if node['provision_state'] == 'deploy failed']
        self.deploy(failed)
        for node in self.settle(failed, timeout=60):
            self.assertEqual('active', node['provision_state'],
                             node['last_error'])

    def test_a_conductor_killed_mid_deploy_leaves_no_node_stuck(self):
        on_a, elsewhere = owned_by(A, 6), owned_by(B, 2) + owned_by(C, 2)
        self.api.enrol_available(on_a + elsewhere)
        self.deploy(on_a + elsewhere)
        # Kill A while some of its nodes wait for their agent
        self.wait_until(lambda: any(
            self.api.node(node_uuid)['provision_state'] == 'wait call-back'
            for node_uuid in on_a))
        self.conductors[A].kill()
        killed_at = time.monotonic()
        waiting = [node_uuid for node_uuid in on_a
                   if self.api.node(node_uuid)['provision_state']
                   == 'wait call-back']
        nodes = self.settle(on_a + elsewhere, timeout=60)
        settled_in = time.monotonic() - killed_at
        for node in nodes:
            if node['provision_state'] == 'deploy failed':
                # It was mid-step on A: failed where it stood, saying why
                self.assertIn(A, node['last_error'])
                self.assertIn('stopped heartbeating', node['last_error'])
        # The agents of the nodes waiting on A went on, elsewhere
        by_uuid = {node['uuid']: node for node in nodes}
        for node_uuid in waiting + elsewhere:
            self.assertEqual('active', by_uuid[node_uuid]['provision_state'],
                             by_uuid[node_uuid]['last_error'])
        # Not after the call-back timeout (30 minutes): after the dead
        # conductor's heartbeats are missed
        self.assertLess(settled_in, HEARTBEAT_TIMEOUT + 20)
        self.assertFailedDeploysSucceedAgain(nodes)

    def test_a_rabbitmq_restart_mid_deploy_leaves_no_node_stuck(self):
        node_uuids = [node_uuid for host in CONDUCTORS
                      for node_uuid in owned_by(host, 3)]
        self.deploy_mid_flight(node_uuids)
        self.broker.stop_app()
        time.sleep(5)
        self.broker.start_app()
        # A request at once is answered within seconds, taken by a
        # conductor or refused saying why, never left waiting for an answer
        # (before the conductors declare their queues again, the broker
        # drops what nobody takes, unless it is sent mandatory)
        started = time.monotonic()
        status, headers, answer = test_api_outages.call(
            self.api.endpoint, 'POST', '/v1/nodes',
            {'driver': 'fake-hardware'})
        self.assertLess(time.monotonic() - started, 10)
        if status != 201:
            self.assertEqual(503, status, answer)
            self.assertIn('Retry-After', headers)
        nodes = self.settle(node_uuids, timeout=90)
        for node in nodes:
            if node['provision_state'] == 'deploy failed':
                self.assertTrue(node['last_error'])
        # The conductors reconnected by themselves: each one's nodes
        # deploy through it again, with nothing restarted.
        self.assertFailedDeploysSucceedAgain(nodes)
        redeployed = owned_by(A, 1) + owned_by(B, 1) + owned_by(C, 1)
        self.api.enrol_available(redeployed)
        self.deploy(redeployed)
        for node in self.settle(redeployed, timeout=60):
            self.assertEqual('active', node['provision_state'],
                             node['last_error'])
        for service in self.conductors.values():
            self.assertNotIn('Traceback', service.log())

    def test_fifty_clients_connecting_at_once_mid_deploy_are_all_served(
            self):
        node_uuids = owned_by(A, 3) + owned_by(B, 3) + owned_by(C, 3)
        self.deploy_mid_flight(node_uuids)
        endpoint = urllib.parse.urlsplit(self.api_service.endpoint)
        outcomes = burst.burst(
            endpoint.hostname, endpoint.port, 50,
            b'GET /v1/nodes?detail=True HTTP/1.1\r\nHost: t\r\n'
            b'X-OpenStack-Ironic-API-Version: latest\r\n'
            b'Connection: close\r\n\r\n')
        self.assertEqual([('served', 200)] * 50,
                         [(o.outcome, o.status) for o in outcomes])
        for node in self.settle(node_uuids, timeout=60):
            self.assertEqual('active', node['provision_state'],
                             node['last_error'])

    def wait_until(self, condition, timeout=60):
        deadline = time.monotonic() + timeout
        while not condition():
            self.assertLess(time.monotonic(), deadline, 'never happened')
            time.sleep(0.1)


class FaultsOnPostgreSQLTest(DeployFaults, testtools.TestCase):

    database_server = postgresql.PostgreSQLServer

    def test_a_database_outage_mid_deploy_leaves_no_node_stuck(self):
        node_uuids = [node_uuid for host in CONDUCTORS
                      for node_uuid in owned_by(host, 3)]
        self.api.enrol_available(node_uuids)
        self.deploy(node_uuids)
        self.wait_until(lambda: any(
            self.api.node(node_uuid)['provision_state'] == 'deploying'
            for node_uuid in node_uuids))
        # The server is the test process's: up again for the next test.
        self.addCleanup(self.database.start)
        self.database.stop()
        time.sleep(6)
        self.database.start()
        back_at = time.monotonic()
        nodes = self.settle(node_uuids, timeout=90)
        settled_in = time.monotonic() - back_at
        for node in nodes:
            if node['provision_state'] == 'deploy failed':
                self.assertIn('lost the database', node['last_error'])
        # The conductors are still alive: nobody took another over
        for node in nodes:
            self.assertNotIn('stopped heartbeating', node['last_error'] or '')
        self.assertLess(settled_in, 60)
        for service in self.conductors.values():
            self.assertNotIn('Traceback', service.log())
        self.assertFailedDeploysSucceedAgain(nodes)


class FaultsOnMariaDBTest(DeployFaults, testtools.TestCase):

    database_server = mariadb.MariaDBServer
