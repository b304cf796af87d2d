"""The real ``openstack baremetal`` CLI adopting nodes (API 1.17): a
machine already running its workload becomes active without a deploy."""

from tests.functional import test_openstack_client


class NodeAdoptCLITest(test_openstack_client.CLITestCase):

    def test_adopt_a_manageable_node_and_undeploy_it_later(self):
        _service, client = self.start_service()
        client.run('node', 'create', '--driver', 'fake-hardware', '--name',
                   'node-1')
        client.run('node', 'manage', 'node-1', '--wait', '30')
        client.run('node', 'adopt', 'node-1', '--wait', '30')
        node = client.json('node', 'show', 'node-1')
        self.assertEqual('active', node['provision_state'])
        self.assertIsNone(node['last_error'])
        self.assertEqual({}, node['deploy_step'] or {})
        # An adopted node is like any active one: it can be torn down
        client.run('node', 'undeploy', 'node-1', '--wait', '60')
        self.assertEqual('available', client.json(
            'node', 'show', 'node-1')['provision_state'])

    def test_adopting_an_available_node_is_refused_naming_the_state(self):
        _service, client = self.start_service()
        self.enrol_and_provide(client, 'node-1')
        refused = client.run('node', 'adopt', 'node-1', check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn("'available'", refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)
        self.assertEqual('available', client.json(
            'node', 'show', 'node-1')['provision_state'])
