"""Stopping the service, gently or not, loses nothing."""

import signal
import time

import testtools

from tests.functional import fixtures as functional


class ServiceLifecycleTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        # Slow steps, and no fake agent: the test decides when to resume.
        self.options = {'fake': {'step_delay': 1.0, 'agent_delay': -1},
                        'conductor': {'node_locked_retry_interval': 0.1}}
        self.service = self.useFixture(
            functional.AllInOneService(self.options))
        self.api = functional.RestClient(self.service.endpoint)

    def available_node(self):
        _status, node = self.api.request('POST', '/v1/nodes',
                                         {'driver': 'fake-hardware'})
        for target, state in (('manage', 'manageable'),
                              ('provide', 'available')):
            self.api.request('PUT', '/v1/nodes/%s/states/provision'
                             % node['uuid'], {'target': target})
            self.api.wait_for(node['uuid'], state)
        return node['uuid']

    def restart(self, signum):
        self.service.process.send_signal(signum)
        self.service.process.wait(timeout=60)
        self.service = self.useFixture(functional.ServiceProcess(
            'ironic-steps', self.options,
            state_path=self.service.state_path))
        self.api = functional.RestClient(self.service.endpoint)

    def start_deploy(self, node):
        """Deploy, and return once deploy.deploy (1 s long) is running."""
        self.api.request('PUT', '/v1/nodes/%s/states/provision' % node,
                         {'target': 'active'})
        deadline = time.monotonic() + 10
        while (self.api.node(node).get('deploy_step') or {}).get(
                'step') != 'deploy':
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)

    def test_sigterm_lets_the_running_step_finish_and_the_deploy_resumes(self):
        node = self.available_node()
        self.start_deploy(node)
        # Stopped while deploy.deploy runs (it takes a second).
        self.restart(signal.SIGTERM)
        self.assertEqual(0, self.service.process.poll() or 0)
        stopped = self.api.node(node)
        self.assertEqual('wait call-back', stopped['provision_state'])
        self.assertIsNone(stopped['reservation'])
        self.assertEqual('write_image', stopped['deploy_step']['step'])
        # The agent calls back to the restarted service: the deploy ends.
        self.api.agent_heartbeat(node)
        done = self.api.wait_for(node, 'active')
        self.assertIsNone(done['last_error'])

    def test_a_crash_mid_step_is_failed_cleanly_on_the_next_start(self):
        node = self.available_node()
        self.start_deploy(node)
        self.restart(signal.SIGKILL)
        crashed = self.api.node(node)
        self.assertEqual('deploy failed', crashed['provision_state'])
        self.assertIsNone(crashed['reservation'])
        self.assertIn('restarted while the node was deploying',
                      crashed['last_error'])
        self.assertIn('deploy.deploy', crashed['last_error'])
        # The operator can deploy it again.
        self.options['fake']['agent_delay'] = 0
        self.api.request('PUT', '/v1/nodes/%s/states/provision' % node,
                         {'target': 'active'})
        self.assertEqual('deploying', self.api.node(node)[
            'provision_state'])
