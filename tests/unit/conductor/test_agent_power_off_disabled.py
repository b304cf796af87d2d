"""The direct deploy interface on a node whose ``disable_power_off`` is set
(API 1.95), end to end in one process: the real conductor and SQLite,
fake hardware (which counts the times its machine was powered off) and
the fake ironic-python-agent on 127.0.0.1.

As in Ironic: the agent is locked down (``system.lockdown``) where a
deploy or a servicing would power the node off, and the node reboots
into its instance; after cleaning it reboots out of the ramdisk.
"""

from ironic_steps.common import states
from ironic_steps.drivers.modules import fake
from tests.unit.conductor import test_agent_heartbeat as direct

#: A service step of fake hardware that runs out of band.
BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'ProcTurboMode', 'value': 'Enabled'}]}}


def power_offs(node):
    return (node.driver_internal_info or {}).get(fake.POWER_OFFS_KEY, 0)


class LockedDownDeployTest(direct.DirectDeployTestCase):

    def deploy_to_active(self, **fields):
        node = self.deploy_to_step('deploy.write_image', **fields)
        self.heartbeat(node)
        return self.wait_for_state(node, states.ACTIVE)

    def test_the_agent_is_locked_down_and_the_node_rebooted_never_off(self):
        # Given a direct node that must stay on, deployed to write_image
        # When the agent says the image is written
        active = self.deploy_to_active(disable_power_off=True,
                                       power_state=states.POWER_ON)
        # Then the agent flushed the disks and locked itself down, where
        # a node that may be powered off is powered off; the machine
        # was rebooted into the ramdisk and into its instance
        self.assertIsNone(active.last_error)
        self.assertEqual(['standby.sync', 'system.lockdown'],
                         self.ipa.sent()[-2:])
        self.assertEqual(0, power_offs(active))
        self.assertEqual(states.POWER_ON, active.power_state)
        self.assertEqual('disk', active.driver_internal_info[
            'fake_boot_device'])

    def test_a_node_that_may_be_powered_off_is_and_its_agent_not_locked(
            self):
        active = self.deploy_to_active(power_state=states.POWER_ON)
        self.assertNotIn('system.lockdown', self.ipa.sent())
        self.assertEqual(2, power_offs(active))

    def test_servicing_locks_the_agent_down_and_reboots_into_the_instance(
            self):
        # Given an active direct node that must stay on
        active = self.deploy_to_active(disable_power_off=True,
                                       power_state=states.POWER_ON)
        sent = len(self.ipa.sent())
        # When it is serviced with an out-of-band step, the agent booted
        self.rpcapi.do_node_service(self.context, active.uuid, [BIOS])
        waiting = self.wait_for_state(active, states.SERVICEWAIT)
        self.heartbeat(waiting)
        done = self.wait_for_state(active, states.ACTIVE)
        # Then the agent was locked down before the node rebooted into
        # its instance; the machine was never powered off
        self.assertIsNone(done.last_error)
        self.assertIn('system.lockdown', self.ipa.sent()[sent:])
        self.assertEqual(0, power_offs(done))
        self.assertGreater(done.driver_internal_info[fake.BOOTS_KEY],
                           active.driver_internal_info[fake.BOOTS_KEY])
        self.assertEqual('disk', done.driver_internal_info[
            'fake_boot_device'])


class RebootedAfterCleaningTest(direct.DirectTestCase):

    def setUp(self):
        super().setUp()
        self.config(automated_clean=True, group='conductor')

    def test_cleaning_reboots_the_node_out_of_the_ramdisk(self):
        node = self.direct_node(disable_power_off=True,
                                power_state=states.POWER_ON)
        for action, state in (('manage', states.MANAGEABLE),
                              ('provide', states.CLEANWAIT)):
            self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                               action)
            node = self.wait_for_state(node, state)
        self.heartbeat(node)
        for step in ('deploy.erase_devices_metadata', 'deploy.erase_devices'):
            self.heartbeat(self.wait_at(node, states.CLEANWAIT, step))
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual(0, power_offs(node))
        # booted into the ramdisk, rebooted out of it
        self.assertEqual(2, node.driver_internal_info[fake.BOOTS_KEY])
        self.assertEqual(states.POWER_ON, node.power_state)
