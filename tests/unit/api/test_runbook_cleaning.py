"""Manual cleaning with a runbook (API 1.92, traits from 1.112): the
runbook's steps run as the clean steps, on a node that carries one of its
traits (below 1.112: its name), and a request the node may not run is
refused before anything changes.  Through the real API, conductor, step
runner and SQLite, on fake hardware."""

import ddt

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

RAID_CONFIG = {'logical_disks': [
    {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True}]}
RAID = {'interface': 'raid', 'step': 'apply_configuration',
        'args': {'raid_config': RAID_CONFIG}, 'order': 2}
POWER_ON = {'interface': 'power', 'step': 'power_on', 'args': {},
            'order': 1}
TRAIT = 'CUSTOM_RAID_READY'
V92, V112 = '1.92', '1.112'


class _ManageableNodeTestCase(base.AheadOfTheLadderTestCase):
    """node-1, manageable (with ``traits``), asked at 1.112 by default."""

    traits = ()

    def request(self, method, path, version=V112, **kwargs):
        return super().request(method, path, version=version, **kwargs)

    def setUp(self):
        super().setUp()
        node = self.create_node(name='node-1')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.node = self.wait_for_state(node, states.MANAGEABLE)
        if self.traits:
            self.rpcapi.add_node_traits(self.context, node.uuid,
                                        list(self.traits))


@ddt.ddt
class CleanWithRunbookTest(_ManageableNodeTestCase):

    def runbook(self, name='CUSTOM_RAID_BUILD', steps=(RAID, POWER_ON),
                traits=(TRAIT,), version=V112, **fields):
        response = self.post('/v1/runbooks', json=dict(
            name=name, steps=list(steps), **fields), version=version)
        self.assertEqual(201, response.status_code, response.data)
        for trait in traits:
            self.put('/v1/runbooks/%s/traits/%s' % (name, trait))
        return response.get_json()

    def give_node(self, *traits):
        self.rpcapi.add_node_traits(self.context, self.node.uuid,
                                    list(traits))
        self.node = objects.Node.get(self.context, self.node.uuid)

    def clean(self, runbook, version=V112, **request_body):
        return self.put('/v1/nodes/node-1/states/provision', json=dict(
            target='clean', runbook=runbook, **request_body),
            version=version)

    def history(self):
        response = self.get('/v1/nodes/node-1/x-steps/history')
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()['history']

    def test_a_node_with_one_of_its_traits_runs_its_steps_in_order(self):
        self.runbook()
        self.give_node('CUSTOM_OTHER', TRAIT)
        response = self.clean('CUSTOM_RAID_BUILD')
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(self.node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual(RAID_CONFIG, node.raid_config)
        self.assertEqual(states.POWER_ON, node.power_state)
        ran = [(entry['interface'], entry['step']) for entry in
               self.history() if entry['flow'] == 'clean']
        self.assertEqual([('power', 'power_on'),
                          ('raid', 'apply_configuration')], ran)

    def test_a_runbook_is_named_by_uuid_too(self):
        uuid = self.runbook()['uuid']
        self.give_node(TRAIT)
        self.assertEqual(202, self.clean(uuid.upper()).status_code)
        self.wait_for_state(self.node, states.MANAGEABLE)

    def test_its_disable_ramdisk_runs_the_steps_without_the_agent(self):
        self.node.deploy_interface = 'direct'
        self.node.save()
        self.runbook(disable_ramdisk=True)
        self.give_node(TRAIT)
        self.assertEqual(202, self.clean('CUSTOM_RAID_BUILD').status_code)
        node = self.wait_for_state(self.node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        self.assertNotIn('agent_url', node.driver_internal_info)

    @ddt.data(
        # The node lacks every trait of the runbook.
        ((TRAIT,), ('CUSTOM_OTHER',), 'none of the runbook\'s traits'),
        # A runbook without traits runs nowhere (from 1.112).
        ((), (TRAIT, 'CUSTOM_RAID_BUILD'), 'has no traits'),
    )
    @ddt.unpack
    def test_a_node_the_runbook_is_not_for_is_400_and_nothing_moves(
            self, runbook_traits, node_traits, fragment):
        self.runbook(traits=runbook_traits)
        self.give_node(*node_traits)
        self.assertError(self.clean('CUSTOM_RAID_BUILD'), 400,
                         'CUSTOM_RAID_BUILD', self.node.uuid, fragment)
        self.assertNodeUnchanged(self.node)

    def test_below_1_112_the_runbook_s_name_is_the_trait_as_in_ironic(self):
        self.runbook(version=V92)
        self.give_node(TRAIT)
        self.assertError(self.clean('CUSTOM_RAID_BUILD', version=V92), 400,
                         'trait CUSTOM_RAID_BUILD')
        self.assertNodeUnchanged(self.node)
        self.give_node('CUSTOM_RAID_BUILD')
        self.assertEqual(202, self.clean('CUSTOM_RAID_BUILD',
                                         version=V92).status_code)
        node = self.wait_for_state(self.node, states.MANAGEABLE)
        self.assertEqual(RAID_CONFIG, node.raid_config)

    @ddt.data(
        ({'clean_steps': [RAID]}, 'clean_steps'),
        ({'disable_ramdisk': True}, 'disable_ramdisk'),
    )
    @ddt.unpack
    def test_a_runbook_with_steps_of_the_request_too_is_400(
            self, extra, fragment):
        self.runbook()
        self.give_node(TRAIT)
        self.assertError(self.clean('CUSTOM_RAID_BUILD', **extra), 400,
                         fragment, 'runbook')
        self.assertNodeUnchanged(self.node)

    @ddt.data(('CUSTOM_NONE', 404), (['CUSTOM_RAID_BUILD'], 400),
              ('', 400))
    @ddt.unpack
    def test_a_bad_runbook_reference_is_refused(self, ident, status):
        self.runbook()
        self.give_node(TRAIT)
        self.assertError(self.clean(ident), status)
        self.assertNodeUnchanged(self.node)

    def test_only_clean_takes_a_runbook_and_from_1_92(self):
        self.runbook()
        self.give_node(TRAIT)
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'provide', 'runbook': 'CUSTOM_RAID_BUILD'})
        self.assertError(response, 400, 'runbook', 'provide')
        self.assertError(self.clean('CUSTOM_RAID_BUILD', version='1.91'),
                         406, 'runbook', '1.92')
        self.assertNodeUnchanged(self.node)

    def test_a_runbook_step_the_driver_lacks_is_400_naming_it(self):
        self.runbook(steps=[dict(RAID, step='no_such_step')])
        self.give_node(TRAIT)
        self.assertError(self.clean('CUSTOM_RAID_BUILD'), 400,
                         'raid.no_such_step')
        self.assertNodeUnchanged(self.node)

    def test_a_step_the_operator_disallows_is_400_naming_it(self):
        self.config(disallow_clean_steps=['raid.apply_configuration'],
                    group='api')
        self.runbook()
        self.give_node(TRAIT)
        self.assertError(self.clean('CUSTOM_RAID_BUILD'), 400,
                         'raid.apply_configuration',
                         '[api] disallow_clean_steps')
        self.assertNodeUnchanged(self.node)

    def test_a_preview_shows_the_runbook_s_steps_as_the_clean_plan(self):
        self.runbook()
        self.give_node(TRAIT)
        response = self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'clean', 'runbook': 'CUSTOM_RAID_BUILD'})
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(['power.power_on', 'raid.apply_configuration'],
                         ['%s.%s' % (s['interface'], s['step'])
                          for s in response.get_json()['steps']])
        self.assertNodeUnchanged(self.node)

    def test_a_preview_of_a_runbook_the_node_may_not_run_is_refused(self):
        self.runbook()
        self.assertError(self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'clean', 'runbook': 'CUSTOM_RAID_BUILD'}), 400,
            'none of the runbook\'s traits')
        self.assertError(self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'deploy', 'runbook': 'CUSTOM_RAID_BUILD'}), 400,
            'flow clean')


