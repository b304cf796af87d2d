"""tools/demo --agent: the real ironic-python-agent, confined to a loop
disk, cleans it and writes a real image and a config drive, and the demo
reads them back; root only, and nothing of it outlives the demo."""

import os
import re
import subprocess

import fixtures
import testtools

from tests.functional import fixtures as functional
from tests.real_agent import sandbox

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, 'tools', 'demo')
_UNAVAILABLE = sandbox.why_unavailable()


class DemoAgentTest(testtools.TestCase):

    @testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
    def test_the_agent_deploys_a_real_image_the_demo_reads_back(self):
        # Given root and the agent's sandbox
        state = self.useFixture(fixtures.TempDir()).path
        # When the agent lab runs to its end
        result = subprocess.run(
            [DEMO, '--agent', '--stop', '--state-dir', state,
             '--port', str(functional.free_port())],
            capture_output=True, text=True, timeout=300)
        out = result.stdout
        self.assertEqual(0, result.returncode, out[-4000:] + result.stderr)
        # Then the agent's cleaning and its write_image showed as in-band
        self.assertRegex(out, r'demo-1\s+clean wait\s+\d/\d '
                              r'deploy\.erase_devices_metadata '
                              r'\(in-band: the agent runs it\)')
        self.assertRegex(out, r'demo-1\s+wait call-back\s+\d/\d '
                              r'deploy\.write_image '
                              r'\(in-band: the agent runs it\)')
        self.assertRegex(out, r'demo-1\s+active')
        # the deploy was the CLI's, with a config drive, then its history
        self.assertIn("$ openstack baremetal node deploy demo-1 "
                      "--config-drive '{\"meta_data\": {\"hostname\": "
                      "\"demo-1.demo.test\"", out)
        history = out.split('$ openstack baremetal node step history '
                            'demo-1', 1)[1]
        self.assertRegex(history, r'\| deploy\.write_image +\| deploy +\| '
                                  r'success ')
        # and the disk holds the image's marker and the config drive
        self.assertIn('ironic-steps-marker.txt in the ext4 partition: '
                      'Written by the real ironic-python-agent for the '
                      'ironic-steps demo.', out)
        self.assertIn('config drive, host name: demo-1.demo.test (as '
                      'given)', out)
        self.assertRegex(out, r'config drive, SSH key: ssh-ed25519 \S+ '
                              r'demo@ironic-steps \(as given\)')
        # And neither its loop disk nor the service outlived the demo
        self.assertIn('loop disks detached', out)
        self.assertRegex(out, r'Service stopped \(PID \d+\)\.')
        backing = re.search(r'\$ partx --show .* (/\S+)\n', out).group(1)
        self.assertFalse(os.path.exists(backing))
        self.assertNotIn(backing, subprocess.run(
            ['losetup', '--list'], capture_output=True, text=True).stdout)

    def test_without_root_it_refuses_with_exit_2(self):
        command = [DEMO, '--agent']
        if os.geteuid() == 0:
            command = ['setpriv', '--reuid=65534', '--regid=65534',
                       '--clear-groups'] + command
        result = subprocess.run(command, capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(2, result.returncode)
        self.assertIn('tools/demo --agent cannot run: the real agent needs '
                      'root', result.stderr)
        self.assertEqual('', result.stdout)
