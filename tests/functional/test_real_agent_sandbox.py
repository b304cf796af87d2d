"""The real agent's sandbox keeps it from the machine it runs on.

These tests prove the confinement itself, with the real
ironic-python-agent started in it and nothing for it to talk to: what it
can see, what it may run, and that the loop hardware manager's check
fails outside the sandbox (so an agent started unconfined ends before it
lists a disk).
"""

import os
import subprocess
import time

import fixtures
import testtools

from tests.real_agent import sandbox

_UNAVAILABLE = sandbox.why_unavailable()


def _inside(agent, *command):
    """Run ``command`` in the agent's namespaces, with its PATH."""
    init = subprocess.run(['ps', '--ppid', str(agent.process.pid), '-o',
                           'pid='], capture_output=True, text=True,
                          check=True).stdout.split()[0]
    env = agent._environment()
    return subprocess.run(['nsenter', '-t', init, '-m', '-p', '--',
                           *command], capture_output=True, text=True,
                          env=env)


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class AgentSandboxTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        # Nothing listens on this port: the agent only looks up, in vain.
        self.agent = self.useFixture(sandbox.AgentSandbox(
            'http://127.0.0.1:9', '52:54:00:aa:bb:01'))

    def test_the_sandbox_proves_its_confinement_before_the_agent_starts(self):
        self.assertEqual({'confined': True, 'problems': []},
                         self.agent.confinement)

    def test_the_agent_sees_only_the_tests_loop_disk_in_dev(self):
        found = _inside(self.agent, 'find', '/dev', '-type', 'b')
        self.assertEqual(0, found.returncode, found.stderr)
        self.assertEqual([self.agent.disks[0].device],
                         found.stdout.split())

    def test_commands_acting_on_the_machine_are_refused_and_recorded(self):
        for command in ('poweroff', 'reboot', 'efibootmgr', 'hwclock'):
            ran = _inside(self.agent, command, '--force')
            self.assertEqual(1, ran.returncode, command)
            self.assertIn('refused', ran.stderr)
        self.assertIn('poweroff --force', self.agent.refused())

    def test_ip_reads_links_but_never_takes_one_down(self):
        self.assertEqual(0, _inside(self.agent, 'ip', 'link',
                                    'show').returncode)
        down = _inside(self.agent, 'ip', 'link', 'set', 'lo', 'down')
        self.assertEqual(1, down.returncode)
        self.assertIn('ip link set lo down', self.agent.refused())

    def test_the_agents_hardware_start_up_touches_no_real_device(self):
        # IPA's generic manager assembles software RAID and loads modules
        # when it starts; in the sandbox both are refused.
        self.agent.wait_for_log('/v1/lookup')
        refused = '\n'.join(self.agent.refused())
        self.assertIn('mdadm --assemble', refused)
        self.assertIn('modprobe', refused)

    def test_stopping_the_sandbox_ends_every_process_in_it(self):
        init = subprocess.run(['ps', '--ppid', str(self.agent.process.pid),
                               '-o', 'pid='], capture_output=True,
                              text=True).stdout.split()[0]
        self.agent.stop()
        for _ in range(100):
            if not os.path.exists('/proc/%s' % init):
                break
            time.sleep(0.05)
        self.assertFalse(os.path.exists('/proc/%s' % init))


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class UnconfinedAgentTest(testtools.TestCase):

    def test_the_confinement_check_fails_on_the_machine_itself(self):
        env = dict(os.environ, IRONIC_STEPS_AGENT_SANDBOX=self.useFixture(
            fixtures.TempDir()).path,
            IRONIC_STEPS_AGENT_DISKS='/dev/loop0=x',
            IRONIC_STEPS_AGENT_MAC='52:54:00:aa:bb:02')
        check = subprocess.run([sandbox.AGENT_PYTHON, '-m',
                                'ironic_steps_confinement'],
                               capture_output=True, text=True, env=env)
        self.assertEqual(1, check.returncode)
        self.assertIn("block device not the test's", check.stdout)
        self.assertIn('not to a refusing stand-in', check.stdout)
