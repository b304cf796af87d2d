"""The README's first command, tools/demo, does what the README says,
and so does its Redfish lab, tools/demo --redfish."""

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
        # The failing node's plan was previewed before its deploy, and
        # after the failure its deploy resumed from the failed step.
        self.assertIn('$ openstack baremetal node step preview demo-2 -c '
                      'steps', out)
        self.assertIn('5. power.boot_instance (priority 20, from driver)',
                      out)
        self.assertIn('from step 4, boot.prepare_instance_boot', out)
        self.assertIn('$ openstack baremetal node deploy resume demo-2', out)
        self.assertRegex(out, r'demo-2\s+active')
        # Then its history: the steps before the failed one ran once, the
        # failed step failed with its error then succeeded, each with its
        # duration (the step delay).
        history = out.split('$ openstack baremetal node step history demo-2 '
                            '--flow deploy', 1)[1].split('$ ', 1)[0]
        self.assertEqual(1, history.count('| deploy.write_image '))
        self.assertRegex(history, r'\| boot\.prepare_instance_boot +\| '
                         r'deploy +\| failed +\| \S+ +\| +1\.\d+ \| Deploy '
                         r'step boot\.prepare_instance_boot failed')
        self.assertRegex(history, r'\| boot\.prepare_instance_boot +\| '
                         r'deploy +\| success +\| \S+ +\| +1\.\d+ \| None')
        # It ended with `openstack baremetal node show` and stopped.
        self.assertIn('$ openstack baremetal node show demo-1', out)
        self.assertIn('| deploy_step ', out)
        self.assertRegex(out, r'Service stopped \(PID \d+\)\.')

    def test_the_redfish_lab_deploys_a_bios_and_raid_template_on_bmcs(self):
        state = self.useFixture(fixtures.TempDir()).path
        result = subprocess.run(
            [sys.executable, os.path.join(ROOT, 'tools', 'demo.py'),
             '--redfish', '--nodes', '2', '--state-dir', state,
             '--port', str(functional.free_port())],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(0, result.returncode, result.stderr)
        out = result.stdout
        # The nodes were enrolled with the CLI, the password masked,
        self.assertRegex(out, r'\$ openstack baremetal node create --driver '
                              r'redfish --name demo-1 .*'
                              r'redfish_password=\*\*\*\*\*\*')
        self.assertIn('$ openstack baremetal deploy template create '
                      'CUSTOM_DATABASE', out)
        # the template's steps went by, polled, then the ISO booted,
        for name in ('demo-1', 'demo-2'):
            self.assertRegex(out, r'%s\s+wait call-back\s+1/3 '
                                  r'bios.apply_configuration' % name)
            self.assertRegex(out, r'%s\s+(deploying|wait call-back)\s+2/3 '
                                  r'raid.apply_configuration' % name)
            self.assertRegex(out, r'%s\s+active' % name)
        self.assertNotRegex(out, r'deploy failed')
        # it ended with the node and its BIOS settings as applied,
        self.assertIn('$ openstack baremetal node show demo-1', out)
        self.assertIn("'redfish_password': '******'", out)
        self.assertIn('$ openstack baremetal node bios setting list demo-1',
                      out)
        self.assertRegex(out, r'\| ProcTurboMode\s+\| Disabled\s+\|')
        self.assertRegex(out, r'\| SriovEnable\s+\| Enabled\s+\|')
        self.assertIn('root (RAID1, 100 GiB), scratch (RAID0, 200 GiB)', out)
        # and stopped both processes it started.
        self.assertRegex(out, r'Service stopped \(PID \d+\)\.')
        self.assertRegex(out, r'Emulator stopped \(PID \d+\)\.')
