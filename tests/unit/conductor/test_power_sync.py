"""The power state sync keeps recorded power states true to the hardware."""

from ironic_steps.common import states
from ironic_steps.conductor import power_sync
from ironic_steps import objects
from tests import base as tests_base
from tests import plugins


class HardwarePower(plugins.SimplePower):
    """Power whose hardware the test changes behind the conductor's back."""

    reads_hardware = True

    def __init__(self):
        self.hardware = {}
        self.reads = []

    def get_power_state(self, task):
        self.reads.append(task.node.uuid)
        state = self.hardware.get(task.node.uuid, states.POWER_OFF)
        if isinstance(state, Exception):
            raise state
        return state


class PowerSyncTest(tests_base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        self.power = HardwarePower()
        self.useFixture(plugins.HardwarePlugin('bmc', power=self.power))
        self.config(enabled_hardware_types=['fake-hardware', 'bmc'])
        self.sync = power_sync.PowerStateSync(self.manager._acquire,
                                              self.manager._owns)

    def node(self, state=states.MANAGEABLE, **fields):
        node = self.create_node(driver='bmc', power_state=states.POWER_ON,
                                **fields)
        objects.Node.dbapi.update_node(node.id, {'provision_state': state})
        self.power.hardware[node.uuid] = states.POWER_OFF
        return node

    def power_state(self, node):
        return objects.Node.get(self.context, node.uuid).power_state

    def test_a_node_turned_off_behind_our_back_is_recorded_off(self):
        node = self.node()
        self.assertEqual(1, self.sync.run(self.context))
        self.assertEqual(states.POWER_OFF, self.power_state(node))
        self.assertIsNone(objects.Node.get(self.context,
                                           node.uuid).reservation)
        # and once true, nothing more is written
        self.assertEqual(0, self.sync.run(self.context))

    def test_nodes_in_maintenance_enroll_a_flow_or_locked_are_left_alone(
            self):
        skipped = [self.node(maintenance=True),
                   self.node(state=states.ENROLL),
                   self.node(state=states.DEPLOYWAIT),
                   self.node(state=states.CLEANING)]
        locked = self.node()
        objects.Node.reserve(self.context, 'someone-else', locked.id)
        self.assertEqual(0, self.sync.run(self.context))
        for node in skipped + [locked]:
            self.assertEqual(states.POWER_ON, self.power_state(node))
        self.assertEqual([], self.power.reads)

    def test_a_bmc_that_cannot_be_read_changes_nothing(self):
        broken, fine = self.node(), self.node()
        self.power.hardware[broken.uuid] = RuntimeError('BMC unreachable')
        self.assertEqual(1, self.sync.run(self.context))
        self.assertEqual(states.POWER_ON, self.power_state(broken))
        self.assertEqual(states.POWER_OFF, self.power_state(fine))

    def test_fake_hardware_is_not_read_at_all(self):
        node = self.create_node(power_state=states.POWER_ON)
        objects.Node.dbapi.update_node(node.id,
                                       {'provision_state': states.ACTIVE})
        self.assertEqual(0, self.sync.run(self.context))
        self.assertEqual(states.POWER_ON, self.power_state(node))

    def test_only_the_owner_syncs(self):
        node = self.node()
        not_mine = power_sync.PowerStateSync(self.manager._acquire,
                                             lambda uuid, driver: False)
        self.assertEqual(0, not_mine.run(self.context))
        self.assertEqual(states.POWER_ON, self.power_state(node))
