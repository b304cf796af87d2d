"""The step decorators and what BaseInterface makes of them.

A driver author's mistakes must surface when the driver is imported, with
a message naming the method and the bad value; correct declarations become
the step dicts the conductor plans with.
"""

import types

import ddt
from oslotest import base as oslotest_base

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import base

TASK = types.SimpleNamespace(node=None)

BAD_PRIORITIES = (-1, 'x', 1.5, True, None)

BAD_ARGSINFO = (
    # (argsinfo, a piece of the message naming what is wrong)
    (['size'], "got ['size'] (list)"),
    ({'size': 'the size'}, "argsinfo['size'] must be a dict"),
    ({'size': {'required': True}}, "argsinfo['size']['description'] is "
                                   "required"),
    ({'size': {'description': 10}}, "must be a string, got 10"),
    ({'size': {'description': 'GiB', 'required': 'yes'}},
     "argsinfo['size']['required'] must be a bool, got 'yes'"),
    ({'size': {'description': 'GiB', 'default': 1}},
     "argsinfo['size'] has unknown key(s) default"),
    ({'not-a-name': {'description': 'GiB'}},
     "argument name 'not-a-name' is not a valid Python identifier"),
    ({1: {'description': 'GiB'}},
     'argument name 1 is not a valid Python identifier'),
)

SIZE_ARGSINFO = {'size': {'description': 'Size in GiB.', 'required': True},
                 'wipe': {'description': 'Wipe first (bool).'}}


def decorators(**kwargs):
    """Both front doors, applied with the same arguments."""
    return (('deploy_step', base.deploy_step(**kwargs)),
            ('clean_step', base.clean_step(**kwargs)))


def define_interface_with(decorator):
    """Define a class the way a driver module does, at import time."""

    class BadRaid(base.RAIDInterface):

        @decorator
        def build(self, task):
            pass

    return BadRaid


def _define_waiting_interface(decorator):

    class Waiting(base.PowerInterface):

        @decorator
        def wait(self, task):
            pass

    return Waiting


