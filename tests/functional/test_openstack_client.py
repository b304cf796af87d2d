"""An operator drives the real service with the real `openstack` CLI."""

import json
import time
import urllib.error

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

    def manageable(self, client, name, *create_args):
        """Enrol a fake-hardware node ``name`` and manage it."""
        created = client.json('node', 'create', '--driver', 'fake-hardware',
                              '--name', name, *create_args)
        client.run('node', 'manage', name, '--wait', '30')
        return created

    def enrol_and_provide(self, client, name, *create_args):
        created = client.json('node', 'create', '--driver', 'fake-hardware',
                              '--name', name, *create_args)
        self.assertEqual('enroll', created['provision_state'])
        client.run('node', 'manage', name, '--wait', '30')
        client.run('node', 'provide', name, '--wait', '30')
        self.assertEqual('available',
                         client.json('node', 'show', name)['provision_state'])
        return created

    def failed_deploy(self, client, name, step='boot.prepare_instance_boot'):
        """Enrol ``name``, make it available and deploy it, ``step``
        failing (``fake_fail_step``): the node once ``deploy failed``."""
        self.enrol_and_provide(client, name, '--driver-info',
                               'fake_fail_step=%s' % step)
        client.run('node', 'deploy', name, '--wait', '30', check=False)
        return self.wait_for(
            client, name,
            lambda node: node['provision_state'] == 'deploy failed')

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


