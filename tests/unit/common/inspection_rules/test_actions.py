"""The actions of inspection rules, run on a real node and SQLite
(common/inspection_rules/actions.py), and what makes a rule valid
(rule_format.py)."""

import ddt

from ironic_steps.common.inspection_rules import actions
from ironic_steps.common.inspection_rules import operations
from ironic_steps.common.inspection_rules import rule_format
from ironic_steps.common.inspection_rules import variables
from ironic_steps.common import states
from ironic_steps import objects
from tests import base

INVENTORY = {'cpu': {'count': 8}, 'bmc_address': '192.0.2.200'}


@ddt.ddt
class ActionTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = objects.Node(
            self.context, driver='fake-hardware',
            provision_state=states.MANAGEABLE,
            properties={'cpus': 8, 'capabilities': 'boot_mode:uefi'},
            extra={'tags': ['a']}, driver_info={})
        self.node.create()
        self.plugin_data = {'root_disk': {'name': '/dev/sda'}}
        self.port = objects.Port(self.context, address='52:54:00:12:34:56',
                                 node_uuid=self.node.uuid, pxe_enabled=True,
                                 extra={'switch': 'sw1'})
        self.port.create()

    def ports(self):
        return objects.Port.list(self.context,
                                 filters={'node_uuid': self.node.uuid})

    def stored_port(self):
        return objects.Port.get_by_uuid(self.context, self.port.uuid)

    def run_action(self, op, args, **more):
        target = actions.Target(self.node, self.plugin_data, self.ports)
        scope = variables.Scope(self.node, INVENTORY, self.plugin_data)
        actions.run(dict({'op': op, 'args': args}, **more), target, scope)

    def saved(self):
        self.node.save()
        return objects.Node.get_by_uuid(self.context, self.node.uuid)

    @ddt.data(
        ('set-attribute', {'path': 'driver_info/redfish_address',
                           'value': 'https://{inventory[bmc_address]}'},
         'driver_info', {'redfish_address': 'https://192.0.2.200'}),
        ('set-attribute', {'path': 'properties.cpus', 'value': 16},
         'properties', {'cpus': 16, 'capabilities': 'boot_mode:uefi'}),
        ('set-attribute', {'path': 'resource_class', 'value': 'baremetal'},
         'resource_class', 'baremetal'),
        ('extend-attribute', {'path': 'extra/tags', 'value': 'b'},
         'extra', {'tags': ['a', 'b']}),
        ('extend-attribute', {'path': 'extra/tags', 'value': 'a',
                              'unique': True}, 'extra', {'tags': ['a']}),
        ('extend-attribute', {'path': 'extra/new', 'value': 1},
         'extra', {'tags': ['a'], 'new': [1]}),
        ('del-attribute', {'path': 'extra/tags'}, 'extra', {}),
        ('set-capability', {'name': 'boot_mode', 'value': 'bios'},
         'properties', {'cpus': 8, 'capabilities': 'boot_mode:bios'}),
        ('set-capability', {'name': 'cpus', 'value': '{inventory[cpu]'
                                                     '[count]}'},
         'properties', {'cpus': 8,
                        'capabilities': 'boot_mode:uefi,cpus:8'}),
        ('unset-capability', {'name': 'boot_mode'},
         'properties', {'cpus': 8, 'capabilities': ''}),
    )
    @ddt.unpack
    def test_an_action_changes_the_node_as_ironics_does(
            self, op, args, field, expected):
        self.run_action(op, args)
        self.assertEqual(expected, getattr(self.saved(), field))

    def test_traits_are_added_and_removed(self):
        self.run_action('add-trait', {'name': 'CUSTOM_A'})
        self.run_action('add-trait', {'name': '{item}'},
                        loop=['CUSTOM_B', 'CUSTOM_C'])
        self.run_action('remove-trait', {'name': 'CUSTOM_B'})
        self.run_action('remove-trait', {'name': 'CUSTOM_NEVER_HAD'})
        self.assertEqual(['CUSTOM_A', 'CUSTOM_C'], self.saved().traits)

    def test_a_port_of_the_node_is_changed_and_saved(self):
        self.run_action('set-port-attribute', {
            'port_id': self.port.uuid, 'path': 'physical_network',
            'value': 'physnet-{inventory[cpu][count]}'})
        self.run_action('extend-port-attribute', {
            'port_id': self.port.uuid, 'path': 'extra/vlans', 'value': 10})
        self.run_action('del-port-attribute', {
            'port_id': self.port.uuid, 'path': 'extra/switch'})
        stored = self.stored_port()
        self.assertEqual('physnet-8', stored.physical_network)
        self.assertEqual({'vlans': [10]}, stored.extra)

    def test_a_port_not_of_the_node_or_field_not_a_rules_is_refused(self):
        for args, fragment in (
                ({'port_id': '1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
                  'path': 'extra/x', 'value': 1}, 'has no port'),
                ({'port_id': self.port.uuid, 'path': 'node_uuid',
                  'value': 'x'}, 'node_uuid is not a port field')):
            error = self.assertRaises(operations.OperationError,
                                      self.run_action, 'set-port-attribute',
                                      args)
            self.assertIn(fragment, str(error))
        self.assertEqual({'switch': 'sw1'}, self.stored_port().extra)

    def test_plugin_data_is_set_extended_and_unset(self):
        self.run_action('set-plugin-data', {'path': 'a.b', 'value': 1})
        self.run_action('extend-plugin-data', {'path': 'seen',
                                               'value': 'x'})
        self.run_action('extend-plugin-data', {'path': 'seen', 'value': 'x',
                                               'unique': True})
        self.run_action('unset-plugin-data', {'path': 'root_disk.name'})
        self.run_action('unset-plugin-data', {'path': 'never.there'})
        self.assertEqual({'a': {'b': 1}, 'seen': ['x'], 'root_disk': {}},
                         self.plugin_data)

    def test_fail_raises_its_message_interpolated(self):
        error = self.assertRaises(
            actions.RuleFailure, self.run_action, 'fail',
            {'msg': '{inventory[cpu][count]} CPUs'})
        self.assertEqual('8 CPUs', error.message)

    def test_log_takes_a_known_level(self):
        self.run_action('log', {'msg': 'hello', 'level': 'WARNING'})
        error = self.assertRaises(operations.OperationError,
                                  self.run_action, 'log',
                                  {'msg': 'x', 'level': 'loud'})
        self.assertIn("'loud' is not one of debug", str(error))

    @ddt.data(
        ('set-attribute', {'path': 'uuid', 'value': 'x'},
         'uuid is not a node field a rule may change'),
        ('set-attribute', {'path': 'colour/x', 'value': 'x'},
         'colour is not a node field'),
        ('set-attribute', {'path': '', 'value': 'x'}, 'non-empty string'),
        ('set-attribute', {'path': 'extra', 'value': 'x'},
         "cannot set field extra to 'x'"),
        ('extend-attribute', {'path': 'properties/cpus', 'value': 1},
         'properties/cpus is not a list'),
        ('del-attribute', {'path': 'extra/missing'}, 'does not exist'),
        ('add-trait', {'name': 'big'}, "'big' is not a trait"),
        ('set-plugin-data', {'path': 'root_disk.name.x', 'value': 1},
         'is not an object at name'),
        ('explode', {}, "unsupported action 'explode'"),
    )
    @ddt.unpack
    def test_an_action_that_cannot_run_says_why_and_changes_nothing(
            self, op, args, fragment):
        error = self.assertRaises(operations.OperationError,
                                  self.run_action, op, args)
        self.assertIn(fragment, str(error))
        saved = self.saved()
        self.assertEqual({'tags': ['a']}, saved.extra)
        self.assertEqual([], saved.traits)


