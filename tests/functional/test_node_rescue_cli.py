"""The real ``openstack baremetal`` CLI rescuing a node (API 1.38) with
fake-hardware's fake rescue interface."""

from tests.functional import test_openstack_client


class NodeRescueCLITest(test_openstack_client.CLITestCase):

    def deployed(self, rescue_interface):
        """A client, and node-1 active with ``rescue_interface``."""
        _service, client = self.start_service()
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'node-1', '--rescue-interface', rescue_interface)
        client.run('node', 'manage', 'node-1', '--wait', '30')
        client.run('node', 'provide', 'node-1', '--wait', '30')
        client.run('node', 'deploy', 'node-1', '--wait', '60')
        return client

    def test_rescue_then_unrescue(self):
        client = self.deployed('fake')
        client.run('node', 'rescue', 'node-1', '--rescue-password',
                   'pa55-word', '--wait', '30')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('rescue', node['provision_state'])
        self.assertNotIn('pa55-word', str(node))
        client.run('node', 'unrescue', 'node-1', '--wait', '30')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('active', node['provision_state'])
        self.assertNotIn('rescue_password', node['instance_info'])

    def test_a_node_without_rescue_is_refused_naming_its_interface(self):
        client = self.deployed('no-rescue')
        refused = client.run('node', 'rescue', 'node-1',
                             '--rescue-password', 'x', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('no-rescue', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual('active', client.json(
            'node', 'show', 'node-1')['provision_state'])
