"""Fake hardware's RAID and BIOS steps and power, against a real node and
database."""

import ddt

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
            bios, _reset = task.driver.bios.get_steps(task,
                                                      drivers_base.DEPLOY)
        self.assertFalse(raid['argsinfo']['raid_config']['required'])
        self.assertTrue(bios['argsinfo']['settings']['required'])


@ddt.ddt
class FakeBiosTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node()

    def run_step(self, step, **args):
        with task_manager.acquire(self.context, self.node.uuid) as task:
            getattr(task.driver.bios, step)(task, **args)
            task.node.save()
        return objects.Node.get(self.context, self.node.uuid)

    def apply(self, *pairs):
        return self.run_step('apply_configuration', settings=[
            {'name': name, 'value': value} for name, value in pairs])

    def cached(self):
        return {s.name: s.value for s in objects.BIOSSetting.list_by_node(
            self.context, self.node.id)}

    def test_a_fake_node_starts_with_no_cached_settings(self):
        self.assertEqual({}, self.cached())

    def test_applied_settings_are_cached_with_those_set_before(self):
        self.apply(('LogicalProc', 'Enabled'), ('BootMode', 'Bios'))
        node = self.apply(('BootMode', 'Uefi'), ('SecureBoot', None))
        self.assertEqual({'LogicalProc': 'Enabled', 'BootMode': 'Uefi',
                          'SecureBoot': None}, self.cached())
        # What was applied last is still recorded where it always was.
        self.assertEqual([{'name': 'BootMode', 'value': 'Uefi'},
                          {'name': 'SecureBoot', 'value': None}],
                         node.driver_internal_info['fake_bios_settings'])

    def test_the_fake_bmcs_registry_describes_the_settings_it_knows(self):
        self.apply(('BootMode', 'Bios'), ('PowerOnDelay', 5),
                   ('Custom', 'x'))
        stored = {s.name: s for s in objects.BIOSSetting.list_by_node(
            self.context, self.node.id)}
        self.assertEqual(('Enumeration', ['Uefi', 'Bios'], True),
                         (stored['BootMode'].attribute_type,
                          stored['BootMode'].allowable_values,
                          stored['BootMode'].reset_required))
        self.assertEqual(('Integer', 0, 120), (
            stored['PowerOnDelay'].attribute_type,
            stored['PowerOnDelay'].lower_bound,
            stored['PowerOnDelay'].upper_bound))
        self.assertEqual('5', stored['PowerOnDelay'].value)
        # A setting it does not know has no facts.
        self.assertIsNone(stored['Custom'].attribute_type)
        self.assertIsNone(stored['Custom'].allowable_values)

    def test_the_later_of_two_entries_for_a_name_wins(self):
        self.apply(('BootMode', 'Bios'), ('BootMode', 'Uefi'))
        self.assertEqual({'BootMode': 'Uefi'}, self.cached())

    def test_a_factory_reset_clears_the_cached_settings(self):
        self.apply(('LogicalProc', 'Enabled'))
        node = self.run_step('factory_reset')
        self.assertEqual({}, self.cached())
        self.assertEqual([], node.driver_internal_info['fake_bios_settings'])

    def test_each_step_writes_the_cache_in_one_transaction(self):
        self.apply(('Gone', '1'), ('Changed', 'old'))
        with base.SQLStatements() as recorded:
            self.apply(('Changed', 'new'), ('New', '2'))
        cache_writes = [statement.split()[0].upper()
                        for statement in recorded.statements
                        if 'bios_settings' in statement.split('(')[0]
                        and not statement.upper().startswith('SELECT')]
        self.assertEqual(['UPDATE', 'INSERT'], cache_writes)
        self.assertEqual(1, recorded.verbs().count('BEGIN'))

    def test_a_failing_step_caches_nothing(self):
        self.apply(('LogicalProc', 'Enabled'))
        node = objects.Node.get(self.context, self.node.uuid)
        node.driver_info = {'fake_fail_step': 'bios.apply_configuration'}
        node.save()
        self.assertRaises(exception.StepFailed, self.apply,
                          ('LogicalProc', 'Disabled'))
        self.assertEqual({'LogicalProc': 'Enabled'}, self.cached())

    @ddt.data(
        # (settings, words the refusal must say)
        ({'BootMode': 'Uefi'}, ['list', 'dict']),
        (['BootMode'], ['settings[0]', 'str']),
        ([{'name': 'AdminPassword'}], ['settings[0]', 'keys name']),
        ([{'name': 'A', 'value': '1'}, {'name': 'AdminPassword',
                                        'value': 's3cret', 'old': 'x'}],
         ['settings[1]', 'name, old, value']),
        ([{'name': '', 'value': 's3cret'}], ['settings[0]', 'non-empty']),
        ([{'name': 3, 'value': 's3cret'}], ['settings[0]', 'non-empty']),
        ([{'name': 'AdminPassword', 'value': {'s3cret': 1}}],
         ['AdminPassword', 'dict']),
    )
    @ddt.unpack
    def test_malformed_settings_are_refused_and_nothing_cached(self, settings,
                                                               words):
        self.apply(('Kept', 'yes'))
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.run_step, 'apply_configuration',
                                settings=settings)
        for word in words:
            self.assertIn(word, str(exc))
        self.assertNotIn('s3cret', str(exc))
        self.assertEqual({'Kept': 'yes'}, self.cached())

    def test_pinned_to_0_3_the_steps_work_as_before_caching_nothing(self):
        self.apply(('LogicalProc', 'Enabled'))
        self.config(pin_release_version='0.3')
        node = self.apply(('LogicalProc', 'Disabled'))
        self.assertEqual([{'name': 'LogicalProc', 'value': 'Disabled'}],
                         node.driver_internal_info['fake_bios_settings'])
        self.run_step('factory_reset')
        self.assertEqual({'LogicalProc': 'Enabled'}, self.cached())


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
