"""Previews: the plan a flow would run, from the planner the flow runs.

Through the real conductor (its RPC API), fake hardware and SQLite: a
preview, then the deploy itself, whose stored plan (the one the runner
runs) must be the preview's.
"""

import ddt

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects
from tests import base

RAID = {'raid_config': {'logical_disks': [{'size_gb': 10,
                                           'raid_level': '1'}]}}
OTHER_RAID = {'raid_config': {'logical_disks': [{'size_gb': 20,
                                                 'raid_level': '0'}]}}
BIOS = {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]}
TEMPLATES = {
    'CUSTOM_RAID1': [{'interface': 'raid', 'step': 'apply_configuration',
                      'priority': 90, 'args': RAID}],
    'CUSTOM_HT_ON': [{'interface': 'bios', 'step': 'apply_configuration',
                      'priority': 95, 'args': BIOS}],
    'CUSTOM_SLOW_RAID': [{'interface': 'raid', 'step': 'apply_configuration',
                          'priority': 90, 'args': RAID, 'timeout': 900}],
}


def step(label, priority, args=None, **extra):
    interface, name = label.split('.')
    return {'interface': interface, 'step': name, 'priority': priority,
            'args': args or {}, **extra}


def essentials(step_dicts):
    """What makes two plans the same plan."""
    return [(s['interface'], s['step'], s['priority'], s['args'],
             s.get('timeout')) for s in step_dicts]


class PreviewTestCase(base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        for name, template_steps in TEMPLATES.items():
            objects.DeployTemplate(self.context, name=name,
                                   steps=template_steps, extra={}).create()

    def node_asking_for(self, *traits, **fields):
        node = self.make_available(**fields)
        if traits:
            self.rpcapi.add_node_traits(self.context, node.uuid,
                                        list(traits))
            node = objects.Node.get(self.context, node.uuid)
            node.instance_info = {'traits': list(traits)}
            node.save()
        return objects.Node.get(self.context, node.uuid)

    def preview(self, node, flow='deploy', requested_steps=None):
        return self.rpcapi.preview_steps(self.context, node.uuid, flow,
                                         requested_steps)


@ddt.ddt
class PreviewIsTheDeployedPlanTest(PreviewTestCase):

    @ddt.data(
        # (traits asking for templates, the caller's deploy_steps)
        ((), None),
        ((), [step('raid.apply_configuration', 90, RAID),
              step('bios.apply_configuration', 95, BIOS)]),
        ((), [step('power.boot_instance', 99)]),
        ((), [step('boot.prepare_instance_boot', 0)]),
        (('CUSTOM_RAID1', 'CUSTOM_HT_ON'), None),
        (('CUSTOM_RAID1', 'CUSTOM_HT_ON'),
         [step('raid.apply_configuration', 85, OTHER_RAID)]),
        (('CUSTOM_RAID1',), [step('raid.apply_configuration', 0, RAID)]),
        (('CUSTOM_HT_ON',), [step('power.boot_instance', 30,
                                  timeout=600)]),
        (('CUSTOM_SLOW_RAID',), None),
        (('CUSTOM_SLOW_RAID',), [step('raid.apply_configuration', 90, RAID,
                                      timeout=None)]),
    )
    @ddt.unpack
    def test_the_deploy_runs_exactly_the_previewed_plan(self, traits,
                                                        deploy_steps):
        node = self.node_asking_for(*traits)
        previewed = self.preview(node, requested_steps=deploy_steps)
        self.assertEqual([], previewed['errors'])
        self.assertNodeUnchanged(node)

        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False,
                                   deploy_steps=deploy_steps)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(
            essentials(node.driver_internal_info['deploy_steps']),
            essentials(previewed['steps']))

    def test_each_step_says_where_it_came_from(self):
        node = self.node_asking_for('CUSTOM_RAID1', 'CUSTOM_HT_ON')
        previewed = self.preview(node, requested_steps=[
            step('power.boot_instance', 25)])
        sources = {'%s.%s' % (s['interface'], s['step']): s['source']
                   for s in previewed['steps']}
        self.assertEqual('template CUSTOM_RAID1',
                         sources['raid.apply_configuration'])
        self.assertEqual('template CUSTOM_HT_ON',
                         sources['bios.apply_configuration'])
        self.assertEqual('user', sources['power.boot_instance'])
        self.assertEqual('driver', sources['deploy.deploy'])

    def test_a_template_step_brings_its_timeout_and_a_user_step_its_own(
            self):
        node = self.node_asking_for('CUSTOM_SLOW_RAID')
        raid = self.preview(node)['steps'][1]
        self.assertEqual(('template CUSTOM_SLOW_RAID', 900),
                         (raid['source'], raid['timeout']))
        raid = self.preview(node, requested_steps=[
            step('raid.apply_configuration', 90, RAID, timeout=60)])['steps'][1]
        self.assertEqual(('user', 60), (raid['source'], raid['timeout']))

    def test_disabled_steps_are_listed_with_why(self):
        node = self.node_asking_for('CUSTOM_RAID1')
        previewed = self.preview(node, requested_steps=[
            step('raid.apply_configuration', 0, RAID)])
        why = {'%s.%s' % (s['interface'], s['step']):
               (s['source'], s['reason']) for s in previewed['disabled']}
        self.assertEqual('user', why['raid.apply_configuration'][0])
        self.assertIn('disabled (priority 0) by user',
                      why['raid.apply_configuration'][1])
        self.assertEqual('driver', why['bios.factory_reset'][0])
        self.assertIn('priority 0 in the driver',
                      why['bios.factory_reset'][1])


class PreviewErrorsTest(PreviewTestCase):

    def test_the_errors_are_the_ones_the_deploy_gets_and_nothing_changes(
            self):
        node = self.node_asking_for()
        bad = [step('raid.apply_cfg', 10),
               step('bios.apply_configuration', 95)]
        previewed = self.preview(node, requested_steps=bad)
        self.assertNodeUnchanged(node)
        self.assertEqual(2, len(previewed['errors']))
        refused = self.assertRaises(
            exception.InvalidRequestedSteps, self.rpcapi.do_node_deploy,
            self.context, node.uuid, rebuild=False, deploy_steps=bad)
        for error in previewed['errors']:
            self.assertIn(error, str(refused))
        self.assertNodeUnchanged(node)

    def test_a_node_that_cannot_deploy_now_says_so(self):
        node = self.create_node()
        previewed = self.preview(node)
        self.assertIn("'enroll'", previewed['errors'][0])
        # The plan is still shown: what a deploy would run once it can.
        self.assertEqual('deploy', previewed['steps'][0]['step'])
        self.assertNodeUnchanged(node)

    def test_a_manual_clean_preview_keeps_the_order_given(self):
        node = self.create_node()
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        clean_steps = [{'interface': 'deploy', 'step': 'erase_devices',
                        'args': {'passes': 2}, 'timeout': 30},
                       {'interface': 'deploy',
                        'step': 'erase_devices_metadata'}]
        previewed = self.preview(node, 'clean', clean_steps)
        self.assertEqual([], previewed['errors'])
        self.assertEqual([('erase_devices', {'passes': 2}, 30, 'user'),
                          ('erase_devices_metadata', {}, None, 'user')],
                         [(s['step'], s['args'], s['timeout'], s['source'])
                          for s in previewed['steps']])
        self.assertIsNone(previewed['resume'])
        self.assertNodeUnchanged(node)

    def test_an_unknown_flow_is_refused(self):
        node = self.create_node()
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.preview, node, 'rescue')
        self.assertIn('valid flows: deploy, clean', str(exc))