@ddt.ddt
class DecoratorValidationTest(oslotest_base.BaseTestCase):

    def assert_refused_at_definition(self, decorator_name, decorator,
                                     *expected):
        exc = self.assertRaises(exception.InvalidStepDefinition,
                                define_interface_with, decorator)
        message = str(exc)
        self.assertIn('@%s' % decorator_name, message)
        # The qualified name tells the author which class, not just 'build'.
        self.assertIn('define_interface_with.<locals>.BadRaid.build',
                      message)
        for piece in expected:
            self.assertIn(piece, message)

    def test_a_method_with_a_reserved_step_name_is_refused(self):
        for name, decorator in decorators(priority=0):
            exc = self.assertRaises(exception.InvalidStepDefinition,
                                    _define_waiting_interface, decorator)
            self.assertIn('@%s' % name, str(exc))
            self.assertIn('wait is a step name the conductor reserves',
                          str(exc))

    def test_a_precheck_that_is_not_a_function_is_refused(self):
        for name, decorator in decorators(priority=0, precheck='check'):
            self.assert_refused_at_definition(
                name, decorator, "precheck must be None or a function")

    @ddt.data(*BAD_PRIORITIES)
    def test_a_bad_priority_is_refused_when_the_class_is_defined(
            self, priority):
        for name, decorator in decorators(priority=priority):
            self.assert_refused_at_definition(
                name, decorator, 'priority must be a non-negative integer',
                'got %r' % (priority,))

    @ddt.data(*BAD_ARGSINFO)
    @ddt.unpack
    def test_a_bad_argsinfo_is_refused_when_the_class_is_defined(
            self, argsinfo, expected):
        for name, decorator in decorators(priority=10, argsinfo=argsinfo):
            self.assert_refused_at_definition(name, decorator, expected)

    @ddt.data('yes', 1, None)
    def test_clean_step_abortable_must_be_a_bool(self, abortable):
        decorator = base.clean_step(priority=10, abortable=abortable)
        self.assert_refused_at_definition(
            'clean_step', decorator,
            'abortable must be a bool, got %r' % (abortable,))

    @ddt.data(0, -5, '30', True, float('nan'), float('inf'), [30])
    def test_a_bad_timeout_is_refused_when_the_class_is_defined(
            self, timeout):
        for name, decorator in decorators(priority=10, timeout=timeout):
            self.assert_refused_at_definition(
                name, decorator, 'timeout must be None or a positive number '
                'of seconds', 'got %r' % (timeout,))

    @ddt.data('no', 0, None)
    def test_deploy_step_resumable_must_be_a_bool(self, resumable):
        self.assert_refused_at_definition(
            'deploy_step', base.deploy_step(priority=10, resumable=resumable),
            'resumable must be a bool, got %r' % (resumable,))

    def test_timeout_and_resumable_reach_the_step_dict_only_when_declared(
            self):
        class Steps(base.DeployInterface):
            @base.deploy_step(priority=20, timeout=90, resumable=False)
            def boot_ramdisk(self, task):
                pass

            @base.deploy_step(priority=10)
            def plain(self, task):
                pass

        boot_ramdisk, plain = sorted(Steps().get_deploy_steps(None),
                                     key=lambda step: -step['priority'])
        self.assertEqual((90, False), (boot_ramdisk['timeout'],
                                       boot_ramdisk['resumable']))
        self.assertNotIn('timeout', plain)
        self.assertNotIn('resumable', plain)

    def test_the_error_is_a_value_error_too(self):
        # Callers that only know Python's conventions can still catch it.
        self.assertRaises(ValueError, define_interface_with,
                          base.deploy_step(priority=-1))

    def test_decorating_something_not_callable_is_refused(self):
        exc = self.assertRaises(exception.InvalidStepDefinition,
                                base.deploy_step(priority=10), 'build')
        self.assertIn('it can only decorate a method', str(exc))


class Raid(base.RAIDInterface):
    """Steps of every shape, for the tests below."""

    @base.deploy_step(priority=40, argsinfo=SIZE_ARGSINFO)
    def create_volume(self, task, size, wipe=False):
        return {'size': size, 'wipe': wipe}

    @base.deploy_step(priority=10)
    @base.clean_step(priority=30, abortable=True)
    def delete_configuration(self, task):
        pass

    @base.clean_step(priority=0)
    def inspect(self, task):
        return states.CLEANWAIT

    def not_a_step(self, task):
        pass


class SlowerRaid(Raid):
    """Inherits Raid's steps and runs one of them at another priority."""

    @base.deploy_step(priority=5)
    def delete_configuration(self, task):
        return states.DEPLOYWAIT

    @base.deploy_step(priority=1)
    def verify(self, task):
        pass


def by_name(steps):
    return {step['step']: step for step in steps}


