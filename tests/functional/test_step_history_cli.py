"""An operator watches a deploy and reads what ran, with the real
`openstack` CLI and this package's plugin installed
(``openstack baremetal node step history``)."""

from tests.functional import test_openstack_client

BIOS_STEP = ('[{"interface": "bios", "step": "apply_configuration", '
             '"priority": 90, "args": {"settings": '
             '[{"name": "BootMode", "value": "Uefi"}]}}]')
FAKE_DEPLOY = ['deploy.deploy', 'deploy.write_image',
               'management.set_instance_boot_device',
               'boot.prepare_instance_boot', 'power.boot_instance']


class StepHistoryCLITest(test_openstack_client.CLITestCase):

    def test_progress_while_deploying_then_the_history_with_durations(self):
        # Given a node deployed with a BIOS step of the operator's; the
        # fake agent takes 8 s to write the image: long enough to see it
        # even when each CLI call takes seconds on a loaded machine
        _service, client = self.start_service(agent_delay=8)
        self.enrol_and_provide(client, 'node-1')
        client.run('node', 'deploy', 'node-1', '--deploy-steps', BIOS_STEP)
        # When the operator shows the node while it waits for its agent
        waiting = self.wait_for(
            client, 'node-1',
            lambda node: node['provision_state'] == 'wait call-back')
        progress = waiting['driver_internal_info']['step_progress']
        # Then it says which step of how many, and since when
        self.assertEqual(('deploy', 3, 6, 'deploy.write_image', None),
                         (progress['flow'], progress['number'],
                          progress['total'], progress['step'],
                          progress['outcome']))
        self.assertTrue(progress['started_at'])
        self.wait_for(client, 'node-1',
                      lambda node: node['provision_state'] == 'active')
        # When they read the deploy's history
        history = client.json('node', 'step', 'history', 'node-1',
                              '--flow-run', progress['flow_run'], '--long')
        # Then every step is there, in order, with its duration
        plan = FAKE_DEPLOY[:1] + ['bios.apply_configuration'] + FAKE_DEPLOY[1:]
        self.assertEqual(plan, [entry['Step'] for entry in history])
        self.assertEqual({'success'}, {e['Outcome'] for e in history})
        self.assertEqual({progress['flow_run']},
                         {e['Flow Run'] for e in history})
        write_image = history[2]
        self.assertGreaterEqual(write_image['Duration'], 2.5)
        self.assertEqual({'settings': [{'name': 'BootMode',
                                        'value': 'Uefi'}]},
                         history[1]['Args'])
        self.assertEqual(90, history[1]['Priority'])
        # and the cleaning that made the node available is its own flow
        cleaned = client.json('node', 'step', 'history', 'node-1',
                              '--flow', 'clean')
        self.assertEqual(['deploy.erase_devices_metadata'],
                         [entry['Step'] for entry in cleaned])
        self.assertEqual({'Step', 'Flow', 'Outcome', 'Started At',
                          'Duration', 'Error'}, set(cleaned[0]))

    def test_a_failed_step_is_in_the_history_with_its_error(self):
        _service, client = self.start_service()
        failed = self.failed_deploy(client, 'bad-node')
        history = client.json('node', 'step', 'history', 'bad-node',
                              '--flow', 'deploy')
        self.assertEqual(FAKE_DEPLOY[:4], [e['Step'] for e in history])
        self.assertEqual(['success', 'success', 'success', 'failed'],
                         [e['Outcome'] for e in history])
        self.assertEqual(failed['last_error'], history[-1]['Error'])

    def test_an_unknown_node_fails_naming_it(self):
        _service, client = self.start_service()
        result = client.run('node', 'step', 'history', 'no-such-node',
                            check=False)
        self.assertNotEqual(0, result.returncode)
        self.assertIn('no-such-node', result.stderr)
