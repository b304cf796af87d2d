"""The x-steps extension through the real `openstack` CLI and its plugin.

The all-in-one service as a process, the plugin as installed (its entry
points in setup.cfg), fake hardware: an operator previews a deploy, runs
it, sees a step fail and resumes from it.
"""

import json

from tests.functional import fixtures as functional
from tests.functional import test_openstack_client

RAID = {'raid_config': {'logical_disks': [{'size_gb': 10,
                                           'raid_level': '1'}]}}


def labels(steps):
    return ['%s.%s' % (s['interface'], s['step']) for s in steps]


class StepsPluginTest(test_openstack_client.CLITestCase):

    def test_preview_deploy_fail_and_resume_from_the_failed_step(self):
        service, client = self.start_service()
        self.enrol_and_provide(client, 'node-1', '--driver-info',
                               'fake_fail_step=boot.prepare_instance_boot')
        deploy_steps = json.dumps([
            {'interface': 'raid', 'step': 'apply_configuration',
             'priority': 90, 'args': RAID, 'timeout': 600}])

        # The preview shows the plan, as JSON, and changes nothing.
        before = client.json('node', 'show', 'node-1')
        preview = client.json('node', 'step', 'preview', 'node-1',
                              '--deploy-steps', deploy_steps)
        self.assertEqual([], preview['errors'])
        self.assertEqual(
            ['deploy.deploy', 'raid.apply_configuration',
             'deploy.write_image', 'management.set_instance_boot_device',
             'boot.prepare_instance_boot', 'power.boot_instance'],
            labels(preview['steps']))
        self.assertEqual(('user', 600), (preview['steps'][1]['source'],
                                         preview['steps'][1]['timeout']))
        after = client.json('node', 'show', 'node-1')
        self.assertEqual(before, after)
        # ... and in a table for people.
        table = client.run('node', 'step', 'preview', 'node-1',
                           '--deploy-steps', deploy_steps).stdout
        self.assertIn('2. raid.apply_configuration (priority 90, from user, '
                      'timeout 600s', table)

        # The deploy (ironicclient's command) runs that plan and fails.
        client.run('node', 'deploy', 'node-1', '--deploy-steps',
                   deploy_steps, '--wait', '60', check=False)
        failed = self.wait_for(
            client, 'node-1',
            lambda node: node['provision_state'] == 'deploy failed')
        self.assertEqual(labels(preview['steps']), labels(
            failed['driver_internal_info']['deploy_steps']))
        self.assertIn('boot.prepare_instance_boot', failed['last_error'])

        # The preview says where a resume starts.
        resume = client.json('node', 'step', 'preview', 'node-1')['resume']
        self.assertEqual('prepare_instance_boot',
                         resume['start_step']['step'])
        self.assertEqual(['kept'] * 4 + ['runs'] * 2,
                         [s['action'] for s in resume['steps']])

        # The deploy resumes from the failed step: the steps before it are
        # not run again, so the RAID step, which would now fail, does not.
        client.run('node', 'set', 'node-1', '--driver-info',
                   'fake_fail_step=raid.apply_configuration')
        client.run('node', 'deploy', 'resume', 'node-1', '--wait', '60')
        done = client.json('node', 'show', 'node-1')
        self.assertEqual('active', done['provision_state'])
        self.assertIsNone(done['last_error'])
        self.assertEqual(RAID['raid_config'], done['raid_config'])

    def test_a_failed_servicing_resumes_from_the_failed_step(self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'node-1')
        client.run('node', 'deploy', 'node-1', '--wait', '60')
        bios = {'interface': 'bios', 'step': 'apply_configuration',
                'args': {'settings': [{'name': 'LogicalProc',
                                       'value': 'Disabled'}]}}
        reset = {'interface': 'bios', 'step': 'factory_reset', 'args': {}}
        service_steps = json.dumps([bios, reset])
        # The second step fails (ironicclient's command).
        client.run('node', 'set', 'node-1', '--driver-info',
                   'fake_fail_step=bios.factory_reset')
        client.run('node', 'service', 'node-1', '--service-steps',
                   service_steps, '--wait', '60', check=False)
        failed = self.wait_for(
            client, 'node-1',
            lambda node: node['provision_state'] == 'service failed')
        self.assertIn('bios.factory_reset', failed['last_error'])
        # The preview says the first step is kept.
        resume = client.json('node', 'step', 'preview', 'node-1',
                             '--service-steps', service_steps)['resume']
        self.assertEqual(['kept', 'runs'],
                         [step['action'] for step in resume['steps']])
        # Resumed once the cause is gone: only the failed step runs again,
        # so the BIOS change is not made twice.
        client.run('node', 'set', 'node-1', '--driver-info',
                   'fake_fail_step=bios.apply_configuration')
        client.run('node', 'service', 'resume', 'node-1', '--wait', '60')
        done = client.json('node', 'show', 'node-1')
        self.assertEqual('active', done['provision_state'])
        self.assertIsNone(done['last_error'])
        history = client.json('node', 'step', 'history', 'node-1',
                              '--flow', 'service')
        self.assertEqual(
            [('bios.apply_configuration', 'success'),
             ('bios.factory_reset', 'failed'),
             ('bios.factory_reset', 'success')],
            [(entry['Step'], entry['Outcome']) for entry in history])

    def test_resume_of_a_node_that_did_not_fail_says_why(self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'node-1')
        result = client.run('node', 'deploy', 'resume', 'node-1',
                            check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('has no failed deploy or servicing to resume', result.stderr)
        self.assertIn('HTTP 400', result.stderr)

    def test_pinned_to_0_5_the_commands_find_nothing(self):
        service = self.useFixture(functional.AllInOneService({
            'DEFAULT': {'pin_release_version': '0.5'},
            'fake': {'agent_delay': 0}}))
        client = functional.OpenStackClient(service.endpoint)
        self.enrol_and_provide(client, 'node-1')
        for command in (('node', 'step', 'preview', 'node-1'),
                        ('node', 'deploy', 'resume', 'node-1')):
            result = client.run(*command, check=False)
            self.assertNotEqual(0, result.returncode)
            self.assertIn('HTTP 404', result.stderr)
        # Ironic's deploy is untouched by the plugin.
        client.run('node', 'deploy', 'node-1', '--wait', '60')
