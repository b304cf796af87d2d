"""The API through outages of its database and its message broker, and
bursts of connections.

Real processes: ``ironic-steps-api`` (and, for the broker, an
``ironic-steps-conductor``) on the test process's PostgreSQL server and
RabbitMQ broker, which the tests stop and start again (and start at
cleanup, should a test end first), each test with a database
(:mod:`tests.functional.schema`) and a broker virtual host of its own;
the services are forked from the service fork server
(:mod:`tests.functional.service_forkserver`).  While one is down, the API
answers 503 with ``Retry-After`` in Ironic's error format, at once,
changing nothing; it logs the outage once, and once more when it ends; it
serves again when the dependency is back, without a restart.  Fifty
clients connecting at once are all answered, before and during the
outage.  (The all-in-one ``ironic-steps`` is burst in
tests/unit/test_service.py, in process: it serves through the same
server.)
"""

import http.client
import json
import time
import urllib.parse

import fixtures
import testtools

from tests import burst
from tests.functional import fixtures as functional
from tests.functional import rabbitmq
from tests.functional import schema
from tests import postgresql

#: In the database URL; it must never reach a log line or an answer.
PASSWORD = 'never-logged-pw'
#: How long a request may take to be refused while the broker is down:
#: ([DEFAULT] rpc_connect_retries = 1) a try, 1 s, a second try; or, for
#: an API that has never reached the broker, rpc.REPLY_QUEUE_WAIT (2 s).
BROKER_REFUSAL_BOUND = 5.0


def call(endpoint, method, path, body=None):
    """(status, headers, parsed body) of one request, whatever its status."""
    parts = urllib.parse.urlsplit(endpoint)
    connection = http.client.HTTPConnection(parts.hostname, parts.port,
                                            timeout=60)
    try:
        connection.request(
            method, path, body=None if body is None else json.dumps(body),
            headers={'X-OpenStack-Ironic-API-Version': 'latest',
                     'Content-Type': 'application/json'})
        response = connection.getresponse()
        payload = response.read()
        return (response.status, response.headers,
                json.loads(payload) if payload else None)
    finally:
        connection.close()


def fault(answer):
    return json.loads(answer['error_message'])['faultstring']


