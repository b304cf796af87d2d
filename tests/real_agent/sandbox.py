"""The real ironic-python-agent, confined to loop disks, for our tests.

IPA runs as root and, left to itself, picks the host's own disk, erases
every disk it sees and powers the machine off.  :class:`AgentSandbox`
starts it so it can do none of that:

* in private mount and PID namespaces (``unshare``, killed with its PID 1,
  stopped by PID), whose ``/dev`` holds only this test's loop devices,
  each backed by a file in the test's directory (no devtmpfs, no
  ``loop-control``: it cannot reach another disk or make one);
* with ``/proc/sysrq-trigger`` covered by ``/dev/null`` and its kernel
  command line replaced by the test's agent parameters;
* with refusing stand-ins first on ``PATH`` for every command that would
  power off, reboot, set the clock, touch firmware boot entries, install a
  boot loader, load modules or assemble software RAID, and an ``ip`` that
  reads but never changes links (each refusal is logged in
  ``refused.log``);
* with the loop hardware manager (``loop_hardware/``, IPA's entry point),
  which sees only these disks, writes only to one named by a root-device
  hint and ends the agent if it finds itself unconfined;
* listening and advertising on 127.0.0.1 only.

The sandbox proves its confinement (``confinement.json``, the loop
manager's own check run in the sandbox) before the agent starts; the
fixture refuses to go on without that proof.

Needs root, ``unshare`` and ``losetup`` (util-linux) and the agent's venv
(``tools/agent-venv``).
"""

import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import fixtures

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
AGENT_VENV = os.path.join(_REPO, '.venv-agent')
AGENT_PYTHON = os.path.join(AGENT_VENV, 'bin', 'python')
_STANDINS = os.path.join(_HERE, 'standins')
#: Commands the agent may never run for real.
REFUSED = ('reboot', 'poweroff', 'halt', 'shutdown', 'hwclock',
           'efibootmgr', 'grub-install', 'grub2-install', 'chronyc',
           'chronyd', 'ntpdate', 'mdadm', 'modprobe', 'multipath',
           'multipathd', 'iscsistart', 'mpathconf')
#: Partitioning tools whose partitions need device nodes afterwards.
_SYNCED = ('partx', 'partprobe', 'udevadm', 'blockdev', 'sgdisk', 'parted')


def why_unavailable():
    """Why the real agent cannot run here, or None."""
    if os.geteuid() != 0:
        return 'the real agent needs root'
    for tool in ('unshare', 'losetup', 'qemu-img', 'sgdisk', 'partx'):
        if shutil.which(tool) is None:
            return '%s is not installed (.ci/run installs it)' % tool
    if not os.path.exists(AGENT_PYTHON):
        return 'no agent venv: run tools/agent-venv'
    return None


def _run(*command):
    return subprocess.run(command, check=True, capture_output=True,
                          text=True).stdout.strip()


_ports_taken = set()
_ports_lock = threading.Lock()


