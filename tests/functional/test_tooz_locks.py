"""A deploy through the all-in-one service with its node locks in Redis.

The service is forked from the service fork server
(:mod:`tests.functional.service_forkserver`).
"""

import time

import redis
import testtools

from tests.functional import fixtures as functional
from tests import lock_servers


class ToozLocksOnRedisTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        lock_servers.RedisServer.require(self)
        self.redis_server = self.useFixture(lock_servers.RedisServer())
        self.redis = redis.Redis(host='127.0.0.1',
                                 port=self.redis_server.port)
        service = self.useFixture(functional.AllInOneService({
            'conductor': {'lock_backend': 'tooz',
                          'lock_backend_url': self.redis_server.url,
                          'node_locked_retry_interval': 0.1},
            # Steps long enough to look at the lock while they run.
            'fake': {'agent_delay': 0, 'step_delay': 1.5}}, forked=True))
        self.client = functional.OpenStackClient(service.endpoint)
        # The CLI takes seconds per call here: too slow to watch a step.
        self.rest = functional.RestClient(service.endpoint)

    def wait_until_settled(self, name, timeout):
        deadline = time.monotonic() + timeout
        while True:
            node = self.client.json('node', 'show', name)
            if node['provision_state'] in ('active', 'deploy failed'):
                return node
            self.assertLess(time.monotonic(), deadline,
                            'node %s never settled: %s' % (name, node))
            time.sleep(0.5)

    def lock_keys(self, node_uuid):
        return self.redis.keys('*ironic-steps-node-%s*' % node_uuid)

    def test_a_deploy_holds_its_lock_in_redis_and_shows_its_holder(self):
        node = self.client.json('node', 'create', '--driver',
                                'fake-hardware', '--name', 'node-1')
        self.client.run('node', 'manage', 'node-1', '--wait', '30')
        self.client.run('node', 'provide', 'node-1', '--wait', '60')
        self.assertEqual([], self.lock_keys(node['uuid']))

        self.client.run('node', 'deploy', 'node-1')
        deadline = time.monotonic() + 30
        while True:
            shown = self.rest.node('node-1')
            keys = self.lock_keys(node['uuid'])
            if shown['provision_state'] == 'deploying' and keys:
                break
            self.assertLess(time.monotonic(), deadline,
                            'never saw the deploy hold its lock: %s' % shown)
            time.sleep(0.05)
        # The lock service holds the lock, the column names its holder.
        self.assertEqual('functional-conductor', shown['reservation'])
        # With a lease, which its holder renews.
        self.assertGreater(self.redis.pttl(keys[0]), 0)

        done = self.wait_until_settled('node-1', timeout=60)
        self.assertEqual('active', done['provision_state'], done)
        self.assertIsNone(done['reservation'])
        self.assertIsNone(done['last_error'])
        self.assertEqual([], self.lock_keys(node['uuid']))
