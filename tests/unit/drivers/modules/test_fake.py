"""Fake hardware's RAID step and power, against a real node and database."""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import task_manager
from ironic_steps.drivers import base as drivers_base
from ironic_steps import objects
from tests import base

LAYOUT = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1',
                             'is_root_volume': True}]}


class FakeRaidTest(base.TestCase):

    def apply(self, node, **args):
        with task_manager.acquire(self.context, node.uuid) as task:
            task.driver.raid.apply_configuration(task, **args)
            task.node.save()
        return objects.Node.get(self.context, node.uuid)

    def test_without_an_argument_it_builds_the_target_raid_config(self):
        node = self.create_node(target_raid_config=LAYOUT)
        node = self.apply(node)
        self.assertEqual(LAYOUT, node.raid_config)

    def test_an_argument_wins_over_the_target(self):
        other = {'logical_disks': [{'size_gb': 10, 'raid_level': '0'}]}
        node = self.apply(self.create_node(target_raid_config=LAYOUT),
                          raid_config=other)
        self.assertEqual(other, node.raid_config)

    def test_without_argument_or_target_it_fails_saying_how_to_fix_it(self):
        node = self.create_node()
        exc = self.assertRaises(exception.InvalidParameterValue, self.apply,
                                node)
        self.assertIn(node.uuid, str(exc))
        self.assertIn('raid_config', str(exc))
        self.assertIn('states/raid', str(exc))
        self.assertIsNone(objects.Node.get(self.context,
                                           node.uuid).raid_config)

    def test_an_invalid_layout_is_refused_before_anything_is_built(self):
        node = self.create_node()
        exc = self.assertRaises(
            exception.InvalidParameterValue, self.apply, node,
            raid_config={'logical_disks': [{'size_gb': 1}]})
        self.assertIn('raid_level', str(exc))

    def test_its_raid_config_argument_is_optional_bios_settings_are_not(self):
        with task_manager.acquire(self.context, self.create_node().uuid,
                                  shared=True) as task:
            raid, = task.driver.raid.get_steps(task, drivers_base.DEPLOY)
            bios, = task.driver.bios.get_steps(task, drivers_base.DEPLOY)
        self.assertFalse(raid['argsinfo']['raid_config']['required'])
        self.assertTrue(bios['argsinfo']['settings']['required'])


class FakePowerTest(base.TestCase):

    def test_every_target_is_supported_and_leaves_its_state(self):
        node = self.create_node()
        with task_manager.acquire(self.context, node.uuid) as task:
            power = task.driver.power
            self.assertEqual(
                {states.POWER_ON, states.POWER_OFF, states.REBOOT,
                 states.SOFT_POWER_OFF, states.SOFT_REBOOT},
                set(power.get_supported_power_states(task)))
            power.set_power_state(task, states.SOFT_POWER_OFF, timeout=5)
            self.assertEqual(states.POWER_OFF, task.node.power_state)
            power.reboot(task)
            self.assertEqual(states.POWER_ON, task.node.power_state)
