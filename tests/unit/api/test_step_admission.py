"""Which steps may join a plan: the operator's disallow lists, per-step
policy rules and each step's precheck, through the API, the real conductor
and database."""

import os

import ddt
import fixtures

from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps import objects
from tests.unit.api import base

BIOS = {'interface': 'bios', 'step': 'apply_configuration', 'priority': 95,
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]}}
RESET = {'interface': 'bios', 'step': 'factory_reset', 'priority': 90,
         'args': {}}
TEMPLATE = 'CUSTOM_BIOS'


def label(step):
    return '%s.%s' % (step['interface'], step['step'])


class _GovernanceTestCase(base.ApiTestCase):

    def deploy(self, ident, **request_body):
        return self.put('/v1/nodes/%s/states/provision' % ident,
                        json=dict(request_body, target='active'))

    def node_asking_for_template(self, steps, **fields):
        objects.DeployTemplate(self.context, name=TEMPLATE, steps=steps,
                               extra={}).create()
        node = self.make_available(**fields)
        self.rpcapi.add_node_traits(self.context, node.uuid, [TEMPLATE])
        node = objects.Node.get(self.context, node.uuid)
        node.instance_info = {'traits': [TEMPLATE]}
        node.save()
        return objects.Node.get(self.context, node.uuid)

    def manageable_node(self, name):
        node = self.create_node(name=name)
        self.provision(name, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def clean_erasing(self, ident):
        """Manual cleaning asking for deploy.erase_devices."""
        return self.put('/v1/nodes/%s/states/provision' % ident, json={
            'target': 'clean', 'clean_steps': [
                {'interface': 'deploy', 'step': 'erase_devices'}]})

    def preview(self, ident, body):
        response = self.post('/v1/nodes/%s/x-steps/preview' % ident,
                             json=body)
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()


@ddt.ddt
class DisallowedStepsTest(_GovernanceTestCase):
    """``[api] disallow_deploy_steps`` / ``disallow_clean_steps``."""

    def setUp(self):
        super().setUp()
        self.config(disallow_deploy_steps=['bios.apply_configuration',
                                           'power.boot_instance'],
                    disallow_clean_steps=['deploy.erase_devices'],
                    group='api')

    def test_a_caller_asking_for_a_disallowed_step_is_400_and_nothing_changes(
            self):
        node = self.make_available(name='node-1')
        self.assertError(
            self.deploy('node-1', deploy_steps=[BIOS]), 400,
            'deploy_steps: deploy step bios.apply_configuration is not '
            'allowed', '[api] disallow_deploy_steps')
        self.assertNodeUnchanged(node)

    def test_a_template_with_a_disallowed_step_is_refused_naming_it(self):
        node = self.node_asking_for_template([BIOS])
        self.assertError(self.deploy(node.uuid), 400,
                         'deploy template(s) %s' % TEMPLATE,
                         'bios.apply_configuration is not allowed')
        self.assertNodeUnchanged(node)

    def test_a_default_step_disallowed_is_left_out_and_the_preview_says_why(
            self):
        node = self.make_available(name='node-1')
        preview = self.preview('node-1', {'flow': 'deploy'})
        self.assertEqual([], preview['errors'])
        self.assertNotIn('power.boot_instance',
                         [label(step) for step in preview['steps']])
        left_out = {label(step): step['reason']
                    for step in preview['disabled']}
        self.assertEqual('disallowed by the operator ([api] '
                         'disallow_deploy_steps)',
                         left_out['power.boot_instance'])
        self.assertEqual(202, self.deploy('node-1').status_code)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        node = self.wait_for_state(node, states.ACTIVE)
        ran = ['%s.%s' % (entry.interface, entry.step) for entry in
               objects.NodeStepHistory.list_by_node(self.context, node.id)]
        self.assertIn('deploy.write_image', ran)
        self.assertNotIn('power.boot_instance', ran)

    def test_a_disallowed_reserved_step_is_refused_on_any_interface(self):
        # The conductor runs power.reboot whatever interface names it.
        self.config(disallow_deploy_steps=['power.reboot'], group='api')
        node = self.make_available(name='node-1')
        for interface in ('power', 'management', 'raid'):
            self.assertError(self.deploy('node-1', deploy_steps=[
                {'interface': interface, 'step': 'reboot', 'priority': 90,
                 'args': {}}]), 400, '%s.reboot is not allowed' % interface)
        self.assertNodeUnchanged(node)

    def test_a_request_may_still_disable_a_disallowed_step(self):
        self.make_available(name='node-1')
        off = {'interface': 'power', 'step': 'boot_instance', 'priority': 0,
               'args': {}}
        self.assertEqual(202, self.deploy('node-1',
                                          deploy_steps=[off]).status_code)

    def test_manual_cleaning_asking_for_a_disallowed_step_is_400(self):
        node = self.manageable_node('node-1')
        self.assertError(self.clean_erasing('node-1'), 400, 'clean_steps: clean step '
                         'deploy.erase_devices is not allowed',
                         '[api] disallow_clean_steps')
        self.assertNodeUnchanged(node)

    def test_pinned_to_the_release_before_the_lists_are_not_applied(self):
        self.config(pin_release_version='0.8')
        self.make_client()
        self.make_available(name='node-1')
        self.assertEqual(202, self.deploy('node-1',
                                          deploy_steps=[BIOS]).status_code)

    def test_by_default_only_vendor_send_raw_is_disallowed(self):
        for option in ('disallow_deploy_steps', 'disallow_clean_steps'):
            CONF.clear_override(option, group='api')
            self.assertEqual(['vendor.send_raw'],
                             getattr(CONF.api, option))


class StepPolicyTest(_GovernanceTestCase):
    """``baremetal:step:execute:<interface>.<step>`` in the policy file."""

    def use_rules(self, rules):
        directory = self.useFixture(fixtures.TempDir()).path
        policy_file = os.path.join(directory, 'policy.yaml')
        with open(policy_file, 'w') as out:
            for rule, check in rules.items():
                out.write('"%s": "%s"\n' % (rule, check))
        self.config(policy_file=policy_file, group='oslo_policy')
        self.make_client()

    def test_a_step_its_rule_denies_is_403_naming_it_and_nothing_changes(
            self):
        node = self.make_available(name='node-1')
        self.use_rules({'baremetal:step:execute:bios.apply_configuration':
                        '!'})
        self.assertError(self.deploy('node-1', deploy_steps=[BIOS]), 403,
                         'baremetal:step:execute:bios.apply_configuration')
        self.assertNodeUnchanged(node)
        # A step without a rule is the caller's to run, as before.
        self.assertEqual(202, self.deploy('node-1',
                                          deploy_steps=[RESET]).status_code)

    def test_a_rule_for_a_reserved_step_covers_every_interface(self):
        node = self.make_available(name='node-1')
        self.use_rules({'baremetal:step:execute:power.reboot': '!'})
        self.assertError(self.deploy('node-1', deploy_steps=[
            {'interface': 'management', 'step': 'reboot', 'priority': 90,
             'args': {}}]), 403, 'baremetal:step:execute:power.reboot')
        self.assertNodeUnchanged(node)

    def test_a_rule_may_look_at_the_node_s_owner(self):
        self.use_rules({'baremetal:step:execute:bios.factory_reset':
                        "'lab':%(node.owner)s"})
        theirs = self.make_available(name='theirs', owner='tenant')
        self.assertError(self.deploy('theirs', deploy_steps=[RESET]), 403,
                         'baremetal:step:execute:bios.factory_reset')
        self.assertNodeUnchanged(theirs)
        self.make_available(name='ours', owner='lab')
        self.assertEqual(202, self.deploy('ours',
                                          deploy_steps=[RESET]).status_code)

    def test_manual_clean_steps_are_checked_too(self):
        node = self.manageable_node('node-1')
        self.use_rules({'baremetal:step:execute:deploy.erase_devices': '!'})
        self.assertError(self.clean_erasing('node-1'), 403,
                         'baremetal:step:execute:deploy.erase_devices')
        self.assertNodeUnchanged(node)

    def test_service_steps_are_checked_too(self):
        node = self.make_active(name='node-1')
        self.use_rules({'baremetal:step:execute:bios.factory_reset': '!'})
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'service', 'service_steps': [
                {'interface': 'bios', 'step': 'factory_reset'}]},
            version='1.87')
        self.assertError(response, 403,
                         'baremetal:step:execute:bios.factory_reset')
        self.assertNodeUnchanged(node)

    def test_a_template_author_may_only_write_steps_they_may_run(self):
        self.use_rules({'baremetal:step:execute:bios.apply_configuration':
                        '!'})
        response = self.post('/v1/deploy_templates', json={
            'name': TEMPLATE, 'steps': [RESET, BIOS]})
        self.assertError(response, 403,
                         'baremetal:step:execute:bios.apply_configuration')
        self.assertEqual([], self.get('/v1/deploy_templates').get_json()[
            'deploy_templates'])
        response = self.post('/v1/deploy_templates', json={
            'name': TEMPLATE, 'steps': [RESET]})
        self.assertEqual(201, response.status_code, response.data)
        response = self.patch('/v1/deploy_templates/%s' % TEMPLATE, json=[
            {'op': 'add', 'path': '/steps/-', 'value': BIOS}])
        self.assertError(response, 403,
                         'baremetal:step:execute:bios.apply_configuration')
        steps = self.get('/v1/deploy_templates/%s' % TEMPLATE).get_json()[
            'steps']
        self.assertEqual(['bios.factory_reset'], [label(s) for s in steps])

    def test_pinned_to_the_release_before_step_rules_are_not_checked(self):
        self.config(pin_release_version='0.8')
        self.use_rules({'baremetal:step:execute:bios.apply_configuration':
                        '!'})
        self.make_available(name='node-1')
        self.assertEqual(202, self.deploy('node-1',
                                          deploy_steps=[BIOS]).status_code)


