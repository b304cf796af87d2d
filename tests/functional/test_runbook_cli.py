"""The real ``openstack baremetal runbook`` CLI against the all-in-one
service (API 1.92, 1.112), and ``node clean --runbook``."""

import json

import testtools

from ironic_steps.api import versions
from tests.functional import fixtures as functional
from tests.functional import test_openstack_client

#: The runbook traits and description of API 1.112, built but not served
#: until the maximum reaches them; their API tests run ahead of it.
needs_1_112 = testtools.skipIf(
    versions.max_version() < versions.at(versions.MINOR_112_RUNBOOK_TRAITS),
    'API 1.112 is built but not served until the maximum reaches it '
    '(versions.AWAITING_LADDER)')

RAID = {'interface': 'raid', 'step': 'apply_configuration',
        'args': {'raid_config': {'logical_disks': [
            {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True}]}},
        'order': 1}
BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Disabled'}]},
        'order': 0}


class RunbookCLITest(test_openstack_client.CLITestCase):

    def manageable(self, client, name='node-1'):
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   name)
        client.run('node', 'manage', name, '--wait', '30')

    @needs_1_112
    def test_create_list_show_set_unset_and_delete(self):
        _service, client = self.start_service()
        created = client.json(
            'runbook', 'create', '--name', 'raid-and-bios',
            '--description', 'RAID 1 and no hyper-threading',
            '--steps', json.dumps([RAID, BIOS]), '--extra', 'team=ops')
        self.assertEqual('raid-and-bios', created['name'])
        self.assertEqual([RAID, BIOS], created['steps'])
        self.assertEqual({'team': 'ops'}, created['extra'])
        listed = client.json('runbook', 'list')
        self.assertEqual([('raid-and-bios', created['uuid'])],
                         [(r['name'], r['uuid']) for r in listed])
        client.run('runbook', 'set', 'raid-and-bios', '--extra',
                   'ticket=OPS-1', '--name', 'raid-bios')
        client.run('runbook', 'unset', 'raid-bios', '--extra', 'team')
        shown = client.json('runbook', 'show', created['uuid'])
        self.assertEqual('raid-bios', shown['name'])
        self.assertEqual({'ticket': 'OPS-1'}, shown['extra'])
        self.assertEqual('RAID 1 and no hyper-threading',
                         shown['description'])
        client.run('runbook', 'trait', 'add', 'raid-bios', 'CUSTOM_RAID',
                   'CUSTOM_HT')
        traits = client.json('runbook', 'trait', 'list', 'raid-bios')
        self.assertEqual(['CUSTOM_HT', 'CUSTOM_RAID'],
                         sorted(t['traits'] for t in traits))
        client.run('runbook', 'trait', 'remove', 'raid-bios', 'CUSTOM_HT')
        self.assertEqual(['CUSTOM_RAID'], client.json(
            'runbook', 'show', 'raid-bios')['traits'])
        client.run('runbook', 'delete', 'raid-bios')
        self.assertEqual([], client.json('runbook', 'list'))

    def test_a_bad_step_is_refused_naming_it_and_nothing_is_created(self):
        _service, client = self.start_service()
        refused = client.run(
            'runbook', 'create', '--name', 'twice',
            '--steps', json.dumps([RAID, dict(RAID, order=5)]), check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('raid.apply_configuration', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual([], client.json('runbook', 'list'))

    def test_node_clean_with_a_runbook_named_as_one_of_its_traits(self):
        # API 1.92 to 1.111: a node may run a runbook whose name is one of
        # its traits (from 1.112, the runbook's own traits decide).
        service, _client = self.start_service()
        client = functional.OpenStackClient(service.endpoint,
                                            api_version='1.92')
        self.manageable(client)
        client.run('runbook', 'create', '--name', 'CUSTOM_NO_HT', '--steps',
                   json.dumps([BIOS]))
        refused = client.run('node', 'clean', 'node-1', '--runbook',
                             'CUSTOM_NO_HT', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('CUSTOM_NO_HT', refused.stderr)
        client.run('node', 'add', 'trait', 'node-1', 'CUSTOM_NO_HT')
        client.run('node', 'clean', 'node-1', '--runbook', 'CUSTOM_NO_HT',
                   '--wait', '30')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual(('manageable', None),
                         (node['provision_state'], node['last_error']))
        history = client.json('node', 'step', 'history', 'node-1',
                              '--flow', 'clean')
        self.assertEqual(['bios.apply_configuration'],
                         [entry['Step'] for entry in history])

    @needs_1_112
    def test_node_clean_with_a_runbook_needs_one_of_its_traits(self):
        _service, client = self.start_service()
        self.manageable(client)
        client.run('runbook', 'create', '--name', 'raid-and-bios',
                   '--steps', json.dumps([RAID, BIOS]))
        client.run('runbook', 'trait', 'add', 'raid-and-bios',
                   'CUSTOM_RAID')
        refused = client.run('node', 'clean', 'node-1', '--runbook',
                             'raid-and-bios', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('CUSTOM_RAID', refused.stderr)
        self.assertEqual('manageable', client.json(
            'node', 'show', 'node-1')['provision_state'])
        client.run('node', 'add', 'trait', 'node-1', 'CUSTOM_RAID')
        client.run('node', 'clean', 'node-1', '--runbook', 'raid-and-bios',
                   '--wait', '30')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('manageable', node['provision_state'])
        self.assertIsNone(node['last_error'])
        self.assertEqual(RAID['args']['raid_config'], node['raid_config'])
