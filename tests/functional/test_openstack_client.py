"""An operator drives the real service with the real `openstack` CLI."""

import json
import time

import fixtures
import testtools

from tests.functional import fixtures as functional


class CLITestCase(testtools.TestCase):
    """An all-in-one service and the real CLI against it."""

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


class OpenStackClientTest(CLITestCase):

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


class OperatorChoosesStepsTest(CLITestCase):
    """The `openstack baremetal` commands that choose, run and stop steps."""

    BIOS = [{'interface': 'bios', 'step': 'apply_configuration',
             'priority': 95, 'args': {'settings': [
                 {'name': 'LogicalProc', 'value': 'Enabled'}]}}]
    RAID = [{'interface': 'raid', 'step': 'apply_configuration',
             'priority': 90, 'args': {'raid_config': {'logical_disks': [
                 {'size_gb': 50, 'raid_level': '1'}]}}}]

    def deploy_steps_file(self):
        path = self.useFixture(fixtures.TempDir()).join('steps.json')
        with open(path, 'w') as f:
            json.dump(self.RAID, f)
        return path

    def test_deploy_and_rebuild_run_the_requested_steps(self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'node-1')
        client.run('node', 'deploy', 'node-1', '--deploy-steps',
                   json.dumps(self.BIOS), '--wait', '60')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('active', node['provision_state'])
        self.assertEqual(self.BIOS[0]['args']['settings'],
                         node['driver_internal_info']['fake_bios_settings'])
        self.assertNotIn('fake_raid_config', node['driver_internal_info'])

        client.run('node', 'rebuild', 'node-1', '--deploy-steps',
                   self.deploy_steps_file(), '--wait', '60')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('active', node['provision_state'])
        self.assertEqual(self.RAID[0]['args']['raid_config'],
                         node['driver_internal_info']['fake_raid_config'])

    def test_a_step_the_node_does_not_offer_is_refused_and_nothing_moves(
            self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'node-1')
        typo = [dict(self.RAID[0], step='apply_configuraton')]
        result = client.run('node', 'deploy', 'node-1', '--deploy-steps',
                            json.dumps(typo), check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('raid.apply_configuraton', result.stderr)
        self.assertIn('offers no deploy step', result.stderr)
        self.assertEqual('available', client.json(
            'node', 'show', 'node-1')['provision_state'])

    def test_manual_clean_runs_the_given_steps_back_to_manageable(self):
        _service, client = self.start_service()
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'node-1')
        client.run('node', 'manage', 'node-1', '--wait', '30')
        client.run('node', 'clean', 'node-1', '--clean-steps', json.dumps(
            [{'interface': 'deploy', 'step': 'erase_devices_metadata'},
             {'interface': 'deploy', 'step': 'erase_devices',
              'args': {'passes': 3}}]), '--wait', '60')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('manageable', node['provision_state'])
        self.assertEqual(3, node['driver_internal_info'][
            'fake_erase_passes'])

    def test_abort_stops_a_clean_waiting_for_its_agent(self):
        _service, client = self.start_service(agent_delay=-1)
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'node-1')
        client.run('node', 'manage', 'node-1', '--wait', '30')
        client.run('node', 'clean', 'node-1', '--clean-steps', json.dumps(
            [{'interface': 'deploy', 'step': 'erase_devices'}]))
        self.wait_for(client, 'node-1',
                      lambda node: node['provision_state'] == 'clean wait')
        client.run('node', 'abort', 'node-1')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('clean failed', node['provision_state'])
        self.assertIn('aborted by request', node['last_error'])
        self.assertEqual('erase_devices', node['clean_step']['step'])