class OfferedStepsTest(oslotest_base.BaseTestCase):

    def test_deploy_steps_are_offered_as_dicts_of_the_public_shape(self):
        self.assertEqual(
            [{'interface': 'raid', 'step': 'create_volume', 'priority': 40,
              'argsinfo': SIZE_ARGSINFO},
             {'interface': 'raid', 'step': 'delete_configuration',
              'priority': 10, 'argsinfo': None}],
            Raid().get_deploy_steps(TASK))

    def test_clean_steps_carry_abortable_and_keep_priority_zero(self):
        self.assertEqual(
            [{'interface': 'raid', 'step': 'delete_configuration',
              'priority': 30, 'argsinfo': None, 'abortable': True},
             {'interface': 'raid', 'step': 'inspect', 'priority': 0,
              'argsinfo': None, 'abortable': False}],
            Raid().get_clean_steps(TASK))

    def test_a_method_of_both_kinds_has_its_own_priority_in_each(self):
        raid = Raid()
        self.assertEqual(
            10, by_name(raid.get_deploy_steps(TASK))[
                'delete_configuration']['priority'])
        self.assertEqual(
            30, by_name(raid.get_clean_steps(TASK))[
                'delete_configuration']['priority'])

    def test_an_interface_without_steps_offers_an_empty_list(self):
        self.assertEqual([], base.VendorInterface().get_deploy_steps(TASK))
        self.assertEqual([], base.VendorInterface().get_clean_steps(TASK))

    def test_subclasses_inherit_steps_and_may_override_them(self):
        steps = by_name(SlowerRaid().get_deploy_steps(TASK))
        self.assertEqual({'create_volume', 'delete_configuration', 'verify'},
                         set(steps))
        self.assertEqual(40, steps['create_volume']['priority'])
        self.assertEqual(5, steps['delete_configuration']['priority'])
        # The override replaced the deploy mark only; the parent keeps its.
        self.assertEqual(
            10, by_name(Raid().get_deploy_steps(TASK))[
                'delete_configuration']['priority'])

    def test_the_offered_steps_are_copies_the_caller_may_change(self):
        # Interfaces are shared by every task: one caller's edits must not
        # leak into what the next caller is offered.
        class Bios(base.BiosInterface):
            @base.deploy_step(priority=5, argsinfo={
                'settings': {'description': 'A list.', 'required': True}})
            def apply(self, task, settings):
                pass

        bios = Bios()
        offered = bios.get_deploy_steps(TASK)[0]
        offered['priority'] = 99
        offered['argsinfo']['settings']['required'] = False
        offered['argsinfo']['sneaked_in'] = {'description': 'x'}
        self.assertEqual(
            [{'interface': 'bios', 'step': 'apply', 'priority': 5,
              'argsinfo': {'settings': {'description': 'A list.',
                                        'required': True}}}],
            bios.get_deploy_steps(TASK))


class ExecuteStepTest(oslotest_base.BaseTestCase):

    def test_the_step_args_become_keyword_arguments(self):
        result = Raid().execute_deploy_step(
            TASK, {'interface': 'raid', 'step': 'create_volume',
                   'priority': 40, 'args': {'size': 100, 'wipe': True}})
        self.assertEqual({'size': 100, 'wipe': True}, result)

    def test_a_step_without_args_is_called_with_none(self):
        self.assertIsNone(Raid().execute_deploy_step(
            TASK, {'interface': 'raid', 'step': 'delete_configuration',
                   'priority': 10}))

    def test_what_the_step_returns_is_returned(self):
        self.assertEqual(states.DEPLOYWAIT, SlowerRaid().execute_deploy_step(
            TASK, {'interface': 'raid', 'step': 'delete_configuration',
                   'priority': 5, 'args': {}}))
        self.assertEqual(states.CLEANWAIT, Raid().execute_clean_step(
            TASK, {'interface': 'raid', 'step': 'inspect', 'priority': 0}))

    def test_a_step_the_interface_lacks_is_refused_listing_its_steps(self):
        exc = self.assertRaises(
            exception.InvalidStep, Raid().execute_deploy_step,
            TASK, {'interface': 'raid', 'step': 'not_a_step',
                   'priority': 10})
        message = str(exc)
        self.assertIn('raid interface Raid has no deploy step not_a_step',
                      message)
        self.assertIn('it offers: create_volume, delete_configuration',
                      message)

    def test_a_clean_step_is_not_a_deploy_step(self):
        exc = self.assertRaises(
            exception.InvalidStep, Raid().execute_deploy_step,
            TASK, {'interface': 'raid', 'step': 'inspect', 'priority': 0})
        self.assertIn('has no deploy step inspect', str(exc))

    def test_an_interface_without_steps_says_it_offers_none(self):
        exc = self.assertRaises(
            exception.InvalidStep, base.VendorInterface().execute_deploy_step,
            TASK, {'interface': 'vendor', 'step': 'anything',
                   'priority': 1})
        self.assertIn('it offers: none', str(exc))
