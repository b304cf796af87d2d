"""The real ``openstack baremetal`` CLI on the node fields of Ironic's API
above 1.94 (release 0.13), against the all-in-one service."""

import json

import testtools

from ironic_steps.api import versions
from ironic_steps.common import states
from tests.functional import test_openstack_client

_AWAITING = ('built but not served until the maximum reaches it '
             '(versions.AWAITING_LADDER); its API tests run ahead of it')


class DisablePowerOffCLITest(test_openstack_client.CLITestCase):

    def test_a_node_created_never_to_be_powered_off_refuses_power_off(self):
        _service, client = self.start_service()
        created = client.json('node', 'create', '--driver', 'fake-hardware',
                              '--name', 'n1', '--disable-power-off')
        self.assertIs(True, created['disable_power_off'])
        client.run('node', 'power', 'on', 'n1')
        refused = client.run('node', 'power', 'off', 'n1', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('Failed to set node power state to power off',
                      refused.stderr)
        self.assertIn('disable_power_off', refused.stderr)
        self.assertEqual(states.POWER_ON, client.json(
            'node', 'show', 'n1')['power_state'])
        client.run('node', 'reboot', 'n1')
        # Allowed again, the power off goes through
        client.run('node', 'set', 'n1', '--enable-power-off')
        self.assertIs(False, client.json('node', 'show', 'n1',
                                         '--fields', 'disable_power_off')
                      ['disable_power_off'])
        client.run('node', 'power', 'off', 'n1', '--power-timeout', '30')
        self.assertEqual(states.POWER_OFF, client.json(
            'node', 'show', 'n1')['power_state'])
        client.run('node', 'set', 'n1', '--disable-power-off')
        self.assertIs(True, client.json('node', 'show', 'n1')[
            'disable_power_off'])


class InstanceNameCLITest(test_openstack_client.CLITestCase):

    @testtools.skipIf(versions.max_version() < versions.at(
        versions.MINOR_104_NODE_INSTANCE_NAME), 'API 1.104 is ' + _AWAITING)
    def test_a_node_is_named_for_its_instance_and_listed_by_it(self):
        _service, client = self.start_service()
        client.json('node', 'create', '--driver', 'fake-hardware',
                    '--name', 'n1', '--instance-name', 'web-1')
        client.json('node', 'create', '--driver', 'fake-hardware',
                    '--name', 'n2')
        client.run('node', 'set', 'n2', '--instance-name', 'web-2')
        self.assertEqual(['n2'], [node['name'] for node in client.json(
            'node', 'list', '--instance-name', 'web-2')])
        self.assertEqual('web-1', client.json('node', 'show', 'n1')[
            'instance_name'])


class ServiceWithoutRamdiskCLITest(test_openstack_client.CLITestCase):

    @testtools.skipIf(versions.max_version() < versions.at(
        versions.MINOR_108_SERVICE_DISABLE_RAMDISK),
        'API 1.108 is ' + _AWAITING)
    def test_node_service_disable_ramdisk(self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'n1')
        client.run('node', 'deploy', 'n1', '--wait', '60')
        bios = [{'interface': 'bios', 'step': 'apply_configuration',
                 'args': {'settings': [{'name': 'SriovEnable',
                                        'value': 'Enabled'}]}}]
        client.run('node', 'service', 'n1', '--service-steps',
                   json.dumps(bios), '--disable-ramdisk', '--wait', '60')
        node = client.json('node', 'show', 'n1')
        self.assertEqual(('active', None), (node['provision_state'],
                                            node['last_error']))
        refused = client.run('node', 'service', 'n1', '--service-steps',
                             json.dumps(bios + [{'interface': 'deploy',
                                                 'step': 'wait'}]),
                             '--disable-ramdisk', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('deploy.wait', refused.stderr)
        self.assertEqual('active', client.json(
            'node', 'show', 'n1')['provision_state'])
