"""Inspection rules applied by the real conductor as inspections end, on
fake hardware and SQLite (API 1.96, release 0.13).

The rules are created as the API creates them (the object), the node is
inspected through the conductor's RPC API by the ``fake`` interface (out
of band) or the ``agent`` interface (the fake agent reports by itself,
or the test reports in its place), and what the rules did is read back
from the database.
"""

import os

import fixtures

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.conductor import test_agent_inspection
from tests.unit.conductor import test_inspection


def rule(context, actions, conditions=(), **fields):
    created = objects.InspectionRule(context, actions=list(actions),
                                     conditions=list(conditions), **fields)
    created.create()
    return created


def many_cpus(count):
    return {'op': 'gt', 'args': {'values': ['{inventory[cpu][count]}',
                                            str(count)]},
            'multiple': 'any'}


class OutOfBandInspectionTest(test_inspection._InspectionTestCase):

    def test_a_rule_that_holds_adds_a_trait_and_sets_properties(self):
        rule(self.context, conditions=[
            {'op': 'eq', 'args': {'values': ['{inventory[cpu][architecture]}',
                                             'x86_64']}}],
             actions=[
                 {'op': 'add-trait', 'args': {'name': 'CUSTOM_X86'}},
                 {'op': 'set-attribute', 'args': {
                     'path': 'properties/vendor',
                     'value': '{inventory[system_vendor][manufacturer]}'}},
                 {'op': 'set-capability',
                  'args': {'name': 'fast', 'value': 'yes'}},
                 {'op': 'set-plugin-data',
                  'args': {'path': 'rules.seen', 'value': 'x86'}}])
        node = self.inspect(self.manageable(properties={'cpus': 4}))
        self.assertIsNone(node.last_error)
        self.assertEqual(['CUSTOM_X86'], node.traits)
        self.assertEqual('ironic-steps', node.properties['vendor'])
        self.assertEqual('boot_mode:uefi,fast:yes',
                         node.properties['capabilities'])
        stored = self.inventory(node)
        self.assertEqual({'rules': {'seen': 'x86'}}, stored.plugin_data)

    def test_a_rule_that_does_not_hold_changes_nothing(self):
        rule(self.context, conditions=[
            {'op': '!contains', 'args': {
                'value': '{inventory[system_vendor][manufacturer]}',
                'regex': 'steps'}}],
             actions=[{'op': 'add-trait', 'args': {'name': 'CUSTOM_NO'}}])
        node = self.inspect(self.manageable())
        self.assertEqual([], node.traits)
        self.assertEqual(states.MANAGEABLE, node.provision_state)

    def test_a_rule_reads_the_nodes_fields_but_never_its_secrets(self):
        rule(self.context, actions=[
            {'op': 'set-attribute', 'args': {
                'path': 'extra/copied',
                'value': '{node.driver_info[fake_password]} at '
                         '{node.driver_info[fake_address]}'}}])
        node = self.inspect(self.manageable(driver_info={
            'fake_password': 'hunter2', 'fake_address': '192.0.2.1'}))
        self.assertNotIn('hunter2', node.extra['copied'])
        self.assertTrue(node.extra['copied'].endswith(' at 192.0.2.1'))

    def test_rules_apply_highest_priority_first(self):
        for priority, value in ((1, 'low'), (90, 'high'), (50, 'middle')):
            rule(self.context, priority=priority, actions=[
                {'op': 'extend-attribute',
                 'args': {'path': 'extra/order', 'value': value}}])
        node = self.inspect(self.manageable())
        self.assertEqual(['high', 'middle', 'low'], node.extra['order'])

    def test_a_failing_rule_fails_the_inspection_naming_it(self):
        failing = rule(self.context, conditions=[many_cpus(2)], actions=[
            {'op': 'fail', 'args': {'msg': 'too big: {inventory[cpu][count]}'
                                    ' CPUs'}}])
        node = self.inspect(self.manageable(properties={'cpus': 4}),
                            ends_in=states.INSPECTFAIL)
        self.assertIn('inspection rule %s failed: too big: 4 CPUs'
                      % failing.uuid, node.last_error)
        self.assertEqual([], node.traits)

    def test_an_action_that_cannot_run_fails_the_inspection(self):
        broken = rule(self.context, actions=[
            {'op': 'set-attribute', 'args': {'path': 'provision_state',
                                             'value': 'active'}}])
        node = self.inspect(self.manageable(), ends_in=states.INSPECTFAIL)
        self.assertIn(broken.uuid, node.last_error)
        self.assertIn('provision_state is not a node field a rule may '
                      'change', node.last_error)

    def test_a_rule_sets_a_field_of_the_port_inspection_created(self):
        # The first inspection creates the port; a rule naming it applies
        # when the node is inspected again.
        node = self.inspect(self.manageable())
        port, = objects.Port.list(self.context,
                                  filters={'node_uuid': node.uuid})
        rule(self.context, actions=[
            {'op': 'set-port-attribute', 'args': {
                'port_id': port.uuid, 'path': 'physical_network',
                'value': '{inventory[system_vendor][manufacturer]}'}}])
        self.inspect(node)
        self.assertEqual('ironic-steps', objects.Port.get_by_uuid(
            self.context, port.uuid).physical_network)

    def test_a_loop_adds_a_trait_per_item(self):
        rule(self.context, actions=[
            {'op': 'add-trait', 'args': {'name': '{item}'},
             'loop': ['CUSTOM_A', 'CUSTOM_B']}])
        node = self.inspect(self.manageable())
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], node.traits)

    def test_built_in_rules_apply_with_the_apis(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'rules.yaml')
        with open(path, 'w') as written:
            written.write('- priority: -5\n'
                          '  actions:\n'
                          '  - op: add-trait\n'
                          '    args: {name: CUSTOM_BUILT_IN}\n')
        self.config(built_in_rules=path, group='inspection_rules')
        rule(self.context, actions=[
            {'op': 'remove-trait', 'args': {'name': 'CUSTOM_BUILT_IN'}}])
        node = self.inspect(self.manageable())
        # The API's rule (priority 0) ran first, removing nothing; the
        # built-in one (-5) after.
        self.assertEqual(['CUSTOM_BUILT_IN'], node.traits)

    def test_a_broken_built_in_rules_file_fails_the_inspection(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'rules.yaml')
        with open(path, 'w') as written:
            written.write('- actions: []\n')
        self.config(built_in_rules=path, group='inspection_rules')
        node = self.inspect(self.manageable(), ends_in=states.INSPECTFAIL)
        self.assertIn(path, node.last_error)
        self.assertIn('rule 0', node.last_error)

    def test_pinned_to_0_12_no_rule_applies(self):
        rule(self.context, actions=[
            {'op': 'add-trait', 'args': {'name': 'CUSTOM_NEW'}}])
        self.config(pin_release_version='0.12')
        node = self.inspect(self.manageable())
        self.assertEqual([], node.traits)


