"""The README's first command, tools/demo, does what the README says."""

import os
import subprocess
import sys

import fixtures
import testtools

from tests.functional import fixtures as functional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class DemoTest(testtools.TestCase):

    def test_demo_deploys_watches_and_shows_a_node(self):
        state = self.useFixture(fixtures.TempDir()).path
        result = subprocess.run(
            [sys.executable, os.path.join(ROOT, 'tools', 'demo.py'),
             '--nodes', '2', '--step-delay', '1.0', '--stop',
             '--state-dir', state, '--port', str(functional.free_port())],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(0, result.returncode, result.stderr)
        out = result.stdout
        # The live view showed steps advancing, then both outcomes.
        self.assertRegex(out, r'demo-2\s+\S.*deploy.write_image')
        self.assertRegex(out, r'demo-2\s+wait call-back')
        self.assertRegex(out, r'demo-1\s+active')
        self.assertRegex(out, r'demo-2\s+deploy failed\s+4/5 '
                              r'boot.prepare_instance_boot')
        # It ended with `openstack baremetal node show` and stopped.
        self.assertIn('$ openstack baremetal node show demo-1', out)
        self.assertIn('| deploy_step ', out)
        self.assertIn('Service stopped.', out)
