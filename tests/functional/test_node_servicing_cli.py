"""The real ``openstack baremetal`` CLI servicing an active node (API 1.87)
and letting a held flow go on (API 1.85), against the all-in-one service
with fake-hardware."""

import json

from tests.functional import test_openstack_client

BIOS = [{'interface': 'bios', 'step': 'apply_configuration',
         'args': {'settings': [{'name': 'SriovEnable', 'value': 'Enabled'}]}}]


class NodeServicingCLITest(test_openstack_client.CLITestCase):

    def deployed(self, client, name='node-1'):
        self.enrol_and_provide(client, name)
        client.run('node', 'deploy', name, '--wait', '60')

    def test_service_runs_the_steps_and_the_node_is_active_again(self):
        _service, client = self.start_service()
        self.deployed(client)
        client.run('node', 'service', 'node-1', '--service-steps',
                   json.dumps(BIOS), '--wait', '60')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual(('active', None, {}), (
            node['provision_state'], node['last_error'],
            node['service_step']))
        settings = client.json('node', 'bios', 'setting', 'list', 'node-1')
        self.assertIn({'name': 'SriovEnable', 'value': 'Enabled'},
                      [{'name': s['name'], 'value': s['value']}
                       for s in settings])
        history = client.json('node', 'step', 'history', 'node-1',
                              '--flow', 'service')
        self.assertEqual(['bios.apply_configuration'],
                         [entry['Step'] for entry in history])

    def test_a_step_the_node_lacks_is_refused_and_nothing_changes(self):
        _service, client = self.start_service()
        self.deployed(client)
        refused = client.run('node', 'service', 'node-1', '--service-steps',
                             json.dumps([{'interface': 'raid',
                                          'step': 'no_such_step'}]),
                             check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('raid.no_such_step', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual('active', client.json(
            'node', 'show', 'node-1')['provision_state'])

    def test_a_held_servicing_goes_on_at_unhold(self):
        _service, client = self.start_service()
        self.deployed(client)
        client.run('node', 'service', 'node-1', '--service-steps',
                   json.dumps([{'interface': 'bios', 'step': 'hold'}] + BIOS))
        held = self.wait_for(client, 'node-1', lambda node: (
            node['provision_state'] == 'service hold'))
        self.assertEqual('hold', held['service_step']['step'])
        client.run('node', 'unhold', 'node-1')
        self.wait_for(client, 'node-1', lambda node: (
            node['provision_state'] == 'active'))
        history = client.json('node', 'step', 'history', 'node-1',
                              '--flow', 'service')
        self.assertEqual(['bios.hold', 'bios.apply_configuration'],
                         [entry['Step'] for entry in history])