class RunbookGovernanceTest(_ManageableNodeTestCase):
    """Who may use which runbook: ``baremetal:runbook:use`` and the step
    rules, as in Ironic."""

    traits = (TRAIT,)

    def make(self, name, **fields):
        runbook = objects.Runbook(self.context, name=name, steps=[RAID],
                                  traits=[TRAIT], **fields)
        runbook.create()

    def clean(self, runbook):
        return self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'runbook': runbook})

    def test_the_use_rule_may_refuse_a_runbook(self):
        self.make('CUSTOM_ADMIN_MADE')
        self.use_policy({'baremetal:runbook:use': '!'})
        self.assertError(self.clean('CUSTOM_ADMIN_MADE'), 403,
                         'baremetal:runbook:use')
        self.assertNodeUnchanged(self.node)

    def test_step_rules_apply_to_a_project_s_runbook_not_an_approved_one(
            self):
        self.make('CUSTOM_ADMIN_MADE')
        self.make('CUSTOM_PUBLISHED', public=True)
        self.make('CUSTOM_PROJECT_OWN', owner='p1')
        self.use_policy({'baremetal:step:execute:raid.apply_configuration':
                        '!'})
        self.assertError(self.clean('CUSTOM_PROJECT_OWN'), 403,
                         'baremetal:step:execute:raid.apply_configuration')
        self.assertNodeUnchanged(self.node)
        for approved in ('CUSTOM_ADMIN_MADE', 'CUSTOM_PUBLISHED'):
            self.assertEqual(202, self.clean(approved).status_code)
            self.wait_for_state(self.node, states.MANAGEABLE)

    def test_a_runbook_author_may_only_write_steps_they_may_run(self):
        self.use_policy({'baremetal:step:execute:raid.apply_configuration':
                        '!'})
        response = self.post('/v1/runbooks', json={
            'name': 'CUSTOM_X', 'steps': [RAID]})
        self.assertError(response, 403,
                         'baremetal:step:execute:raid.apply_configuration')
        self.assertEqual([], objects.Runbook.list(self.context))