class AgentInspectionTest(test_agent_inspection._AgentInspectionTestCase):

    def setUp(self):
        super().setUp()
        self.config(agent_delay=0, group='fake')

    def test_the_fake_agents_report_gets_the_rules_applied(self):
        rule(self.context, conditions=[many_cpus(2)], actions=[
            {'op': 'add-trait', 'args': {'name': 'CUSTOM_MANY_CPUS'}},
            {'op': 'set-attribute',
             'args': {'path': 'properties/rack', 'value': 'R7'}}])
        node = self.inspect(self.manageable(properties={'cpus': 8}))
        self.assertIsNone(node.last_error)
        self.assertEqual(['CUSTOM_MANY_CPUS'], node.traits)
        self.assertEqual('R7', node.properties['rack'])


class AgentReportMaskingTest(test_agent_inspection._AgentInspectionTestCase):
    """Secrets in what the agent reports are masked for the rules unless
    ``[inspection_rules] mask_secrets`` says otherwise."""

    waiting = test_agent_inspection.AgentReportsTest.waiting
    report = test_agent_inspection.AgentReportsTest.report

    def _reported_secret_seen(self, **rule_fields):
        rule(self.context, actions=[
            {'op': 'set-attribute', 'args': {
                'path': 'extra/seen',
                'value': '{plugin_data[bmc][password]}'}}], **rule_fields)
        node = self.waiting()
        self.report(node, plugin_data={'bmc': {'password': 'hunter2'}})
        node = self.wait_for_state(node, states.MANAGEABLE)
        return node.extra['seen']

    def test_by_default_a_rule_sees_secrets_masked(self):
        self.assertEqual('***', self._reported_secret_seen())

    def test_a_sensitive_rule_sees_them_when_configured(self):
        self.config(mask_secrets='sensitive', group='inspection_rules')
        self.assertEqual('hunter2',
                         self._reported_secret_seen(sensitive=True))
