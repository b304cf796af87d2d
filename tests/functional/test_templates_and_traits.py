"""Operators keep deploy templates and node traits with the real CLI."""

import json
import os

import fixtures
import testtools

from tests.functional import fixtures as functional

RAID = {'interface': 'raid', 'step': 'apply_configuration',
        'args': {'raid_config': {'logical_disks': [
            {'size_gb': 'MAX', 'raid_level': '1'}]}},
        'priority': 90}
BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]},
        'priority': 110}


class DeployTemplateCommandsTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        service = self.useFixture(functional.AllInOneService())
        self.client = functional.OpenStackClient(service.endpoint)

    def test_templates_are_created_listed_shown_changed_and_deleted(self):
        client = self.client
        # Given steps in a file, as operators keep them
        steps_file = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'steps.json')
        with open(steps_file, 'w') as f:
            json.dump([BIOS, RAID], f)
        created = client.json('deploy', 'template', 'create',
                              'CUSTOM_RAID1', '--steps', steps_file,
                              '--extra', 'owner=ops')
        self.assertEqual('CUSTOM_RAID1', created['name'])
        self.assertEqual([BIOS, RAID], created['steps'])
        self.assertEqual({'owner': 'ops'}, created['extra'])
        # and another given inline
        client.run('deploy', 'template', 'create', 'CUSTOM_BIOS', '--steps',
                   json.dumps([BIOS]))

        listed = client.json('deploy', 'template', 'list', '--sort',
                             'name:desc')
        self.assertEqual(['CUSTOM_RAID1', 'CUSTOM_BIOS'],
                         [t['name'] for t in listed])
        self.assertEqual(created['uuid'], listed[0]['uuid'])
        long_list = client.json('deploy', 'template', 'list', '--long')
        self.assertEqual({'CUSTOM_RAID1': [BIOS, RAID],
                          'CUSTOM_BIOS': [BIOS]},
                         {t['name']: t['steps'] for t in long_list})
        # (--sort sorts in the client; pages come in creation order.)
        page = client.json('deploy', 'template', 'list', '--limit', '1')
        self.assertEqual(['CUSTOM_RAID1'], [t['name'] for t in page])
        rest = client.json('deploy', 'template', 'list', '--marker',
                           page[0]['uuid'])
        self.assertEqual(['CUSTOM_BIOS'], [t['name'] for t in rest])
        fields = client.json('deploy', 'template', 'list', '--fields',
                             'name', 'extra')
        self.assertEqual({'name', 'extra'}, set(fields[0]))

        shown = client.json('deploy', 'template', 'show', 'CUSTOM_RAID1')
        self.assertEqual(created['uuid'], shown['uuid'])
        self.assertEqual([BIOS, RAID], shown['steps'])
        by_uuid = client.json('deploy', 'template', 'show', created['uuid'],
                              '--fields', 'name', 'steps')
        self.assertEqual({'name': 'CUSTOM_RAID1', 'steps': [BIOS, RAID]},
                         by_uuid)

        # When it is renamed, given new steps and more extra
        client.run('deploy', 'template', 'set', 'CUSTOM_RAID1', '--name',
                   'CUSTOM_RAID1_FAST', '--steps', json.dumps([RAID]),
                   '--extra', 'ticket=OPS-42')
        changed = client.json('deploy', 'template', 'show',
                              'CUSTOM_RAID1_FAST')
        self.assertEqual([RAID], changed['steps'])
        self.assertEqual({'owner': 'ops', 'ticket': 'OPS-42'},
                         changed['extra'])
        client.run('deploy', 'template', 'unset', 'CUSTOM_RAID1_FAST',
                   '--extra', 'owner')
        self.assertEqual({'ticket': 'OPS-42'}, client.json(
            'deploy', 'template', 'show', 'CUSTOM_RAID1_FAST')['extra'])

        client.run('deploy', 'template', 'delete', 'CUSTOM_RAID1_FAST',
                   'CUSTOM_BIOS')
        self.assertEqual([], client.json('deploy', 'template', 'list'))

    def test_invalid_templates_are_refused_with_readable_errors(self):
        client = self.client
        bad_name = client.run('deploy', 'template', 'create', 'raid1',
                              '--steps', json.dumps([RAID]), check=False)
        self.assertNotEqual(0, bad_name.returncode)
        self.assertIn("'raid1' is not a trait", bad_name.stderr)
        twice = client.run('deploy', 'template', 'create', 'CUSTOM_X',
                           '--steps', json.dumps([RAID, RAID]), check=False)
        self.assertNotEqual(0, twice.returncode)
        self.assertIn('raid.apply_configuration', twice.stderr)
        client.run('deploy', 'template', 'create', 'CUSTOM_X', '--steps',
                   json.dumps([RAID]))
        bad_priority = client.run(
            'deploy', 'template', 'set', 'CUSTOM_X', '--steps',
            json.dumps([dict(RAID, priority=-1)]), check=False)
        self.assertNotEqual(0, bad_priority.returncode)
        self.assertIn('steps/0/priority', bad_priority.stderr)
        self.assertNotIn('Traceback', bad_priority.stderr)
        self.assertEqual([RAID], client.json(
            'deploy', 'template', 'show', 'CUSTOM_X')['steps'])
        missing = client.run('deploy', 'template', 'show', 'CUSTOM_NONE',
                             check=False)
        self.assertIn('CUSTOM_NONE', missing.stderr)


class NodeTraitCommandsTest(testtools.TestCase):

    def test_traits_are_added_listed_and_removed(self):
        service = self.useFixture(functional.AllInOneService())
        client = functional.OpenStackClient(service.endpoint)
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'node-1')

        client.run('node', 'add', 'trait', 'node-1', 'CUSTOM_RAID1',
                   'HW_CPU_X86_VMX', 'CUSTOM_GPU')
        listed = client.json('node', 'trait', 'list', 'node-1')
        self.assertEqual(['CUSTOM_GPU', 'CUSTOM_RAID1', 'HW_CPU_X86_VMX'],
                         [t['traits'] for t in listed])
        self.assertEqual(['CUSTOM_GPU', 'CUSTOM_RAID1', 'HW_CPU_X86_VMX'],
                         client.json('node', 'show', 'node-1')['traits'])

        client.run('node', 'remove', 'trait', 'node-1', 'CUSTOM_GPU')
        listed = client.json('node', 'trait', 'list', 'node-1')
        self.assertEqual(['CUSTOM_RAID1', 'HW_CPU_X86_VMX'],
                         [t['traits'] for t in listed])
        absent = client.run('node', 'remove', 'trait', 'node-1',
                            'CUSTOM_GPU', check=False)
        self.assertNotEqual(0, absent.returncode)
        self.assertIn('CUSTOM_GPU', absent.stderr)
        invalid = client.run('node', 'add', 'trait', 'node-1', 'gpu',
                             check=False)
        self.assertNotEqual(0, invalid.returncode)
        self.assertIn("'gpu' is not a trait", invalid.stderr)

        client.run('node', 'remove', 'trait', 'node-1', '--all')
        self.assertEqual([], client.json('node', 'trait', 'list', 'node-1'))
        self.assertEqual([], client.json('node', 'show', 'node-1')['traits'])
