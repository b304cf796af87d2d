"""Manual cleaning with ``disable_ramdisk`` (API 1.70): out-of-band steps
run without booting the node's agent; a step that needs the agent is
refused before the node moves."""

import ddt

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

RAID = {'interface': 'raid', 'step': 'apply_configuration',
        'args': {'raid_config': {'logical_disks': [
            {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True}]}}}


@ddt.ddt
class CleanWithoutRamdiskTest(base.ApiTestCase):

    def manageable(self, **fields):
        node = self.create_node(name='node-1', **fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def clean(self, version='1.70', **request_body):
        return self.put('/v1/nodes/node-1/states/provision',
                        json={'target': 'clean', **request_body},
                        version=version)

    def test_out_of_band_steps_run_without_booting_the_agent(self):
        node = self.manageable(deploy_interface='direct')
        power_before = node.power_state
        response = self.clean(clean_steps=[RAID], disable_ramdisk=True)
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual(RAID['args']['raid_config'], node.raid_config)
        # The direct interface boots its agent by powering the node on:
        # untouched here, and nothing of the flow is left behind.
        self.assertEqual(power_before, node.power_state)
        self.assertNotIn('cleaning_disable_ramdisk',
                         node.driver_internal_info)
        self.assertNotIn('agent_url', node.driver_internal_info)

    def test_without_it_the_same_request_boots_the_agent_and_waits(self):
        node = self.manageable(deploy_interface='direct')
        response = self.clean(clean_steps=[RAID])
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(node, states.CLEANWAIT)
        self.assertEqual(states.POWER_ON, node.power_state)

    @ddt.data(
        # The agent's own steps: not reported, and never will be.
        ('direct', {'interface': 'deploy', 'step': 'erase_devices_metadata'},
         'deploy.erase_devices_metadata'),
        # A driver step that does not say it runs without the agent.
        ('fake', {'interface': 'deploy', 'step': 'erase_devices_metadata'},
         'needs the node booted into its agent'),
        # A wait for the agent's next heartbeat.
        ('direct', {'interface': 'deploy', 'step': 'wait'},
         'needs the node booted into its agent'),
    )
    @ddt.unpack
    def test_a_step_that_needs_the_agent_is_400_and_nothing_moves(
            self, deploy_interface, step, fragment):
        node = self.manageable(deploy_interface=deploy_interface)
        response = self.clean(clean_steps=[RAID, step], disable_ramdisk=True)
        self.assertError(response, 400, fragment)
        self.assertNodeUnchanged(node)

    def test_reserved_power_steps_and_a_timed_wait_need_no_agent(self):
        node = self.manageable(deploy_interface='direct')
        steps = [{'interface': 'power', 'step': 'power_on'},
                 {'interface': 'deploy', 'step': 'wait',
                  'args': {'seconds': 1}},
                 {'interface': 'power', 'step': 'power_off'}]
        response = self.clean(clean_steps=steps, disable_ramdisk='True')
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual(states.POWER_OFF, node.power_state)

    def test_false_is_an_ordinary_manual_clean(self):
        node = self.manageable()
        response = self.clean(clean_steps=[RAID], disable_ramdisk=False)
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.MANAGEABLE)

    def test_it_exists_from_1_70_whatever_the_target(self):
        node = self.manageable()
        self.assertError(self.clean(version='1.69', clean_steps=[RAID],
                                    disable_ramdisk=True),
                         406, 'disable_ramdisk', '1.70')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'provide', 'disable_ramdisk': True}, version='1.69')
        self.assertError(response, 406, 'disable_ramdisk', '1.70')
        self.assertNodeUnchanged(node)

    @ddt.data(('provide', True, "'provide'"), ('clean', 'yes', "'yes'"),
              ('clean', None, 'None'))
    @ddt.unpack
    def test_a_bad_use_is_400_naming_it(self, target, value, fragment):
        node = self.manageable()
        request_body = {'target': target, 'disable_ramdisk': value}
        if target == 'clean':
            request_body['clean_steps'] = [RAID]
        response = self.put('/v1/nodes/node-1/states/provision',
                            json=request_body, version='1.70')
        self.assertError(response, 400, 'disable_ramdisk', fragment)
        self.assertNodeUnchanged(node)
        self.assertEqual(states.MANAGEABLE, objects.Node.get(
            self.context, node.uuid).provision_state)


class PinnedTo09Test(base.ApiTestCase):
    """Release 0.9's conductors take no disable_ramdisk: its API maximum
    (1.69) has none."""

    conductor_config = {None: {'pin_release_version': '0.9'}}

    def test_1_70_is_above_the_pinned_maximum(self):
        node = self.create_node(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'clean_steps': [RAID],
            'disable_ramdisk': True}, version='1.70')
        self.assertError(response, 406, '1.70', '1.69')
        self.assertNodeUnchanged(node)

    def test_the_conductor_call_is_refused_naming_the_release(self):
        node = self.create_node(name='node-1')
        self.assertRaisesRegex(
            Exception, '0.10', self.rpcapi.do_node_clean, self.context,
            node.uuid, [RAID], disable_ramdisk=True)
