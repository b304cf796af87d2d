"""Planning: which steps a node runs, and in what order.

Most tests build a task from small interfaces defined here, so that each
rule is seen on its own; the last ones plan the fake-hardware deploy of a
real node.
"""

import types

import ddt
from oslotest import base as oslotest_base

from ironic_steps.common import exception
from ironic_steps.conductor import steps
from ironic_steps.drivers import base
from ironic_steps.drivers import driver_factory
from tests import base as tests_base

_BASES = {
    'bios': base.BiosInterface, 'boot': base.BootInterface,
    'deploy': base.DeployInterface, 'management': base.ManagementInterface,
    'power': base.PowerInterface, 'raid': base.RAIDInterface,
    'vendor': base.VendorInterface, 'console': base.ConsoleInterface,
    'inspect': base.InspectInterface, 'network': base.NetworkInterface,
    'rescue': base.RescueInterface, 'storage': base.StorageInterface,
    'firmware': base.FirmwareInterface,
}


def make_task(**interfaces):
    """A task-like object: every interface type, given or step-less."""
    driver = {name: interfaces.get(name, _BASES[name]())
              for name in base.ALL_INTERFACES}
    return types.SimpleNamespace(node=None, driver=types.SimpleNamespace(
        **driver))


def labels_and_priorities(plan):
    return [(step.label, step.priority) for step in plan]


class Deploy(base.DeployInterface):

    @base.deploy_step(priority=50)
    @base.clean_step(priority=50)
    def tied(self, task):
        pass

    @base.deploy_step(priority=90)
    def first(self, task):
        pass


class Power(base.PowerInterface):

    @base.deploy_step(priority=50)
    @base.clean_step(priority=50)
    def tied(self, task):
        pass

    @base.deploy_step(priority=10)
    @base.clean_step(priority=10)
    def last(self, task):
        pass


class Raid(base.RAIDInterface):

    @base.deploy_step(priority=70)
    def middle(self, task):
        pass

    @base.deploy_step(priority=0)
    @base.clean_step(priority=0)
    def on_request(self, task):
        pass


class Bios(base.BiosInterface):

    @base.deploy_step(priority=0)
    def also_on_request(self, task):
        pass

    @base.deploy_step(priority=0)
    def on_request_too(self, task):
        pass


class TiedDeploy(base.DeployInterface):

    @base.deploy_step(priority=30)
    def write_image(self, task):
        pass

    @base.deploy_step(priority=30)
    def configure_boot(self, task):
        pass


class LegacyPower:
    """An interface from before steps: not even a BaseInterface."""

    def set_power_state(self, task, power_state):
        pass


@ddt.ddt
class PlanTest(oslotest_base.BaseTestCase):

    def test_steps_run_from_the_highest_priority_across_interfaces(self):
        task = make_task(deploy=Deploy(), power=Power(), raid=Raid())
        self.assertEqual(
            [('deploy.first', 90), ('raid.middle', 70), ('deploy.tied', 50),
             ('power.tied', 50), ('power.last', 10)],
            labels_and_priorities(steps.plan(task, base.DEPLOY)))

    @ddt.data(
        # Each kind has its own tie-break between interfaces.
        (base.DEPLOY, ['deploy.tied', 'power.tied']),
        (base.CLEAN, ['power.tied', 'deploy.tied']),
    )
    @ddt.unpack
    def test_a_tie_between_interfaces_follows_the_kinds_order(
            self, kind, tied_order):
        task = make_task(deploy=Deploy(), power=Power())
        plan = [step.label for step in steps.plan(task, kind)
                if step.priority == 50]
        self.assertEqual(tied_order, plan)

    def test_the_interface_orders_differ_where_documented(self):
        self.assertEqual(('deploy', 'power', 'management', 'boot'),
                         steps.INTERFACE_ORDER[base.DEPLOY][:4])
        self.assertEqual(('power', 'management', 'deploy', 'boot'),
                         steps.INTERFACE_ORDER[base.CLEAN][:4])
        for kind in base.STEP_KINDS:
            self.assertEqual(sorted(base.ALL_INTERFACES),
                             sorted(steps.INTERFACE_ORDER[kind]))

    def test_priority_zero_steps_are_offered_but_not_planned(self):
        task = make_task(raid=Raid())
        offered = [step.label for step in steps.collect(task, base.DEPLOY)]
        planned = [step.label for step in steps.plan(task, base.DEPLOY)]
        self.assertIn('raid.on_request', offered)
        self.assertEqual(['raid.middle'], planned)

    def test_a_tie_on_one_interface_is_a_driver_bug_naming_both_steps(self):
        task = make_task(deploy=TiedDeploy())
        exc = self.assertRaises(exception.DriverStepConflict, steps.plan,
                                task, base.DEPLOY)
        message = str(exc)
        self.assertIn('deploy.configure_boot, deploy.write_image', message)
        self.assertIn('same priority 30', message)

    def test_steps_tied_at_priority_zero_do_not_conflict(self):
        # They never run unless requested, so their order does not matter.
        task = make_task(bios=Bios())
        self.assertEqual([], steps.plan(task, base.DEPLOY))

    def test_an_interface_from_before_steps_is_skipped(self):
        task = make_task(deploy=Deploy(), power=LegacyPower())
        self.assertEqual(['deploy.first', 'deploy.tied'],
                         [step.label for step in steps.plan(task,
                                                            base.DEPLOY)])

    def test_steps_of_the_other_kind_are_not_planned(self):
        task = make_task(raid=Raid())
        self.assertEqual([], steps.plan(task, base.CLEAN))