class OutageTestBase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        postgresql.require(self)
        self.state_path = self.useFixture(fixtures.TempDir()).path

    def start(self, options, *commands_and_hosts):
        """Start (command, host) services with ``options``, in parallel."""
        return self.useFixture(functional.Services(
            self.state_path, options, forked=True)).start(*commands_and_hosts)

    def assertBurstAnswered(self, service, status):
        """50 clients connecting at once all get ``status``, none reset."""
        parts = urllib.parse.urlsplit(service.endpoint)
        outcomes = burst.burst(
            parts.hostname, parts.port, 50,
            b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
        self.assertEqual([('served', status)] * 50,
                         [(o.outcome, o.status) for o in outcomes])

    def assertUnreachable(self, status, headers, answer, fragment):
        self.assertEqual(503, status, answer)
        self.assertEqual('5', headers['Retry-After'])
        self.assertIn(fragment + ' is unreachable', fault(answer))
        self.assertEqual('Server', json.loads(answer['error_message'])[
            'faultcode'])

    def assertLoggedOnce(self, service, dependency):
        log = service.log()
        self.assertEqual(1, log.count('The %s is unreachable' % dependency),
                         log[-3000:])
        self.assertEqual(1, log.count('The %s is reachable again after'
                                      % dependency), log[-3000:])
        self.assertNotIn(PASSWORD, log)
        return log


class DatabaseOutageTest(OutageTestBase):

    def setUp(self):
        super().setUp()
        self.database = postgresql.shared_server()
        url = schema.migrated_database(self.database).replace(
            '//postgres@', '//postgres:%s@' % PASSWORD)
        # The server is the test process's: up again for the next test.
        self.addCleanup(self.database.start)
        self.api, = self.start({'database': {'connection': url}},
                               ('ironic-steps-api', 'api'))

    def test_while_postgresql_is_stopped_the_api_answers_503_then_serves(
            self):
        self.assertBurstAnswered(self.api, 200)
        # When the database stops, every request is answered 503 at once,
        # even fifty at a time
        self.database.stop()
        self.assertBurstAnswered(self.api, 503)
        for _ in range(2):
            started = time.monotonic()
            status, headers, answer = call(self.api.endpoint, 'GET',
                                           '/v1/nodes')
            self.assertUnreachable(status, headers, answer, 'database')
            self.assertLess(time.monotonic() - started, 2)
            self.assertNotIn(PASSWORD, json.dumps(answer))
        # And once it is back, the same API serves again, without a restart
        self.database.start()
        status, _, answer = call(self.api.endpoint, 'GET', '/v1/nodes')
        self.assertEqual(200, status, answer)
        log = self.assertLoggedOnce(self.api, 'database')
        self.assertIn('Connection refused', log)
        self.assertNotIn('Traceback', log)


class BrokerOutageTest(OutageTestBase):

    def setUp(self):
        super().setUp()
        rabbitmq.require(self)
        self.broker = self.useFixture(rabbitmq.VirtualHost())
        url = schema.migrated_database(postgresql.shared_server())
        self.options = {
            'DEFAULT': {'rpc_transport': 'oslo',
                        'transport_url': self.broker.url,
                        # A call the broker lost during the outage is not
                        # waited for a minute.
                        'rpc_response_timeout': 5},
            'database': {'connection': url},
            'fake': {'agent_delay': -1},
            # Consumers reconnect every second, not 1, 3, 7 ... s apart,
            # so that the test does not wait for them once the broker is
            # back. (A call's own tries are one interval apart either way.)
            # (Not rabbitmq.SERVICE_OPTIONS: the heartbeat checks stay
            # oslo.messaging's own, as the outage is what is tested.)
            'oslo_messaging_rabbit': {'rabbit_retry_backoff': 0},
        }
        # The second API never calls before the outage: it has never
        # reached the broker when it is asked to.
        _, self.api, self.late_api = self.start(
            self.options, ('ironic-steps-conductor', 'conductor-1'),
            ('ironic-steps-api', 'api'), ('ironic-steps-api', 'api-2'))

    def manageable_node(self):
        status, _, node = call(self.api.endpoint, 'POST', '/v1/nodes',
                               {'driver': 'fake-hardware', 'name': 'n1'})
        self.assertEqual(201, status, node)
        self.provision('manage')
        return functional.RestClient(self.api.endpoint).wait_for(
            'n1', 'manageable')

    def provision(self, target, endpoint=None):
        return call(endpoint or self.api.endpoint, 'PUT',
                    '/v1/nodes/n1/states/provision', {'target': target})

    def assertRefusedInTime(self, endpoint=None):
        started = time.monotonic()
        status, headers, answer = self.provision('provide', endpoint)
        took = time.monotonic() - started
        self.assertUnreachable(status, headers, answer, 'message broker')
        self.assertLess(took, BROKER_REFUSAL_BOUND)
        return took

    def test_while_rabbitmq_is_stopped_a_provision_is_503_at_once_and_undone(
            self):
        before = self.manageable_node()
        # When the broker stops, a provision request is refused quickly
        self.broker.stop_app()
        for _ in range(2):
            self.assertRefusedInTime()
        # And an API that never reached the broker is not held either
        self.assertRefusedInTime(self.late_api.endpoint)
        # And nothing was done to the node
        _, _, node = call(self.api.endpoint, 'GET', '/v1/nodes/n1')
        for field in ('provision_state', 'target_provision_state',
                      'last_error', 'reservation', 'provision_updated_at'):
            self.assertEqual(before[field], node[field], field)
        # Then once the broker is back, the same request goes through. (A
        # call sent while the conductor or the reply queue is still
        # reconnecting can time out, 503 saying it may have been carried
        # out: then the node shows it was, and the retry is refused 400.)
        self.broker.start_app()
        deadline = time.monotonic() + 40
        answers = []
        while time.monotonic() < deadline:
            status, _, answer = self.provision('provide')
            answers.append((status, answer))
            if status == 202:
                break
            if status == 400 and len(answers) > 1 and answers[-2][0] == 503:
                self.assertIn('may or may not', str(answers[-2][1]))
                break
            self.assertEqual(503, status, answer)
            time.sleep(0.5)
        self.assertIn(status, (202, 400), answers)
        functional.RestClient(self.api.endpoint).wait_for('n1', 'available')
        self.assertLoggedOnce(self.api, 'message broker')