def agent_port():
    """A free port on 127.0.0.1 below the kernel's ephemeral range.

    The agent binds its port only after its lookup, seconds after it is
    chosen; an ephemeral port could meanwhile be taken by any outgoing
    connection (seen: "Address already in use" in 1 agent of 20).  Ports
    below the range are never handed out that way, and each is given to
    one agent of this process.
    """
    with open('/proc/sys/net/ipv4/ip_local_port_range') as ports:
        first_ephemeral = int(ports.read().split()[0])
    with _ports_lock:
        for _ in range(1000):
            port = random.randrange(first_ephemeral // 2, first_ephemeral)
            if port in _ports_taken:
                continue
            with socket.socket() as probe:
                try:
                    probe.bind(('127.0.0.1', port))
                except OSError:
                    continue
            _ports_taken.add(port)
            return port
    raise RuntimeError('no free port below %d' % first_ephemeral)


class Disk:
    """One loop disk: its device, serial and backing file."""

    def __init__(self, device, serial, path):
        self.device, self.serial, self.path = device, serial, path

    def read(self, offset=0, size=-1):
        with open(self.path, 'rb') as backing:
            backing.seek(offset)
            return backing.read(size)


class LoopDisks(fixtures.Fixture):
    """A machine's disks: files in a directory of the test's, attached as
    loop devices; they outlive the agents booted on them.

    :param count: how many disks.
    :param size_mib: the size of each.
    """

    def __init__(self, count=1, size_mib=160):
        super().__init__()
        self.count, self.size_mib = count, size_mib

    def _setUp(self):
        problem = why_unavailable()
        if problem:
            raise RuntimeError('cannot start the real agent: %s' % problem)
        self.dir = tempfile.mkdtemp(prefix='ironic-steps-agent-')
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.disks = [self._make_disk(index) for index in range(self.count)]

    def _make_disk(self, index):
        path = os.path.join(self.dir, 'disk%d.img' % index)
        with open(path, 'wb') as backing:
            backing.truncate(self.size_mib * 1024 * 1024)
        device = _run('losetup', '--find', '--show', path)
        self.addCleanup(subprocess.run, ['losetup', '--detach', device],
                        capture_output=True)
        return Disk(device, 'ironic-steps-%s-%d' % (
            os.path.basename(self.dir).rsplit('-', 1)[-1], index), path)


class AgentSandbox(fixtures.Fixture):
    """A confined ironic-python-agent for one node (see the module doc).

    :param api_url: the ironic-steps API the agent looks up and
        heartbeats to (loopback).
    :param mac: the MAC address of the agent's one interface: give the
        node a port with it, so the agent's lookup finds the node.
    :param disks: the machine's :class:`LoopDisks` (new ones by default).
    :param inspection_callback_url: where the agent posts its inventory
        when it starts (``ipa-inspection-callback-url``, the API's
        ``/v1/continue_inspection``, loopback), for a node inspected in
        band; None: it posts none.
    """

    def __init__(self, api_url, mac, disks=None, proof_timeout=30,
                 inspection_callback_url=None):
        super().__init__()
        self.api_url = api_url
        self.inspection_callback_url = inspection_callback_url
        self.mac = mac
        self._disks = disks
        self.proof_timeout = proof_timeout
        self.process = None

    def _setUp(self):
        if self._disks is None:
            self._disks = self.useFixture(LoopDisks())
        self.disks = self._disks.disks
        self.dir = tempfile.mkdtemp(prefix='sandbox-', dir=self._disks.dir)
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.port = agent_port()
        self._write_standins()
        self._write_config()
        self._start()

    def _write_standins(self):
        self.bin = os.path.join(self.dir, 'bin')
        os.mkdir(self.bin)
        wrappers = {name: '%s %s' % (os.path.join(_STANDINS, 'refuse'), name)
                    for name in REFUSED}
        wrappers['ip'] = os.path.join(_STANDINS, 'ip')
        for name in _SYNCED:
            real = shutil.which(name)
            if real:
                wrappers[name] = '%s %s' % (
                    os.path.join(_STANDINS, 'sync-devices'), real)
        for name, target in wrappers.items():
            path = os.path.join(self.bin, name)
            with open(path, 'w') as script:
                script.write('#!/bin/sh\nexec %s "$@"\n' % target)
            os.chmod(path, 0o755)

    def _write_config(self):
        os.mkdir(os.path.join(self.dir, 'tmp'))
        with open(os.path.join(self.dir, 'cmdline'), 'w') as cmdline:
            cmdline.write('ipa-api-url=%s ipa-insecure=1%s\n' % (
                self.api_url, ' ipa-inspection-callback-url=%s' % (
                    self.inspection_callback_url)
                if self.inspection_callback_url else ''))
        with open(os.path.join(self.dir, 'agent.conf'), 'w') as conf:
            conf.write('\n'.join([
                '[DEFAULT]',
                'api_url = %s' % self.api_url,
                'listen_host = 127.0.0.1',
                'listen_port = %d' % self.port,
                'advertise_host = 127.0.0.1',
                'advertise_port = %d' % self.port,
                'enable_auto_tls = False',
                'insecure = True',
                'lookup_timeout = 300',
                'lookup_interval = 1',
                'disk_wait_attempts = 1',
                'hardware_initialization_delay = 0',
                'collect_lldp = False',
                'inspection_callback_url = %s' % (
                    self.inspection_callback_url or ''),
                'debug = True',
                # A failed download is tried again once, a second later
                # (9 times, 10 s apart, by default: 90 s of a test).
                'image_download_connection_retries = 1',
                'image_download_connection_retry_interval = 1',
                '']))

    def _environment(self):
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(('OS_', 'IRONIC_STEPS_'))}
        env.update(
            PATH='%s:%s' % (self.bin, env.get('PATH', '/usr/bin:/bin')),
            TMPDIR=os.path.join(self.dir, 'tmp'),
            # The disks' directory: their backing files must be in it.
            IRONIC_STEPS_AGENT_SANDBOX=self._disks.dir,
            IRONIC_STEPS_AGENT_RUN_DIR=self.dir,
            IRONIC_STEPS_AGENT_DISKS=','.join(
                '%s=%s' % (disk.device, disk.serial) for disk in self.disks),
            IRONIC_STEPS_AGENT_MAC=self.mac,
            IRONIC_STEPS_AGENT_STANDINS=self.bin,
            IRONIC_STEPS_AGENT_PYTHON=AGENT_PYTHON,
            IRONIC_STEPS_REAL_IP=shutil.which('ip') or '/usr/sbin/ip')
        return env

    def _start(self):
        self.log_path = os.path.join(self.dir, 'agent.log')
        log = open(self.log_path, 'wb')
        self.addCleanup(log.close)
        self.process = subprocess.Popen(
            ['unshare', '--mount', '--pid', '--fork', '--mount-proc',
             '--kill-child', '--propagation', 'private', '--',
             os.path.join(_HERE, 'enter_sandbox.sh')],
            env=self._environment(), stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
        self.addCleanup(self.stop)
        self.confinement = self._wait_for_proof()

    def _wait_for_proof(self):
        proof = os.path.join(self.dir, 'confinement.json')
        deadline = time.monotonic() + self.proof_timeout
        while time.monotonic() < deadline:
            if os.path.exists(proof) and os.path.getsize(proof):
                with open(proof) as found:
                    result = json.load(found)
                if not result['confined']:
                    raise RuntimeError('the agent sandbox is not confined: %s'
                                       % result['problems'])
                return result
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError('the agent sandbox gave no proof of confinement '
                           '(exit %s); its log:\n%s' % (
                               self.process.poll(), self.log()))

    @property
    def callback_url(self):
        return 'http://127.0.0.1:%d' % self.port

    def log(self):
        with open(self.log_path, errors='replace') as log:
            return log.read()

    def wait_for_log(self, text, timeout=30):
        """Wait until the agent's log says ``text``; :returns: the log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log()
            if text in log:
                return log
            time.sleep(0.1)
        raise AssertionError('the agent did not log %r in %s s; its log:\n%s'
                             % (text, timeout, self.log()[-5000:]))

    def refused(self):
        """The commands the agent tried and was refused, one per line."""
        try:
            with open(os.path.join(self.dir, 'refused.log')) as refused:
                return refused.read().splitlines()
        except FileNotFoundError:
            return []

    def stop(self):
        """Stop the agent: its sandbox's PID 1 dies, and everything in it.

        SIGKILL, because ``unshare`` passes SIGTERM on to the sandbox's
        PID 1, which ignores it; killed, ``unshare`` takes PID 1 with it
        (``--kill-child``), and the kernel then ends every process of the
        namespace.
        """
        if self.process is None or self.process.poll() is not None:
            return
        self.process.kill()
        self.process.wait()
