"""Node ``disable_power_off`` (API 1.95) through the real API, conductor
and SQLite: the field itself, and a node the conductor never powers off
(fake hardware counts the times its machine was powered off)."""

import ddt

from ironic_steps.common import states
from ironic_steps.drivers.modules import fake
from ironic_steps import objects
from tests.unit.api import base

AT = '1.95'
BEFORE = '1.94'


def power_offs(node):
    return (node.driver_internal_info or {}).get(fake.POWER_OFFS_KEY, 0)


def boots(node):
    return (node.driver_internal_info or {}).get(fake.BOOTS_KEY, 0)


@ddt.ddt
class DisablePowerOffFieldTest(base.ApiTestCase):

    def test_a_node_shows_it_false_from_1_95_and_not_before(self):
        self.create_node(name='n1')
        self.assertIs(False, self.get('/v1/nodes/n1', version=AT)
                      .get_json()['disable_power_off'])
        self.assertNotIn('disable_power_off', self.get(
            '/v1/nodes/n1', version=BEFORE).get_json())
        [listed] = self.get('/v1/nodes/detail', version=AT).get_json()[
            'nodes']
        self.assertIs(False, listed['disable_power_off'])
        self.assertEqual({'uuid', 'disable_power_off', 'links'}, set(
            self.get('/v1/nodes/n1?fields=uuid,disable_power_off',
                     version=AT).get_json()))
        self.assertError(self.get(
            '/v1/nodes/n1?fields=uuid,disable_power_off', version=BEFORE),
            406, 'disable_power_off', AT)

    @ddt.data(True, 'true', 'True')
    def test_a_node_is_created_with_it(self, value):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'n1',
            'disable_power_off': value}, version=AT)
        self.assertEqual(201, response.status_code, response.data)
        self.assertIs(True, response.get_json()['disable_power_off'])
        self.assertIs(True, objects.Node.get(self.context,
                                             'n1').disable_power_off)

    def test_a_value_that_is_no_boolean_is_400_and_nothing_is_created(self):
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'disable_power_off': 'sometimes'},
            version=AT), 400, 'disable_power_off')
        self.assertEqual([], objects.Node.list(self.context))

    def test_it_is_patched_and_removing_it_makes_it_false(self):
        self.create_node(name='n1')
        for op, value in (('add', True), ('replace', 'false'),
                          ('replace', True)):
            response = self.patch('/v1/nodes/n1', json=[
                {'op': op, 'path': '/disable_power_off', 'value': value}],
                version=AT)
            self.assertEqual(200, response.status_code, response.data)
            self.assertEqual(value in (True,),
                             response.get_json()['disable_power_off'])
        response = self.patch('/v1/nodes/n1', json=[
            {'op': 'remove', 'path': '/disable_power_off'}], version=AT)
        self.assertIs(False, response.get_json()['disable_power_off'])

    def test_patching_it_takes_its_own_policy_rule(self):
        self.create_node(name='n1')
        self.use_policy({'baremetal:node:update:disable_power_off': '!'})
        self.assertError(self.patch('/v1/nodes/n1', json=[
            {'op': 'add', 'path': '/disable_power_off', 'value': True}],
            version=AT), 403, 'baremetal:node:update:disable_power_off')
        self.assertIs(False, objects.Node.get(self.context,
                                              'n1').disable_power_off)


@ddt.ddt
class NeverPoweredOffTest(base.ApiTestCase):

    def power(self, target, ident='n1'):
        return self.put('/v1/nodes/%s/states/power' % ident,
                        json={'target': target}, version=AT)

    @ddt.data(states.POWER_OFF, states.SOFT_POWER_OFF)
    def test_a_power_off_is_409_as_ironic_and_nothing_changes(self, target):
        node = self.create_node(name='n1', disable_power_off=True,
                                power_state=states.POWER_ON)
        self.assertError(self.power(target), 409,
                         'Failed to set node power state to %s' % target,
                         'disable_power_off')
        after = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.POWER_ON, after.power_state)
        self.assertIsNone(after.target_power_state)
        self.assertEqual(0, power_offs(after))

    def test_a_reboot_is_allowed(self):
        node = self.create_node(name='n1', disable_power_off=True,
                                power_state=states.POWER_ON)
        self.assertEqual(202, self.power(states.REBOOT).status_code)
        self.wait_for_state(node, node.provision_state)
        after = objects.Node.get(self.context, node.uuid)
        self.assertEqual(1, boots(after))
        self.assertEqual(0, power_offs(after))

    def test_a_deploy_and_an_undeploy_reboot_it_instead(self):
        # Given an available node that must stay on (the machine is on)
        node = self.make_available(name='n1', power_state=states.POWER_ON)
        node.disable_power_off = True
        node.save()
        # When it is deployed, then undeployed
        self.assertEqual(202, self.provision('n1', 'active',
                                             version=AT).status_code)
        waiting = self.wait_for_state(node, states.DEPLOYWAIT)
        self.agent_heartbeat(waiting)
        active = self.wait_for_state(node, states.ACTIVE)
        # Then the machine was rebooted into the ramdisk and into its
        # instance, never powered off
        self.assertIsNone(active.last_error)
        self.assertEqual(0, power_offs(active))
        self.assertEqual(2, boots(active))
        self.assertEqual(states.POWER_ON, active.power_state)
        self.assertEqual(202, self.provision('n1', 'deleted',
                                             version=AT).status_code)
        gone = self.wait_for_state(node, states.AVAILABLE)
        self.assertEqual(0, power_offs(gone))
        self.assertEqual(states.POWER_ON, gone.power_state)

    def test_the_same_deploy_powers_off_a_node_that_may_be(self):
        node = self.make_available(name='n1', power_state=states.POWER_ON)
        self.assertEqual(202, self.provision('n1', 'active',
                                             version=AT).status_code)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        active = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(1, power_offs(active))

    def test_a_power_off_step_fails_the_deploy_naming_the_field(self):
        node = self.make_available(name='n1', power_state=states.POWER_ON)
        node.disable_power_off = True
        node.save()
        response = self.put('/v1/nodes/n1/states/provision', json={
            'target': 'active', 'deploy_steps': [
                {'interface': 'power', 'step': 'power_off', 'priority': 90,
                 'args': {}}]}, version=AT)
        self.assertEqual(202, response.status_code, response.data)
        failed = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('disable_power_off', failed.last_error)
        self.assertEqual(0, power_offs(failed))


class PinnedTo012Test(base.ApiTestCase):
    """Pinned to 0.12 (API 1.94, Node 1.6) nothing of 1.95 is served."""

    conductor_config = {None: {'pin_release_version': '0.12'}}

    def test_the_field_is_unknown_and_1_95_is_not_served(self):
        self.create_node(name='n1')
        self.assertError(self.get('/v1/nodes/n1', version=AT), 406, AT)
        self.assertNotIn('disable_power_off', self.get(
            '/v1/nodes/n1', version='latest').get_json())
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'n2',
            'disable_power_off': True}, version='latest'), 406,
            'disable_power_off')
        self.assertError(self.patch('/v1/nodes/n1', json=[
            {'op': 'add', 'path': '/disable_power_off', 'value': True}],
            version='latest'), 406, 'disable_power_off')
        self.assertEqual(['n1'], [n.name for n in
                                  objects.Node.list(self.context)])