class BIOSSettingsTest(CLITestCase):
    """`openstack baremetal node bios setting list|show` against the
    settings BIOS steps cache."""

    SETTINGS = [{'name': 'LogicalProc', 'value': 'Enabled'},
                {'name': 'BootMode', 'value': 'Uefi'}]
    APPLY = [{'interface': 'bios', 'step': 'apply_configuration',
              'priority': 95, 'args': {'settings': SETTINGS}}]

    def listed(self, client, name):
        return {s['name']: s['value'] for s in client.json(
            'node', 'bios', 'setting', 'list', name)}

    def test_a_deploy_applying_settings_shows_them_a_reset_clears_them(
            self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'node-1')
        # A fake node starts with no cached settings.
        self.assertEqual({}, self.listed(client, 'node-1'))
        client.run('node', 'deploy', 'node-1', '--deploy-steps',
                   json.dumps(self.APPLY), '--wait', '60')
        self.assertEqual('active', client.json(
            'node', 'show', 'node-1')['provision_state'])
        self.assertEqual({'LogicalProc': 'Enabled', 'BootMode': 'Uefi'},
                         self.listed(client, 'node-1'))
        # --long (API 1.74) adds what the fake BMC's registry says of them.
        detailed = {s['name']: s for s in client.json(
            'node', 'bios', 'setting', 'list', 'node-1', '--long')}
        self.assertEqual(
            {'name': 'BootMode', 'value': 'Uefi',
             'attribute_type': 'Enumeration',
             'allowable_values': ['Uefi', 'Bios'], 'lower_bound': None,
             'min_length': None, 'max_length': None, 'read_only': False,
             'reset_required': True, 'unique': False, 'upper_bound': None},
            detailed['BootMode'])
        shown = client.json('node', 'bios', 'setting', 'show', 'node-1',
                            'BootMode')
        self.assertEqual('BootMode', shown['name'])
        self.assertEqual('Uefi', shown['value'])
        self.assertIsNotNone(shown['created_at'])
        self.assertIsNone(shown['updated_at'])
        self.assertNotIn('links', shown)
        missing = client.run('node', 'bios', 'setting', 'show', 'node-1',
                             'NoSuchSetting', check=False)
        self.assertNotEqual(0, missing.returncode)
        self.assertIn("no BIOS setting 'NoSuchSetting'", missing.stderr)

        # A rebuild resetting them leaves none (the node named by UUID
        # this time, as the CLI takes either).
        client.run('node', 'rebuild', 'node-1', '--deploy-steps', json.dumps(
            [{'interface': 'bios', 'step': 'factory_reset', 'args': {},
              'priority': 95}]), '--wait', '60')
        uuid = client.json('node', 'show', 'node-1')['uuid']
        self.assertEqual({}, self.listed(client, uuid))

    def test_pinned_to_0_3_the_settings_are_refused_and_none_cached(self):
        # Given an all-in-one service still pinned to release 0.3
        state_path = self.useFixture(fixtures.TempDir()).path
        options = {'fake': {'agent_delay': 0},
                   'conductor': {'node_locked_retry_interval': 0.1}}
        pinned = self.useFixture(functional.ServiceProcess(
            options=dict(options, DEFAULT={'pin_release_version': '0.3'}),
            state_path=state_path))
        client = functional.OpenStackClient(pinned.endpoint)
        self.enrol_and_provide(client, 'node-1')
        # When a deploy applies BIOS settings, it runs as before
        client.run('node', 'deploy', 'node-1', '--deploy-steps',
                   json.dumps(self.APPLY), '--wait', '60')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('active', node['provision_state'])
        self.assertEqual(self.SETTINGS,
                         node['driver_internal_info']['fake_bios_settings'])
        # but the settings cannot be read while pinned: 406, which the CLI
        # (as for any 406) reports as a version it could not negotiate,
        refused = client.run('node', 'bios', 'setting', 'list', 'node-1',
                             check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('API version', refused.stderr)
        # and whose body says why.
        error = self.assertRaises(
            urllib.error.HTTPError, functional.RestClient(
                pinned.endpoint).request, 'GET', '/v1/nodes/node-1/bios')
        self.assertEqual(406, error.code)
        fault = json.loads(json.loads(error.read())['error_message'])
        self.assertIn('BIOS settings needs release 0.4', fault['faultstring'])
        self.assertIn('pinned to release 0.3', fault['faultstring'])
        # Then, unpinned, none had been written
        pinned.stop()
        service = self.useFixture(functional.ServiceProcess(
            options=options, state_path=state_path))
        client = functional.OpenStackClient(service.endpoint)
        self.assertEqual({}, self.listed(client, 'node-1'))
        # and the next BIOS step caches what it applies.
        client.run('node', 'rebuild', 'node-1', '--deploy-steps',
                   json.dumps(self.APPLY), '--wait', '60')
        self.assertEqual({'LogicalProc': 'Enabled', 'BootMode': 'Uefi'},
                         self.listed(client, 'node-1'))


class StepsAcrossTheFlowTest(CLITestCase):
    """Reserved steps and the operator's disallow list, with the real CLI."""

    def test_reserved_steps_run_and_disallowed_steps_are_refused(self):
        service = self.useFixture(functional.AllInOneService({
            'fake': {'agent_delay': 0},
            'conductor': {'node_locked_retry_interval': 0.1,
                          'step_poll_interval': 0.5},
            'api': {'disallow_deploy_steps': 'bios.factory_reset'}}))
        client = functional.OpenStackClient(service.endpoint)
        self.enrol_and_provide(client, 'node-1')
        self.enrol_and_provide(client, 'node-2')
        # An operator reboots the machine and lets it settle a second
        # before the image is written.
        client.run('node', 'deploy', 'node-1', '--deploy-steps', json.dumps([
            {'interface': 'power', 'step': 'reboot', 'priority': 95,
             'args': {}},
            {'interface': 'deploy', 'step': 'wait', 'priority': 90,
             'args': {'seconds': 1}}]), '--wait', '60')
        self.assertEqual('active', client.json(
            'node', 'show', 'node-1')['provision_state'])
        ran = [entry['Step'] for entry in client.json(
            'node', 'step', 'history', 'node-1', '--flow', 'deploy')]
        self.assertEqual(['deploy.deploy', 'power.reboot', 'deploy.wait',
                          'deploy.write_image'], ran[:4])
        # A step the operator disallows is refused, and nothing moves.
        result = client.run('node', 'deploy', 'node-2', '--deploy-steps',
                            json.dumps([{'interface': 'bios',
                                         'step': 'factory_reset',
                                         'priority': 95, 'args': {}}]),
                            check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('bios.factory_reset is not allowed', result.stderr)
        self.assertIn('[api] disallow_deploy_steps', result.stderr)
        self.assertEqual('available', client.json(
            'node', 'show', 'node-2')['provision_state'])
