"""Protected and retired nodes (1.48, 1.61), enforced as Ironic does."""

import ddt

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base


def op(path, value=None, kind='add'):
    change = {'op': kind, 'path': '/' + path}
    if kind != 'remove':
        change['value'] = value
    return change


@ddt.ddt
class ProtectedTest(base.ApiTestCase):

    def active_node(self, **fields):
        return self.make_active(name='node-1', **fields)

    def protect(self):
        response = self.patch('/v1/nodes/node-1', json=[
            op('protected', True), op('protected_reason', 'production')])
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()

    def test_an_active_node_can_be_protected_with_a_reason(self):
        self.active_node()
        body = self.protect()
        self.assertEqual((True, 'production'),
                         (body['protected'], body['protected_reason']))

    @ddt.data(('deleted', 'torn down'), ('rebuild', 'rebuilt'))
    @ddt.unpack
    def test_a_protected_node_is_not_torn_down_or_rebuilt(self, target,
                                                          said):
        node = self.active_node()
        self.protect()
        response = self.provision('node-1', target)
        self.assertError(response, 403, node.uuid, 'protected', said)
        self.assertEqual(states.ACTIVE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_a_protected_node_is_not_deleted(self):
        node = self.active_node()
        self.protect()
        # Even out of the way of the state check, protection holds.
        stored = objects.Node.get(self.context, node.uuid)
        stored.provision_state = states.MANAGEABLE
        stored.save()
        self.assertError(self.delete('/v1/nodes/node-1'), 403, 'protected',
                         'deleted')
        self.assertIsNotNone(objects.Node.get(self.context, node.uuid))

    def test_unprotecting_clears_the_reason_and_lets_it_be_torn_down(self):
        node = self.active_node()
        self.protect()
        body = self.patch('/v1/nodes/node-1', json=[
            op('protected', False)]).get_json()
        self.assertEqual((False, None),
                         (body['protected'], body['protected_reason']))
        self.assertEqual(202, self.provision('node-1',
                                             'deleted').status_code)
        self.wait_for_state(node, states.AVAILABLE)

    def test_only_an_active_node_can_be_protected(self):
        node = self.create_node(name='node-1')
        response = self.patch('/v1/nodes/node-1', json=[
            op('protected', True)])
        self.assertError(response, 409, node.uuid, 'protected', 'active',
                         'enroll')
        self.assertFalse(objects.Node.get(self.context,
                                          node.uuid).protected)

    def test_a_reason_needs_protected(self):
        self.active_node()
        response = self.patch('/v1/nodes/node-1', json=[
            op('protected_reason', 'why')])
        self.assertError(response, 400, 'protected_reason')


class RetiredTest(base.ApiTestCase):

    def test_a_retired_node_is_not_provided(self):
        node = self.create_node(name='node-1')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        body = self.patch('/v1/nodes/node-1', json=[
            op('retired', True), op('retired_reason', 'EOL')]).get_json()
        self.assertEqual((True, 'EOL'),
                         (body['retired'], body['retired_reason']))
        response = self.provision('node-1', 'provide')
        self.assertError(response, 400, node.uuid, 'retired', 'provided')
        self.assertEqual(states.MANAGEABLE, objects.Node.get(
            self.context, node.uuid).provision_state)
        self.patch('/v1/nodes/node-1', json=[op('retired', False)])
        self.assertIsNone(objects.Node.get(self.context,
                                           node.uuid).retired_reason)
        self.assertEqual(202, self.provision('node-1',
                                             'provide').status_code)
        self.wait_for_state(node, states.AVAILABLE)

    def test_a_retired_node_torn_down_is_cleaned_back_to_manageable(self):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        self.wait_for_state(node, states.ACTIVE)
        self.patch('/v1/nodes/node-1', json=[op('retired', True)])
        self.assertEqual(202, self.provision('node-1',
                                             'deleted').status_code)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertTrue(node.retired)
        self.assertNotIn('clean_steps', node.driver_internal_info)

    def test_an_unretired_node_torn_down_becomes_available(self):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(202, self.provision('node-1',
                                             'deleted').status_code)
        self.wait_for_state(node, states.AVAILABLE)

    def test_an_available_node_cannot_be_retired(self):
        node = self.make_available(name='node-1')
        response = self.patch('/v1/nodes/node-1', json=[op('retired', True)])
        self.assertError(response, 409, node.uuid, 'retired', 'available')

    def test_flags_come_as_the_words_the_client_sends(self):
        # `openstack baremetal node set --retired` sends "True".
        node = self.create_node(name='node-1')
        self.patch('/v1/nodes/node-1', json=[op('retired', 'True')])
        self.assertTrue(objects.Node.get(self.context, node.uuid).retired)
        self.patch('/v1/nodes/node-1', json=[op('retired', 'false')])
        self.assertFalse(objects.Node.get(self.context, node.uuid).retired)
        self.assertError(self.patch('/v1/nodes/node-1', json=[
            op('retired', 'perhaps')]), 400, 'retired')

    def test_a_reason_needs_retired(self):
        self.create_node(name='node-1')
        response = self.patch('/v1/nodes/node-1', json=[
            op('retired_reason', 'why')])
        self.assertError(response, 400, 'retired_reason')

    def test_a_node_may_be_created_retired(self):
        body = self.api_create(name='node-1', retired=True)
        self.assertTrue(body['retired'])
