"""Changing a node's power (PUT /v1/nodes/{node}/states/power)."""

import ddt

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base


@ddt.ddt
class PowerTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def power(self, target, version=base.LATEST, **extra):
        # By UUID: names identify nodes only from 1.5.
        return self.put('/v1/nodes/%s/states/power' % self.node.uuid,
                        version=version, json=dict(target=target, **extra))

    def wait_for_power(self, expected, timeout=10):
        self.wait_for_state(self.node, self.node.provision_state, timeout)
        node = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual(expected, node.power_state, node.last_error)
        self.assertIsNone(node.target_power_state)
        return node

    @ddt.data((states.POWER_ON, states.POWER_ON),
              (states.POWER_OFF, states.POWER_OFF),
              (states.REBOOT, states.POWER_ON),
              (states.SOFT_POWER_OFF, states.POWER_OFF),
              (states.SOFT_REBOOT, states.POWER_ON))
    @ddt.unpack
    def test_a_power_target_is_accepted_202_and_reached(self, target,
                                                        reached):
        response = self.power(target)
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual(b'', response.data)
        self.assertEqual(
            'http://localhost/v1/nodes/%s/states' % self.node.uuid,
            response.headers['Location'])
        self.wait_for_power(reached)
        body = self.get('/v1/nodes/node-1/states').get_json()
        self.assertEqual(reached, body['power_state'])
        self.assertIsNone(body['target_power_state'])

    def test_power_works_at_the_minimum_version(self):
        self.assertEqual(202, self.power(states.POWER_ON,
                                         version='1.1').status_code)
        self.wait_for_power(states.POWER_ON)

    @ddt.data(states.SOFT_POWER_OFF, states.SOFT_REBOOT)
    def test_soft_targets_need_1_27(self, target):
        self.assertError(self.power(target, version='1.26'), 406, target,
                         '1.27')

    def test_a_timeout_needs_1_27_and_must_be_positive(self):
        self.assertError(self.power(states.POWER_OFF, version='1.26',
                                    timeout=10), 406, 'timeout', '1.27')
        for bad in (0, -5, 'soon', True):
            self.assertError(self.power(states.POWER_OFF, timeout=bad), 400,
                             'timeout')
        self.assertEqual(202, self.power(states.SOFT_POWER_OFF,
                                         timeout=10).status_code)
        self.wait_for_power(states.POWER_OFF)

    def test_an_unknown_target_is_400_listing_the_valid_ones(self):
        self.assertError(self.power('hibernate'), 400, 'hibernate',
                         'power on', 'rebooting', 'soft rebooting')
        self.assertError(self.power('hibernate', version='1.26'), 400,
                         'power on')

    def test_unknown_body_keys_are_400(self):
        self.assertError(self.power(states.POWER_ON, force=True), 400,
                         'force')

    def test_a_failing_power_interface_leaves_last_error_and_no_target(self):
        self.node.driver_info = {'fake_fail_step': 'power.set_power_state'}
        self.node.save()
        self.assertEqual(202, self.power(states.POWER_ON).status_code)
        node = self.wait_for_power(None)
        self.assertIn('power on', node.last_error)
        self.assertIn('simulated failure', node.last_error)
        self.assertEqual(states.ENROLL, node.provision_state)

    def test_a_locked_node_is_409_and_unchanged(self):
        objects.Node.reserve(self.context, 'other-conductor', self.node.id)
        self.assertError(self.power(states.POWER_ON), 409, 'locked',
                         'other-conductor')
        node = objects.Node.get(self.context, self.node.uuid)
        self.assertIsNone(node.target_power_state)
        self.assertIsNone(node.power_state)

    def test_power_is_left_alone_while_cleaning(self):
        self.node.provision_state = states.CLEANWAIT
        self.node.save()
        self.assertError(self.power(states.POWER_OFF), 400, 'clean wait')

    def test_an_unknown_node_is_404(self):
        response = self.put('/v1/nodes/no-such-node/states/power',
                            json={'target': states.POWER_ON})
        self.assertError(response, 404, 'no-such-node')
