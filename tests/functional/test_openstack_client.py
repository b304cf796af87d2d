"""An operator drives the real service with the real `openstack` CLI."""

import time

import testtools

from tests.functional import fixtures as functional


class OpenStackClientTest(testtools.TestCase):

    def start_service(self, **fake_options):
        fake = {'agent_delay': 0, **fake_options}
        service = self.useFixture(functional.AllInOneService(
            {'fake': fake, 'conductor': {'node_locked_retry_interval': 0.1}}))
        return service, functional.OpenStackClient(service.endpoint)

    def enrol_and_provide(self, client, name, *create_args):
        created = client.json('node', 'create', '--driver', 'fake-hardware',
                              '--name', name, *create_args)
        self.assertEqual('enroll', created['provision_state'])
        client.run('node', 'manage', name, '--wait', '30')
        client.run('node', 'provide', name, '--wait', '30')
        self.assertEqual('available',
                         client.json('node', 'show', name)['provision_state'])
        return created

    def wait_for(self, client, name, predicate, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            node = client.json('node', 'show', name)
            if predicate(node):
                return node
            if time.monotonic() > deadline:
                self.fail('node %s never matched; last seen %s' % (name, node))
            time.sleep(0.2)

    def test_deploy_shows_the_running_step_then_ends_active(self):
        # The fake agent takes 8 s: long enough to see the waiting step
        # even when each CLI call takes seconds on a loaded machine.
        service, client = self.start_service(agent_delay=8)
        created = self.enrol_and_provide(client, 'node-1')
        self.assertEqual({}, created['deploy_step'])
        listed = client.json('node', 'list')
        self.assertEqual(['node-1'], [node['name'] for node in listed])

        client.run('node', 'deploy', 'node-1')
        waiting = self.wait_for(
            client, 'node-1',
            lambda node: node['provision_state'] == 'wait call-back')
        self.assertEqual('write_image', waiting['deploy_step']['step'])
        self.assertEqual('deploy', waiting['deploy_step']['interface'])
        self.assertEqual(1, waiting['driver_internal_info'][
            'deploy_step_index'])
        self.assertEqual(5, len(waiting['driver_internal_info'][
            'deploy_steps']))

        done = self.wait_for(
            client, 'node-1', lambda node: node['provision_state'] == 'active')
        self.assertEqual({}, done['deploy_step'])
        self.assertEqual('power on', done['power_state'])
        self.assertNotIn('deploy_steps', done['driver_internal_info'])

        old = functional.OpenStackClient(service.endpoint, api_version='1.43')
        shown = old.json('node', 'show', 'node-1')
        self.assertNotIn('deploy_step', shown)
        self.assertEqual('active', shown['provision_state'])

    def test_failed_deploy_names_the_failed_step(self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'bad-node', '--driver-info',
                               'fake_fail_step=boot.prepare_instance_boot')
        result = client.run('node', 'deploy', 'bad-node', '--wait', '30',
                            check=False)
        self.assertNotEqual(0, result.returncode)
        node = client.json('node', 'show', 'bad-node')
        self.assertEqual('deploy failed', node['provision_state'])
        self.assertEqual('prepare_instance_boot', node['deploy_step']['step'])
        self.assertIn('boot.prepare_instance_boot', node['last_error'])

    def test_client_prints_readable_errors(self):
        _service, client = self.start_service()
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'new-node')
        illegal = client.run('node', 'deploy', 'new-node', check=False)
        self.assertNotEqual(0, illegal.returncode)
        self.assertIn("'deploy'", illegal.stderr)
        self.assertIn("'enroll'", illegal.stderr)
        self.assertNotIn('Traceback', illegal.stderr)

        unknown = client.run('node', 'show', 'no-such-node', check=False)
        self.assertNotEqual(0, unknown.returncode)
        self.assertIn('no-such-node', unknown.stderr)
        self.assertIn('could not be found', unknown.stderr)

        driver = client.run('node', 'create', '--driver', 'no-such-driver',
                            check=False)
        self.assertNotEqual(0, driver.returncode)
        self.assertIn('no-such-driver', driver.stderr)
