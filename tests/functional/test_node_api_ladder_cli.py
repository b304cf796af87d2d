"""The real ``openstack baremetal`` CLI on the node fields of Ironic's API
above 1.94 (release 0.13), against the all-in-one service."""

from ironic_steps.common import states
from tests.functional import test_openstack_client


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
