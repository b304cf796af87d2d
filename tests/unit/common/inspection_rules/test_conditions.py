"""The conditions of inspection rules, checked on an inventory
(common/inspection_rules/conditions.py)."""

import ddt
import testtools

from ironic_steps.common.inspection_rules import conditions
from ironic_steps.common.inspection_rules import operations
from ironic_steps.common.inspection_rules import variables

INVENTORY = {
    'cpu': {'count': 8, 'architecture': 'x86_64'},
    'interfaces': [{'name': 'eth0', 'ipv4_address': '192.0.2.10'},
                   {'name': 'eth1', 'ipv4_address': None}],
    'system_vendor': {'manufacturer': 'Dell Inc.', 'product_name': 'R640'},
    'bmc_address': '192.0.2.200',
    'boot': {'current_boot_mode': 'uefi'},
    'empty': '',
    'flag': True,
}
PLUGIN_DATA = {'root_disk': {'name': '/dev/sda'}}


class FakeNode:
    uuid = 'node-1'
    driver_info = {'redfish_address': 'https://192.0.2.200'}


def holds(op, args, **more):
    scope = variables.Scope(FakeNode(), INVENTORY, PLUGIN_DATA)
    return conditions.holds(dict({'op': op, 'args': args}, **more), scope)


@ddt.ddt
class ConditionTest(testtools.TestCase):

    @ddt.data(
        ('eq', {'values': ['{inventory[cpu][architecture]}', 'x86_64']},
         True),
        ('eq', {'values': ['{inventory[cpu][count]}', 8]}, False),
        ('eq', {'values': ['{inventory[cpu][count]}', 8],
                'force_strings': True}, True),
        ('eq', {'values': [1]}, True),
        ('lt', {'values': [1, 2, 3]}, True),
        ('lt', {'values': [1, 3, 2]}, False),
        ('gt', {'values': ['{inventory[cpu][count]}', '4']}, True),
        ('is-empty', {'value': '{inventory[empty]}'}, True),
        ('is-empty', {'value': '{inventory[missing]}'}, True),
        ('is-empty', {'value': '{inventory[bmc_address]}'}, False),
        ('is-empty', {'value': []}, True),
        ('is-none', {'value': None}, True),
        ('is-none', {'value': '{inventory[flag]}'}, False),
        ('is-true', {'value': '{inventory[flag]}'}, True),
        ('is-true', {'value': 'Yes'}, True),
        ('is-true', {'value': 0}, False),
        ('is-false', {'value': 'false'}, True),
        ('is-false', {'value': None}, True),
        ('is-false', {'value': 1}, False),
        ('one-of', {'value': '{inventory[boot][current_boot_mode]}',
                    'values': ['bios', 'uefi']}, True),
        ('one-of', {'value': 'ppc', 'values': ['bios', 'uefi']}, False),
        ('in-net', {'address': '{inventory[bmc_address]}',
                    'subnet': '192.0.2.0/24'}, True),
        ('in-net', {'address': '{inventory[bmc_address]}',
                    'subnet': '198.51.100.0/24'}, False),
        ('matches', {'value': '{inventory[system_vendor][manufacturer]}',
                     'regex': 'Dell.*'}, True),
        ('matches', {'value': '{inventory[system_vendor][manufacturer]}',
                     'regex': 'Dell'}, False),
        ('contains', {'value': '{inventory[system_vendor][manufacturer]}',
                      'regex': 'ell'}, True),
        ('contains', {'value': '{plugin_data[root_disk][name]}',
                      'regex': 'nvme'}, False),
        ('eq', {'values': ['{node.driver_info[redfish_address]}',
                           'https://192.0.2.200']}, True),
        ('!eq', {'values': [1, 2]}, True),
        ('! eq', {'values': [1, 1]}, False),
    )
    @ddt.unpack
    def test_a_condition_holds_as_ironics_does(self, op, args, expected):
        self.assertIs(expected, holds(op, args))

    def test_args_may_be_a_list_in_parameter_order(self):
        self.assertTrue(holds('matches', ['R640', 'R6.*']))

    @ddt.data(('any', True), ('all', False), ('first', True),
              ('last', False))
    @ddt.unpack
    def test_multiple_says_which_items_of_a_loop_decide(self, multiple,
                                                        expected):
        # eth0 has an address, eth1 none.
        self.assertIs(expected, holds(
            '!is-empty', {'value': '{item[ipv4_address]}'},
            loop=INVENTORY['interfaces'], multiple=multiple))

    def test_in_a_loop_values_compare_as_strings(self):
        self.assertTrue(holds('eq', {'values': ['{item}', 8]}, loop=[8]))

    @ddt.data(
        ('eq', {'values': 'x'}, 'values must be a list'),
        ('matches', {'value': 'x', 'regex': '('}, 'invalid regular'),
        ('in-net', {'address': 'nowhere', 'subnet': '10.0.0.0/8'},
         'nowhere'),
        ('lt', {'values': [1, 'a']}, 'cannot compare'),
        ('eq', {}, 'missing required argument(s): values'),
        ('eq', {'values': [], 'colour': 1}, 'unexpected argument(s): '
                                            'colour'),
        ('bigger', {}, "unsupported condition 'bigger'"),
        ('!!eq', {'values': []}, 'one "!" at most'),
    )
    @ddt.unpack
    def test_a_condition_that_cannot_be_checked_says_why(self, op, args,
                                                         fragment):
        error = self.assertRaises(operations.OperationError, holds, op,
                                  args)
        self.assertIn(fragment, str(error))


class MaskingTest(testtools.TestCase):

    def test_secret_keys_are_masked_anywhere(self):
        self.assertEqual(
            {'bmc': {'password': '***', 'user': 'admin'},
             'list': [{'auth_token': '***'}], 'bmc_password': '***'},
            variables.masked({'bmc': {'password': 'x', 'user': 'admin'},
                              'list': [{'auth_token': 'y'}],
                              'bmc_password': 'z'}))

    def test_a_field_naming_nothing_is_left_as_written(self):
        names = variables.Scope(FakeNode(), INVENTORY, {}).names()
        self.assertEqual('{inventory[nothing]}',
                         variables.interpolate('{inventory[nothing]}',
                                               names))
        self.assertEqual(['8', {'x86_64': '8'}], variables.interpolate(
            ['{inventory[cpu][count]}',
             {'{inventory[cpu][architecture]}': '{inventory[cpu][count]}'}],
            names))
