"""The agent's steps in the conductor's plans (conductor/agent_steps.py).

A node of the direct deploy interface plans the steps its agent last
reported (cached in ``driver_internal_info``) with its driver's: an
out-of-band step shadows the agent's of the same name, [deploy] options
override the priorities of the agent's erase steps, and requests may
enable an agent step that is off by default.  A request naming a step
nobody offers waits for the agent while its steps are unknown, and is
refused once they are known.

Through the real conductor, fake hardware and SQLite; the agent's steps
are given as a Given (stored as its first heartbeat stores them), and no
agent is needed: a flow waits for its agent before talking to it.  The
last tests read IPA's answers into steps (:func:`agent_steps.normalise`).
"""

import ddt
from oslotest import base as oslotest_base

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import agent_steps
from ironic_steps import objects
from tests import fake_ipa
from tests.unit.conductor import test_agent_heartbeat

FILES = test_agent_heartbeat.FILES
DIRECT_PLAN = test_agent_heartbeat.DIRECT_PLAN
in_plan = test_agent_heartbeat.in_plan
labels = test_agent_heartbeat.labels
request = test_agent_heartbeat.request


def reported(label, priority, **extra):
    """A step as the agent's cache keeps it."""
    interface, name = label.split('.')
    return {'interface': interface, 'step': name, 'priority': priority,
            'argsinfo': extra.pop('argsinfo', None),
            'abortable': extra.pop('abortable', False),
            'reboot_requested': extra.pop('reboot_requested', False)}


INJECT = reported('deploy.inject_files',
                  0, argsinfo=fake_ipa.DEPLOY_STEPS[2]['argsinfo'])
ERASE = reported('deploy.erase_devices', 10, abortable=True)
ERASE_METADATA = reported('deploy.erase_devices_metadata', 99,
                          abortable=True)


class CachedStepsTestCase(test_agent_heartbeat.DirectTestCase):

    def manageable(self, kind=None, steps=None, **fields):
        """A manageable direct node; its agent reported ``steps`` of
        ``kind`` if given."""
        node = self.direct_node(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                           'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        if kind is not None:
            agent_steps.store(node, kind, list(steps))
            node.save()
        return node

    def available(self, steps=None, **fields):
        self.config(automated_clean=False, group='conductor')
        node = self.manageable(None if steps is None else 'deploy', steps,
                               **fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                           'provide')
        return self.wait_for_state(node, states.AVAILABLE)

    def deploy(self, node, deploy_steps=None):
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False,
                                   deploy_steps=deploy_steps)
        return self.wait_at(node, states.DEPLOYWAIT, 'deploy.deploy')

    def with_template(self, node, template_steps):
        objects.DeployTemplate(self.context, name='CUSTOM_INJECT',
                               steps=template_steps, extra={}).create()
        self.rpcapi.add_node_traits(self.context, node.uuid,
                                    ['CUSTOM_INJECT'])
        node = objects.Node.get(self.context, node.uuid)
        node.instance_info = {**node.instance_info,
                              'traits': ['CUSTOM_INJECT']}
        node.save()
        return node


class ShadowingTest(CachedStepsTestCase):

    def test_an_out_of_band_step_shadows_the_agents_step_of_its_name(self):
        # Given an agent that reported write_image, enabled, at 70
        node = self.available([reported('deploy.write_image', 70),
                               reported('deploy.upgrade_bios', 95)])
        # When the node is deployed
        node = self.deploy(node)
        # Then the deploy interface's write_image is the one planned, and
        # the agent's other step joins the plan in band
        self.assertEqual(
            [('deploy.deploy', 100, False), ('deploy.upgrade_bios', 95, True),
             ('deploy.write_image', 80, False)],
            in_plan(node, 'deploy')[:3])
        self.assertEqual(1, labels(node.driver_internal_info[
            'deploy_steps']).count('deploy.write_image'))

    def test_the_agents_steps_off_by_default_are_not_planned(self):
        node = self.deploy(self.available([INJECT]))
        self.assertEqual(DIRECT_PLAN,
                         labels(node.driver_internal_info['deploy_steps']))

    def test_a_node_whose_interface_drives_no_agent_ignores_a_cache(self):
        # Given a fake-deploy node with steps cached by an earlier agent
        self.config(automated_clean=False, group='conductor')
        node = self.create_node()
        self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                           'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        agent_steps.store(node, 'deploy',
                          [reported('deploy.upgrade_bios', 95)])
        node.save()
        self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                           'provide')
        node = self.wait_for_state(node, states.AVAILABLE)
        # When it is deployed, then none of them is planned
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertNotIn('deploy.upgrade_bios',
                         labels(node.driver_internal_info['deploy_steps']))


