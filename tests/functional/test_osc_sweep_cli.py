"""The sweep of every `openstack baremetal` command: each one that
python-ironicclient installs is run against the real service by some
functional test, and the commands no other test runs are run here."""

import ast
import glob
import json
import os
from importlib import metadata

import fixtures
import testtools

from tests.functional import test_openstack_client

_HERE = os.path.dirname(os.path.abspath(__file__))


def baremetal_commands():
    """Every `openstack baremetal ...` command of the installed client, as
    tuples of words."""
    return {tuple(entry.name.split('_')[1:]) for entry in
            metadata.entry_points(group='openstack.baremetal.v1')}


def commands_run_by_tests():
    """The commands the functional tests run: the leading words of every
    ``client.run(...)`` or ``client.json(...)`` call, matched against the
    client's commands (the longest that fits)."""
    known = baremetal_commands()
    run = set()
    for path in glob.glob(os.path.join(_HERE, '*.py')):
        with open(path) as source:
            tree = ast.parse(source.read())
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ('run', 'json')):
                continue
            words = []
            for arg in call.args:
                if not (isinstance(arg, ast.Constant)
                        and isinstance(arg.value, str)):
                    break
                words.extend(arg.value.split())
            for length in range(len(words), 0, -1):
                if tuple(words[:length]) in known:
                    run.add(tuple(words[:length]))
                    break
    return run


class SweepTest(testtools.TestCase):

    def test_every_baremetal_command_is_run_by_a_functional_test(self):
        commands = baremetal_commands()
        self.assertGreater(len(commands), 100, 'the client is not all there')
        missing = sorted(' '.join(command) for command in
                         commands - commands_run_by_tests())
        self.assertEqual([], missing, 'no functional test runs these')


class RemainingCommandsTest(test_openstack_client.CLITestCase):
    """The commands no test of their own feature runs."""

    def test_create_from_a_file_makes_a_chassis_its_node_and_port(self):
        _service, client = self.start_service()
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'resources.json')
        resources = {'chassis': [{
            'description': 'rack 7',
            'nodes': [{'driver': 'fake-hardware', 'name': 'from-file',
                       'ports': [{'address': '52:54:00:aa:bb:01'}]}]}]}
        with open(path, 'w') as out:
            json.dump(resources, out)
        client.run('create', path)
        node = client.json('node', 'show', 'from-file')
        chassis = client.json('chassis', 'show', node['chassis_uuid'])
        self.assertEqual('rack 7', chassis['description'])
        self.assertEqual(['52:54:00:aa:bb:01'], [
            port['address'] for port in client.json(
                'port', 'list', '--node', 'from-file')])

    def test_unset_commands_clear_what_set_gave(self):
        _service, client = self.start_service()
        chassis = client.json('chassis', 'create', '--description', 'r1',
                              '--extra', 'row=3')
        client.run('chassis', 'unset', chassis['uuid'], '--description',
                   '--extra', 'row')
        shown = client.json('chassis', 'show', chassis['uuid'])
        self.assertEqual((None, {}), (shown['description'], shown['extra']))

        node = client.json('node', 'create', '--driver', 'fake-hardware',
                           '--name', 'n1')
        group = client.json('port', 'group', 'create', '--node',
                            node['uuid'], '--name', 'bond0', '--extra',
                            'lacp=yes')
        client.run('port', 'group', 'unset', group['uuid'], '--name',
                   '--extra', 'lacp')
        shown = client.json('port', 'group', 'show', group['uuid'])
        self.assertEqual((None, {}), (shown['name'], shown['extra']))

        connector = client.json(
            'volume', 'connector', 'create', '--node', node['uuid'],
            '--type', 'iqn', '--connector-id', 'iqn.2026-12.org:n1',
            '--extra', 'site=a')
        client.run('volume', 'connector', 'unset', connector['uuid'],
                   '--extra', 'site')
        self.assertEqual({}, client.json('volume', 'connector', 'show',
                                         connector['uuid'])['extra'])
        target = client.json(
            'volume', 'target', 'create', '--node', node['uuid'], '--type',
            'iscsi', '--boot-index', '0', '--volume-id', 'vol-1',
            '--property', 'lun=1')
        client.run('volume', 'target', 'unset', target['uuid'],
                   '--property', 'lun')
        self.assertEqual({}, client.json('volume', 'target', 'show',
                                         target['uuid'])['properties'])

    def test_node_management_commands(self):
        _service, client = self.start_service()
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'node-1')
        client.run('node', 'trait', 'add', 'node-1', 'CUSTOM_A', 'CUSTOM_B')
        client.run('node', 'trait', 'remove', 'node-1', 'CUSTOM_A')
        self.assertEqual(['CUSTOM_B'], [row['traits'] for row in client.json(
            'node', 'trait', 'list', 'node-1')])

        client.run('node', 'secure', 'boot', 'off', 'node-1')
        self.assertFalse(client.json('node', 'show', 'node-1')['secure_boot'])

        client.run('node', 'inject', 'nmi', 'node-1')
        self.assertEqual(1, client.json('node', 'show', 'node-1')[
            'driver_internal_info']['fake_nmi_count'])

        # No console interface: disabling is refused as enabling is.
        refused = client.run('node', 'console', 'disable', 'node-1',
                             check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('no-console', refused.stderr)

        self.assertEqual('fake-hardware', client.json(
            'driver', 'show', 'fake-hardware')['name'])
        self.assertEqual([], client.json('driver', 'passthru', 'list',
                                         'fake-hardware'))
        unknown = client.run('driver', 'passthru', 'call', 'fake-hardware',
                             'no_such_method', check=False)
        self.assertNotEqual(0, unknown.returncode)
        self.assertIn('no_such_method', unknown.stderr)
        unknown = client.run('node', 'passthru', 'call', 'node-1',
                             'no_such_method', check=False)
        self.assertNotEqual(0, unknown.returncode)
        self.assertIn('no_such_method', unknown.stderr)
