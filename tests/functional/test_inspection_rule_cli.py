"""The real ``openstack baremetal inspection rule`` CLI against the
all-in-one service (API 1.96), and a rule it created applied by an
inspection the CLI starts."""

import json

from tests.functional import test_openstack_client

CONDITIONS = [{'op': 'ge-not-a-condition', 'args': {}}]
BIG = [{'op': 'gt', 'args': {'values': ['{inventory[cpu][count]}', '2']}}]
TAG = [{'op': 'add-trait', 'args': {'name': 'CUSTOM_MANY_CPUS'}},
       {'op': 'set-attribute', 'args': {'path': 'extra/rack',
                                        'value': 'R7'}}]


class InspectionRuleCLITest(test_openstack_client.CLITestCase):

    def test_create_list_show_set_unset_and_delete(self):
        _service, client = self.start_service()
        created = client.json(
            'inspection', 'rule', 'create', '--description', 'many CPUs',
            '--priority', '10', '--conditions', json.dumps(BIG),
            '--actions', json.dumps(TAG))
        self.assertEqual(10, created['priority'])
        self.assertEqual(BIG, created['conditions'])
        self.assertEqual(TAG, created['actions'])
        listed = client.json('inspection', 'rule', 'list')
        self.assertEqual(1, len(listed), listed)
        self.assertEqual([(created['uuid'], 'many CPUs')],
                         [(r['uuid'], r['description']) for r in listed])
        client.run('inspection', 'rule', 'set', created['uuid'],
                   '--priority', '20', '--description', 'big')
        client.run('inspection', 'rule', 'unset', created['uuid'],
                   '--description')
        shown = client.json('inspection', 'rule', 'show', created['uuid'])
        self.assertEqual(20, shown['priority'])
        self.assertIsNone(shown['description'])
        self.assertEqual(TAG, shown['actions'])
        client.run('inspection', 'rule', 'delete', created['uuid'])
        self.assertEqual([], client.json('inspection', 'rule', 'list'))

    def test_a_bad_rule_is_refused_naming_the_problem(self):
        _service, client = self.start_service()
        refused = client.run('inspection', 'rule', 'create', '--conditions',
                             json.dumps(CONDITIONS), '--actions',
                             json.dumps(TAG), check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn("unsupported condition 'ge-not-a-condition'",
                      refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual([], client.json('inspection', 'rule', 'list'))

    def test_a_sensitive_rule_hides_what_it_does(self):
        _service, client = self.start_service()
        created = client.json('inspection', 'rule', 'create', '--sensitive',
                              'true', '--actions', json.dumps(TAG))
        self.assertTrue(created['sensitive'])
        shown = client.json('inspection', 'rule', 'show', created['uuid'])
        self.assertIsNone(shown['actions'])

    def test_an_inspection_applies_the_rule(self):
        _service, client = self.start_service()
        client.run('inspection', 'rule', 'create', '--conditions',
                   json.dumps(BIG), '--actions', json.dumps(TAG))
        self.manageable(client, 'node-1', '--property', 'cpus=4')
        client.run('node', 'inspect', 'node-1', '--wait', '30')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('manageable', node['provision_state'])
        self.assertEqual(['CUSTOM_MANY_CPUS'], node['traits'])
        self.assertEqual({'rack': 'R7'}, node['extra'])