@ddt.ddt
class PriorityOverrideTest(CachedStepsTestCase):
    """[deploy] erase_devices_priority and erase_devices_metadata_priority
    replace the agent's priorities of its erase clean steps."""

    @ddt.data(
        # (erase_devices_priority, erase_devices_metadata_priority,
        #  the automated clean plan)
        (None, None, [('deploy.erase_devices_metadata', 99, True),
                      ('deploy.erase_devices', 10, True)]),
        (0, None, [('deploy.erase_devices_metadata', 99, True)]),
        (None, 0, [('deploy.erase_devices', 10, True)]),
        (95, 5, [('deploy.erase_devices', 95, True),
                 ('deploy.erase_devices_metadata', 5, True)]),
        (0, 0, []),
    )
    @ddt.unpack
    def test_the_options_set_the_erase_priorities_of_cleaning(
            self, erase, metadata, plan):
        self.config(erase_devices_priority=erase,
                    erase_devices_metadata_priority=metadata,
                    group='deploy')
        self.config(automated_clean=True, group='conductor')
        # Given an agent that reported its erase steps
        node = self.manageable('clean', [ERASE, ERASE_METADATA])
        # When the node is cleaned
        self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                           'provide')
        node = self.wait_for_state(node, states.CLEANWAIT)
        # Then the options decide whether and in what order they run
        self.assertEqual(plan, in_plan(node, 'clean'))

    def test_the_options_leave_the_agents_deploy_steps_alone(self):
        self.config(erase_devices_metadata_priority=99, group='deploy')
        node = self.deploy(self.available([
            reported('deploy.erase_devices_metadata', 0)]))
        self.assertNotIn('deploy.erase_devices_metadata',
                         labels(node.driver_internal_info['deploy_steps']))


@ddt.ddt
class RequestedAgentStepTest(CachedStepsTestCase):

    def test_the_callers_deploy_steps_enable_an_agent_step_off_by_default(
            self):
        node = self.available([INJECT])
        node = self.deploy(node, [request('deploy.inject_files', 85,
                                          {'files': FILES})])
        plan = node.driver_internal_info['deploy_steps']
        self.assertEqual(('deploy.inject_files', 85, True),
                         in_plan(node, 'deploy')[1])
        self.assertEqual({'files': FILES}, plan[1]['args'])

    def test_a_deploy_template_enables_an_agent_step_off_by_default(self):
        node = self.with_template(self.available([INJECT]), [
            request('deploy.inject_files', 85, {'files': FILES})])
        node = self.deploy(node)
        self.assertEqual(('deploy.inject_files', 85, True),
                         in_plan(node, 'deploy')[1])
        self.assertEqual({'files': FILES},
                         node.driver_internal_info['deploy_steps'][1]['args'])

    @ddt.data('caller', 'template')
    def test_an_unknown_step_waits_while_the_agents_steps_are_unknown(
            self, source):
        # Given a node whose agent has not reported its steps
        node = self.available()
        wanted = [request('deploy.inject_files', 85, {'files': FILES})]
        if source == 'template':
            node = self.with_template(node, wanted)
        # When a deploy asks for an agent step
        node = self.deploy(node, wanted if source == 'caller' else None)
        # Then it is accepted, to be planned once the agent reports
        self.assertIsNone(node.last_error)
        self.assertEqual(DIRECT_PLAN,
                         labels(node.driver_internal_info['deploy_steps']))

    @ddt.data('caller', 'template')
    def test_a_step_the_agent_lacks_is_refused_400_naming_it(self, source):
        # Given a node whose agent reported steps without flash_bmc
        node = self.available([INJECT])
        wanted = [request('deploy.flash_bmc', 85)]
        if source == 'template':
            node = self.with_template(node, wanted)
        # When a deploy asks for it
        exc = self.assertRaises(
            exception.InvalidRequestedSteps, self.rpcapi.do_node_deploy,
            self.context, node.uuid, rebuild=False,
            deploy_steps=wanted if source == 'caller' else None)
        # Then it is refused, naming it and what the node offers, and the
        # node is as it was
        self.assertEqual(400, exc.code)
        self.assertIn('deploy.flash_bmc', str(exc))
        self.assertIn('deploy.inject_files', str(exc))
        self.assertNodeUnchanged(node)

    def test_manual_cleaning_waits_for_the_agent_to_know_a_step(self):
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid, [
            {'interface': 'deploy', 'step': 'erase_devices_express'}])
        node = self.wait_for_state(node, states.CLEANWAIT)
        self.assertEqual([], node.driver_internal_info['clean_steps'])
        self.assertEqual(
            ['deploy.erase_devices_express'],
            labels(node.driver_internal_info['user_clean_steps']))

    def test_manual_cleaning_refuses_a_step_the_agent_lacks(self):
        node = self.manageable('clean', [ERASE, ERASE_METADATA])
        exc = self.assertRaises(
            exception.InvalidRequestedSteps, self.rpcapi.do_node_clean,
            self.context, node.uuid,
            [{'interface': 'deploy', 'step': 'erase_devices_express'}])
        self.assertEqual(400, exc.code)
        self.assertIn('deploy.erase_devices_express', str(exc))
        self.assertNodeUnchanged(node)

    def test_manual_cleaning_runs_an_agent_step_it_knows_in_band(self):
        node = self.manageable('clean', [ERASE, ERASE_METADATA])
        self.rpcapi.do_node_clean(self.context, node.uuid, [
            {'interface': 'deploy', 'step': 'erase_devices'}])
        node = self.wait_for_state(node, states.CLEANWAIT)
        self.assertEqual([('deploy.erase_devices', 10, True)],
                         in_plan(node, 'clean'))