@ddt.ddt
class RuleFormatTest(base.TestCase):

    ACTION = {'op': 'log', 'args': {'msg': 'x'}}

    def test_a_built_in_rule_may_have_a_negative_priority(self):
        rule = {'priority': -10, 'actions': [self.ACTION]}
        rule_format.check_rule(rule, built_in=True)
        error = self.assertRaises(rule_format.RuleFormatError,
                                  rule_format.check_rule, rule)
        self.assertIn('priority must be from 0 to 9999', str(error))

    @ddt.data(
        ({'actions': []}, 'a rule needs actions'),
        ({'actions': [ACTION], 'phase': 'late'}, "phase 'late'"),
        ({'actions': [ACTION], 'name': 'x'}, 'unknown field(s) name'),
        ({'actions': [{'op': 'log'}]}, 'action 0 has no args'),
        ({'actions': [ACTION], 'conditions': [{'op': 'eq', 'args': {
            'values': []}, 'loop': 'x'}]}, 'loop must be a list'),
        ({'actions': [ACTION], 'description': 3}, 'description'),
    )
    @ddt.unpack
    def test_a_bad_rule_is_refused_naming_the_problem(self, rule, fragment):
        error = self.assertRaises(rule_format.RuleFormatError,
                                  rule_format.check_rule, rule)
        self.assertIn(fragment, str(error))
