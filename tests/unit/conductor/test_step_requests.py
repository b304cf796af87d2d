"""Steps operators ask for: the merge with the driver's steps, and refusals.

Planned on a real fake-hardware node with its real driver, as the conductor
plans it: the driver's steps, overridden by each request in turn.
"""

import types

import ddt

from ironic_steps.common import exception
from ironic_steps.conductor import steps
from ironic_steps.drivers import base
from ironic_steps.drivers import driver_factory
from tests import base as tests_base

RAID = {'raid_config': {'logical_disks': [{'size_gb': 100,
                                           'raid_level': '1'}]}}
BIOS = {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]}
SECRET = 'hunter2-in-step-args'


def step(label, priority, args=None):
    interface, name = label.split('.')
    return {'interface': interface, 'step': name, 'priority': priority,
            'args': args if args is not None else {}}


def requests(*sources):
    """Requests named source-1, source-2, ... (later ones win)."""
    return [steps.Request(source='source-%d' % i, steps=list(source))
            for i, source in enumerate(sources, 1)]


class RequestTestCase(tests_base.TestCase):

    def setUp(self):
        super().setUp()
        node = self.create_node()
        self.task = types.SimpleNamespace(
            node=node, driver=driver_factory.build_driver_for_task(node))

    def plan(self, *sources):
        return [(s.label, s.priority, dict(s.args))
                for s in steps.plan(self.task, base.DEPLOY,
                                    requests(*sources))]

    def refused(self, *sources):
        exc = self.assertRaises(exception.InvalidRequestedSteps,
                                steps.plan, self.task, base.DEPLOY,
                                requests(*sources))
        self.assertEqual(400, exc.code)
        return str(exc)


@ddt.ddt
class DeployMergeTest(RequestTestCase):

    def test_without_requests_the_driver_plan_runs(self):
        self.assertEqual(
            ['deploy.deploy', 'deploy.write_image',
             'management.set_instance_boot_device',
             'boot.prepare_instance_boot', 'power.boot_instance'],
            [label for label, _p, _a in self.plan()])

    def test_a_request_enables_off_by_default_steps_in_priority_order(self):
        planned = self.plan([step('raid.apply_configuration', 90, RAID),
                             step('bios.apply_configuration', 95, BIOS)])
        self.assertEqual(
            [('deploy.deploy', 100, {}),
             ('bios.apply_configuration', 95, BIOS),
             ('raid.apply_configuration', 90, RAID),
             ('deploy.write_image', 80, {})], planned[:4])

    def test_a_request_moves_a_driver_step(self):
        planned = self.plan([step('power.boot_instance', 99)])
        self.assertEqual(('power.boot_instance', 99, {}), planned[1])

    @ddt.data('deploy.deploy', 'deploy.write_image', 'power.boot_instance')
    def test_priority_zero_disables_a_step(self, label):
        planned = [label for label, _p, _a in self.plan([step(label, 0)])]
        self.assertNotIn(label, planned)
        self.assertEqual(4, len(planned))

    def test_a_later_source_overrides_priority_and_args(self):
        other = {'raid_config': {'logical_disks': [
            {'size_gb': 10, 'raid_level': '0'}]}}
        planned = self.plan(
            [step('raid.apply_configuration', 90, RAID)],
            [step('raid.apply_configuration', 85, other)])
        self.assertIn(('raid.apply_configuration', 85, other), planned)
        self.assertNotIn(('raid.apply_configuration', 90, RAID), planned)

    def test_a_later_source_disables_what_an_earlier_one_enabled(self):
        planned = self.plan(
            [step('raid.apply_configuration', 90, RAID)],
            [step('raid.apply_configuration', 0, RAID)])
        self.assertNotIn('raid.apply_configuration',
                         [label for label, _p, _a in planned])

    def test_a_disabled_step_needs_no_required_argument(self):
        planned = self.plan([step('bios.apply_configuration', 0)])
        self.assertEqual(5, len(planned))

    def test_the_same_step_in_two_sources_is_no_duplicate(self):
        self.assertIn(('power.boot_instance', 30, {}), self.plan(
            [step('power.boot_instance', 10)],
            [step('power.boot_instance', 30)]))

    @ddt.data(
        # (request, fragments the refusal must contain)
        ([step('raid.apply_cfg', 10)],
         ['source-1', 'raid.apply_cfg', 'offers no deploy step',
          'raid.apply_configuration']),
        ([step('firmware.update', 10)],
         ['firmware.update', 'offers no deploy step']),
        ([step('raid.apply_configuration', 10, dict(RAID, size=3))],
         ['raid.apply_configuration', 'does not take argument(s) size',
          'delete_existing, raid_config']),
        ([step('bios.apply_configuration', 10)],
         ['bios.apply_configuration', 'needs argument(s) settings']),
        ([step('bios.apply_configuration', -1, BIOS)],
         ['bios.apply_configuration', 'priority', '-1']),
        ([step('bios.apply_configuration', '10', BIOS)],
         ['bios.apply_configuration', 'priority', "'10'"]),
        ([step('bios.apply_configuration', True, BIOS)],
         ['priority', 'True']),
        ([step('bios.apply_configuration', 1.5, BIOS)],
         ['priority', '1.5']),
        ([step('deploy.deploy', 50)],
         ['deploy.deploy', 'core deploy step', 'priority 50']),
        ([step('deploy.deploy', 100)],
         ['deploy.deploy', 'core deploy step']),
        ([step('raid.apply_configuration', 90, RAID),
          step('raid.apply_configuration', 80, RAID)],
         ['raid.apply_configuration is asked for twice']),
        ([step('deploy.write_image', 100)],
         ['deploy.deploy and deploy.write_image', 'one priority (100)',
          'interface deploy']),
        (['raid.apply_configuration'], ['each step must be an object']),
        ([{'interface': 'raid', 'step': 'apply_configuration',
           'priority': 10}], ['lacks args']),
        ([dict(step('power.boot_instance', 10), when='now')],
         ['unknown key(s) when']),
        ([step('power.boot_instance', 10, ['x'])],
         ['args must be an object']),
        ([{'interface': 'power', 'step': '', 'priority': 1, 'args': {}}],
         ['step must be a non-empty string']),
        ([step(label, 0) for label in (
            'deploy.deploy', 'deploy.write_image',
            'management.set_instance_boot_device',
            'boot.prepare_instance_boot', 'power.boot_instance')],
         ['disable every deploy step']),
    )
    @ddt.unpack
    def test_a_request_that_cannot_be_honoured_is_refused(self, request,
                                                          fragments):
        message = self.refused(request)
        for fragment in fragments:
            self.assertIn(fragment, message)
        self.assertIn(self.task.node.uuid, message)

    @ddt.data(
        [{'interface': 'raid', 'step': 'apply_configuration',
          'args': {'bmc_password': SECRET}}],
        [{'interface': {'api_token': SECRET}, 'step': 'x', 'priority': 1,
          'args': {}}],
        [step('raid.apply_configuration', 10, [{'bmc_password': SECRET}])],
        [step('raid.apply_configuration', {'bmc_password': SECRET}, RAID)],
        [[{'bmc_password': SECRET}]])
    def test_a_refusal_never_quotes_what_a_step_holds(self, request):
        # Step arguments may carry credentials: a refusal names the step
        # and the problem, not the values (its message is logged too).
        message = self.refused(request)
        self.assertNotIn(SECRET, message)

    def test_every_problem_is_named_at_once(self):
        message = self.refused(
            [step('raid.nope', 10)],
            [step('bios.apply_configuration', 10), step('deploy.deploy', 7)])
        self.assertIn('source-1: the node offers no deploy step raid.nope',
                      message)
        self.assertIn('source-2: deploy step bios.apply_configuration needs',
                      message)
        self.assertIn('source-2: deploy.deploy is a core deploy step',
                      message)

    def test_a_flood_of_bad_steps_gets_a_bounded_refusal(self):
        flood = [step('raid.nope_%d' % i, 10) for i in range(1000)]
        message = self.refused(flood)
        self.assertIn('raid.nope_0', message)
        self.assertIn('and %d more' % (1000 - steps.MAX_PROBLEMS_SHOWN),
                      message)
        self.assertNotIn('raid.nope_999', message)
        self.assertLess(len(message), 10000)