def answer(kind='deploy', **managers):
    return {'%s_steps' % kind: managers,
            'hardware_manager_version': {name: '1.0' for name in managers}}


def step(name, priority, interface='deploy', **extra):
    return {'interface': interface, 'step': name, 'priority': priority,
            **extra}


@ddt.ddt
class NormaliseTest(oslotest_base.BaseTestCase):
    """IPA's answer to get_<kind>_steps, read into step dicts."""

    def test_ipas_answer_is_a_list_of_steps_sorted_by_interface_and_name(
            self):
        steps = agent_steps.normalise('node-1', 'clean', answer(
            'clean', GenericHardwareManager=fake_ipa.CLEAN_STEPS))
        self.assertEqual(['deploy.erase_devices',
                          'deploy.erase_devices_metadata',
                          'deploy.erase_pstore'], labels(steps))
        self.assertEqual(
            {'interface': 'deploy', 'step': 'erase_devices', 'priority': 10,
             'argsinfo': None, 'abortable': True, 'reboot_requested': False},
            steps[0])

    def test_a_step_two_managers_report_is_kept_once_at_the_higher_priority(
            self):
        steps = agent_steps.normalise('node-1', 'deploy', answer(
            GenericHardwareManager=[step('write_image', 0),
                                    step('upgrade_bios', 20)],
            VendorManager=[step('upgrade_bios', 50),
                           step('write_image', 0)]))
        self.assertEqual([('deploy.upgrade_bios', 50),
                          ('deploy.write_image', 0)],
                         [('%(interface)s.%(step)s' % s, s['priority'])
                          for s in steps])

    def test_the_optional_keys_are_given_their_defaults_and_others_dropped(
            self):
        [only] = agent_steps.normalise('node-1', 'deploy', answer(
            GenericHardwareManager=[step('write_image', 0, argsinfo='x',
                                         abortable=None, vendor='y')]))
        self.assertEqual(
            {'interface': 'deploy', 'step': 'write_image', 'priority': 0,
             'argsinfo': None, 'abortable': False,
             'reboot_requested': False}, only)

    def test_no_steps_at_all_is_an_empty_list(self):
        self.assertEqual([], agent_steps.normalise(
            'node-1', 'deploy', answer(GenericHardwareManager=[])))

    @ddt.data(
        # (what the agent answered, what the refusal names)
        (None, 'no deploy_steps object'),
        ({}, 'no deploy_steps object'),
        ({'deploy_steps': []}, 'no deploy_steps object'),
        (answer('clean', GenericHardwareManager=[]),
         'no deploy_steps object'),
        (answer(GenericHardwareManager=['write_image']),
         'GenericHardwareManager'),
        (answer(GenericHardwareManager=[{'step': 'write_image',
                                         'priority': 0}]),
         'GenericHardwareManager'),
        (answer(VendorManager=[step('write_image', -1)]), 'VendorManager'),
        (answer(VendorManager=[step('write_image', '80')]), 'VendorManager'),
    )
    @ddt.unpack
    def test_a_malformed_answer_is_refused_naming_what_is_wrong(
            self, reported_steps, named):
        exc = self.assertRaises(exception.AgentStepsInvalid,
                                agent_steps.normalise, 'node-1', 'deploy',
                                reported_steps)
        self.assertIn('node-1', str(exc))
        self.assertIn(named, str(exc))

    @ddt.data(step('write_image', True), step('', 80),
              step('write_image', 80, interface=''))
    def test_a_step_the_planner_would_refuse_is_refused_here(self, bad):
        self.assertRaises(exception.AgentStepsInvalid, agent_steps.normalise,
                          'node-1', 'deploy',
                          answer(VendorManager=[bad]))