class PrecheckTest(_GovernanceTestCase):
    """A step whose precheck says it cannot run is refused at the request."""

    RAID = {'interface': 'raid', 'step': 'apply_configuration',
            'priority': 85, 'args': {}}
    LAYOUT = {'logical_disks': [{'size_gb': 10, 'raid_level': '1'}]}

    def test_a_raid_step_with_no_layout_is_400_naming_it(self):
        node = self.make_available(name='node-1')
        self.assertError(self.deploy('node-1', deploy_steps=[self.RAID]),
                         400, 'deploy_steps: deploy step '
                         'raid.apply_configuration cannot run',
                         'no RAID layout to build', 'raid_config')
        self.assertNodeUnchanged(node)
        preview = self.preview('node-1', {'flow': 'deploy',
                                          'deploy_steps': [self.RAID]})
        self.assertIn('no RAID layout to build', ' '.join(preview['errors']))

    def test_with_a_layout_in_its_arguments_or_the_node_it_runs(self):
        node = self.make_available(name='node-1')
        step = dict(self.RAID, args={'raid_config': self.LAYOUT})
        self.assertEqual(202, self.deploy('node-1',
                                          deploy_steps=[step]).status_code)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual(self.LAYOUT, node.raid_config)
        other = self.make_available(name='node-2')
        self.rpcapi.set_target_raid_config(self.context, other.uuid,
                                           self.LAYOUT)
        self.assertEqual(202, self.deploy('node-2', deploy_steps=[
            self.RAID]).status_code)

    def test_an_invalid_layout_is_400_before_anything_changes(self):
        node = self.make_available(name='node-1')
        step = dict(self.RAID, args={'raid_config': {'logical_disks': [
            {'size_gb': 10, 'raid_level': 'eleven'}]}})
        self.assertError(self.deploy('node-1', deploy_steps=[step]), 400,
                         'raid.apply_configuration', 'eleven')
        self.assertNodeUnchanged(node)

    def test_manual_cleaning_is_prechecked_too(self):
        node = self.manageable_node('node-1')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'clean_steps': [
                {'interface': 'raid', 'step': 'apply_configuration'}]})
        self.assertError(response, 400, 'clean_steps: clean step '
                         'raid.apply_configuration cannot run',
                         'no RAID layout to build')
        self.assertNodeUnchanged(node)

    def test_pinned_to_the_release_before_the_step_fails_when_it_runs(self):
        self.config(pin_release_version='0.8')
        self.make_client()
        node = self.make_available(name='node-1')
        self.assertEqual(202, self.deploy('node-1', deploy_steps=[
            self.RAID]).status_code)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('no RAID layout to build', node.last_error)
