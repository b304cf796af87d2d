"""What a rule's ``{...}`` fields may read (common/inspection_rules/
variables.py): the data, not the interpreter, and nothing padded huge."""

import ddt
import testtools

from ironic_steps.common.inspection_rules import variables

NAMES = {'inventory': {'cpu': {'count': 8}}, 'plugin_data': {},
         'node': None}


@ddt.ddt
class InterpolationTest(testtools.TestCase):

    @ddt.data(('{inventory[cpu][count]}', '8'),
              ('{inventory[cpu][count]:>3}', '  8'),
              ('cpus: {inventory[cpu][count]!s}', 'cpus: 8'))
    @ddt.unpack
    def test_the_data_is_read(self, field, expected):
        self.assertEqual(expected, variables.interpolate(field, NAMES))

    @ddt.data('{inventory.__class__}',
              '{inventory[cpu].__class__.__mro__}',
              '{plugin_data.__init__.__self__}',
              '{inventory[cpu][count]:>99999999}',
              '{inventory[cpu][count]:01000d}')
    def test_internals_and_huge_padding_are_left_as_written(self, field):
        self.assertEqual(field, variables.interpolate(field, NAMES))