@ddt.ddt
class StepDictTest(oslotest_base.BaseTestCase):

    @ddt.data(
        {'interface': 'raid', 'step': 'apply_configuration', 'priority': 0,
         'argsinfo': {'raid_config': {'description': 'layout',
                                      'required': True}},
         'args': {'raid_config': {'logical_disks': []}}},
        {'interface': 'deploy', 'step': 'deploy', 'priority': 100,
         'argsinfo': None, 'args': {}},
        {'interface': 'deploy', 'step': 'erase_devices_metadata',
         'priority': 10, 'argsinfo': None, 'args': {}, 'abortable': False},
    )
    def test_a_step_dict_survives_a_round_trip(self, step_dict):
        step = steps.Step.from_dict(step_dict)
        self.assertEqual(step_dict, step.to_dict())
        self.assertEqual(step, steps.Step.from_dict(step.to_dict()))

    def test_a_minimal_step_dict_gets_empty_args_and_no_abortable(self):
        step = steps.Step.from_dict(
            {'interface': 'power', 'step': 'boot_instance', 'priority': 20})
        self.assertEqual('power.boot_instance', step.label)
        self.assertEqual({'interface': 'power', 'step': 'boot_instance',
                          'priority': 20, 'argsinfo': None, 'args': {}},
                         step.to_dict())

    @ddt.data(
        None,
        'deploy.deploy',
        ['deploy', 'deploy', 100],
        {'step': 'deploy', 'priority': 100},
        {'interface': 'deploy', 'priority': 100},
        {'interface': 'deploy', 'step': 'deploy'},
    )
    def test_from_dict_refuses_what_is_not_a_step(self, malformed):
        exc = self.assertRaises(exception.InvalidStep,
                                steps.Step.from_dict, malformed)
        self.assertIn('must be a dict with interface, step and priority',
                      str(exc))
        self.assertIn(repr(malformed), str(exc))

    @ddt.data(
        # (field, bad value): what a driver overriding get_deploy_steps, or
        # a hand-edited driver_internal_info, might hand the planner.
        ('priority', 'high'),
        ('priority', -5),
        ('priority', None),
        ('interface', None),
        ('step', 7),
        ('args', ['size', 10]),
    )
    @ddt.unpack
    def test_from_dict_refuses_fields_of_the_wrong_type(self, field, value):
        step_dict = {'interface': 'deploy', 'step': 'deploy',
                     'priority': 100, field: value}
        exc = self.assertRaises(exception.InvalidStep,
                                steps.Step.from_dict, step_dict)
        self.assertIn(repr(value), str(exc))

    def test_from_dict_names_unknown_keys(self):
        exc = self.assertRaises(
            exception.InvalidStep, steps.Step.from_dict,
            {'interface': 'deploy', 'step': 'deploy', 'priority': 100,
             'retries': 2, 'when': 'now'})
        self.assertIn('unknown keys: retries, when', str(exc))


class FakeHardwarePlanTest(tests_base.TestCase):

    def setUp(self):
        super().setUp()
        node = self.create_node()
        self.task = types.SimpleNamespace(
            node=node, driver=driver_factory.build_driver_for_task(node))

    def test_the_default_deploy_plan_of_fake_hardware(self):
        plan = steps.plan(self.task, base.DEPLOY)
        self.assertEqual(
            [('deploy.deploy', 100), ('deploy.write_image', 80),
             ('management.set_instance_boot_device', 60),
             ('boot.prepare_instance_boot', 60),
             ('power.boot_instance', 20)],
            labels_and_priorities(plan))

    def test_raid_and_bios_configuration_are_offered_but_not_planned(self):
        planned = {step.label for step in steps.plan(self.task, base.DEPLOY)}
        for interface, names in (
                ('raid', ['apply_configuration']),
                ('bios', ['apply_configuration', 'factory_reset'])):
            offered = getattr(self.task.driver,
                              interface).get_deploy_steps(self.task)
            self.assertEqual(names, [step['step'] for step in offered])
            self.assertEqual([0] * len(names),
                             [step['priority'] for step in offered])
            self.assertTrue(offered[0]['argsinfo'])
            for name in names:
                self.assertNotIn('%s.%s' % (interface, name), planned)
        self.assertEqual(
            {'raid_config', 'delete_existing'},
            set(self.task.driver.raid.get_deploy_steps(
                self.task)[0]['argsinfo']))