class ManualCleanPlanTest(RequestTestCase):

    def manual(self, clean_steps):
        return steps.manual_plan(self.task, clean_steps)

    def test_the_steps_run_in_the_order_given_with_their_driver_facts(self):
        planned = self.manual([
            {'interface': 'raid', 'step': 'apply_configuration',
             'args': RAID},
            {'interface': 'deploy', 'step': 'erase_devices'},
            {'interface': 'deploy', 'step': 'erase_devices_metadata'}])
        self.assertEqual(['raid.apply_configuration', 'deploy.erase_devices',
                          'deploy.erase_devices_metadata'],
                         [s.label for s in planned])
        self.assertEqual(RAID, planned[0].args)
        self.assertTrue(planned[1].abortable)
        self.assertEqual(10, planned[2].priority)

    def test_unknown_steps_arguments_and_missing_ones_are_refused(self):
        exc = self.assertRaises(exception.InvalidRequestedSteps, self.manual, [
            {'interface': 'deploy', 'step': 'wipe'},
            {'interface': 'deploy', 'step': 'erase_devices',
             'args': {'passes': 2, 'pattern': 'zeros'}},
            {'interface': 'bios', 'step': 'apply_configuration'},
            {'interface': 'deploy', 'step': 'erase_devices',
             'priority': 5}])
        message = str(exc)
        self.assertIn('offers no clean step deploy.wipe', message)
        self.assertIn('does not take argument(s) pattern', message)
        self.assertIn('bios.apply_configuration needs argument(s) settings',
                      message)
        self.assertIn('unknown key(s) priority', message)

    def test_an_empty_or_missing_list_is_refused(self):
        for clean_steps in ([], None, {'interface': 'deploy'}):
            exc = self.assertRaises(exception.InvalidRequestedSteps,
                                    self.manual, clean_steps)
            self.assertIn('non-empty list', str(exc))

    def test_a_refusal_never_quotes_what_the_steps_hold(self):
        for clean_steps in ({'bmc_password': SECRET},
                            [{'interface': 'raid',
                              'step': 'apply_configuration',
                              'args': [{'bmc_password': SECRET}]}]):
            exc = self.assertRaises(exception.InvalidRequestedSteps,
                                    self.manual, clean_steps)
            self.assertNotIn(SECRET, str(exc))
