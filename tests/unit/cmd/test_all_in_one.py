"""``ironic-steps``: serving unless an ephemeral command is named."""

import ddt
import testtools

from ironic_steps.cmd import all_in_one


@ddt.ddt
class CommandTest(testtools.TestCase):

    @ddt.data(
        (['ironic-steps'], None),
        (['ironic-steps', '--config-file', 'a.conf'], None),
        (['ironic-steps', 'run', 'rack.yaml'], 'run'),
        (['ironic-steps', '--config-file', 'a.conf', 'inspect', 'd'],
         'inspect'),
        (['ironic-steps', '--config-file=a.conf', 'run', '--dry-run', 'r'],
         'run'),
        # A configuration file named like a command is not one.
        (['ironic-steps', '--config-file', 'run'], None),
        (['ironic-steps', '--config-dir', 'inspect'], None),
        (['ironic-steps', 'serve'], None),
    )
    @ddt.unpack
    def test_the_command_on_the_line(self, argv, command):
        self.assertEqual(command, all_in_one._command(argv))
