#!/usr/bin/env python3
"""N direct deploys through real ironic-python-agents, side by side.

For each system (``--systems``: ``ironic-steps``, ``ironic``) and each
repetition, interleaved (ours, Ironic, ours, Ironic, ...), on 127.0.0.1
with a fresh database:

* the service: ironic-steps (``compare_with_ironic.OurService``, the
  all-in-one command of ``.venv``) or OpenStack Ironic 39 (the anchor's
  venv and configuration, started as its ``start_ironic_anchor.sh`` does
  but on a free port, :class:`IronicDirect`, with :func:`ironic_conf`:
  fake-hardware, ``enabled_deploy_interfaces = direct,fake``); both with
  automated cleaning off, ``[agent] require_tls = false``, the same
  ``[api] ramdisk_heartbeat_timeout`` and ``[agent]
  image_download_source = http``;
* N fake-hardware nodes, ``deploy_interface = direct``, each with a port
  (a distinct MAC), a loop disk of its own (``sandbox.LoopDisks``), a
  root-device hint naming the disk's serial, ``boot_mode:bios``, and
  ``instance_info`` pointing at one small qcow2 image
  (``images.build_whole_disk_image``) served by ``images.ImageServer``;
  enrolled, managed and provided before the clock starts;
* one machine per node (:class:`Rack`): one poller lists the nodes every
  ``--poll-interval`` (the same list request on both systems) and hands
  each machine its node; the machine boots a confined agent
  (``sandbox.AgentSandbox``, the only way this project starts IPA) when
  its node boots from the network and stops it at power off.  The two
  fake-hardwares record different things, so the machines read them
  differently (:class:`FakeBootsRule` for ours, as
  ``tests/real_agent/machine.Machine`` does; :class:`PowerRule` for
  Ironic's, which records only ``power_state``).

Timed: from the first ``PUT .../states/provision {"target": "active"}``
(all N at once) to the poll that sees the last node ``active`` (or
failed).  Reported per run: wall time, deploys/s, each node's deploy time
(its request to the poll that saw it active: mean, median, max), the
service's CPU seconds (utime+stime of its process tree from
``/proc/<pid>/stat``, as ``compare_with_ironic.py``) and that per node,
the whole machine's CPU seconds (``/proc/stat``, which include the agents)
and the lowest ``MemAvailable`` seen, failures with their ``last_error``,
and how many disks hold the image's marker file afterwards.  A deploy
request whose connection the service drops is sent again once the node is
seen still ``available`` (counted); an agent that ends by itself is
started again, as a ramdisk's service manager would (counted).  One JSON
line per run is appended to ``benchmarks/results/<date>-real-agent.jsonl``;
a table follows.

Ironic 39's fake management accepts only ``pxe`` as a boot device, so its
``deploy.prepare_instance_boot`` (which sets ``disk``) fails the deploy;
Ironic's nodes are therefore deployed with that step disabled
(``deploy_steps`` priority 0, API 1.69), see :data:`IRONIC_DEPLOY_STEPS`
and ``--ironic-keep-prepare-instance-boot``.  Its nodes also carry
``driver_info/deploy_forces_oob_reboot = true``: ``tear_down_agent``
then syncs and powers off out of band, as ours does, instead of asking
the agent to power off (which the sandbox refuses) and waiting 30 s.

Needs root and what ``tests/real_agent/sandbox.py`` needs; run it with
the project's venv::

    .venv/bin/python benchmarks/real_agent_deploys.py --nodes 20 --reps 2
"""

import argparse
import datetime
import http.client
import json
import os
import resource
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))   # tests.real_agent

import compare_with_ironic as cwi  # noqa: E402
import template_deploys as td  # noqa: E402
from tests.real_agent import images  # noqa: E402
from tests.real_agent import sandbox  # noqa: E402

SYSTEMS = (cwi.OURS, 'ironic')
MARKER_TEXT = 'written by a real agent for real_agent_deploys.py\n'
#: What the machines read of their nodes, one list request per poll.
POLL_FIELDS = ('uuid,name,power_state,provision_state,'
               'target_provision_state,deploy_step,last_error,'
               'driver_internal_info')
#: Ironic 39 cannot set the boot device "disk" on fake-hardware.
IRONIC_DEPLOY_STEPS = [{'interface': 'deploy', 'step': 'prepare_instance_boot',
                        'priority': 0, 'args': {}}]
_NETWORK_BOOT = ('pxe', 'cdrom')
_DEPLOYING = ('deploying', 'wait call-back')
#: Ironic's deploy steps after tear_down_agent powered the agent off.
_AFTER_AGENT = ('switch_to_tenant_network', 'boot_instance')


# --- the machines -------------------------------------------------------------

class ConfinedAgent(sandbox.AgentSandbox):
    """The sandbox, with more time to prove its confinement: 20 agents
    starting at once on 2 cores take longer than the tests' 30 s."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault('proof_timeout', 180)
        super().__init__(*args, **kwargs)


class FakeBootsRule:
    """ironic-steps' fake-hardware, read as ``machine.Machine`` reads it:
    a new ``fake_boots`` while powered on is a boot, from the network if
    ``fake_boot_device`` is ``pxe`` (or unset)."""

    name = 'fake_boots'

    def __init__(self):
        self._boot = None

    def decide(self, node, running):
        """:returns: ('stop'|'boot'|'reboot'|None)."""
        info = node.get('driver_internal_info') or {}
        if node.get('power_state') != 'power on':
            self._boot = None
            return 'stop' if running else None
        boot = info.get('fake_boots', 0)
        if boot == self._boot:
            return None
        self._boot = boot
        if info.get('fake_boot_device', 'pxe') in _NETWORK_BOOT:
            return 'reboot'
        return 'stop' if running else None


class PowerRule:
    """Ironic 39's fake-hardware records only ``power_state`` (its fake
    management always answers ``pxe``, its boot interface records
    nothing): the agent boots when the node is powered on by its deploy
    (``deploy.deploy`` reboots it, then it waits for the agent), and stops
    at power off, or once the deploy is past ``tear_down_agent``."""

    name = 'power_state'

    def __init__(self):
        self._booted = False

    def decide(self, node, running):
        state = node.get('provision_state')
        step = (node.get('deploy_step') or {}).get('step')
        powered = node.get('power_state') == 'power on'
        if state not in _DEPLOYING:
            self._booted = False
        wanted = powered and state in _DEPLOYING and step not in _AFTER_AGENT
        if running and not wanted:
            return 'stop'
        if (not running and not self._booted and powered
                and (state == 'wait call-back' or step == 'deploy')):
            self._booted = True
            return 'boot'
        return None


class Machine:
    """One node's machine: its disk, and the agent it runs.

    Its own thread acts on the latest node the poller handed it, so a
    slow agent start never holds up the other machines.
    """

    def __init__(self, endpoint, mac, disks, rule):
        self.endpoint, self.mac, self.disks, self.rule = (
            endpoint, mac, disks, rule)
        self.uuid = None
        self.agents = []
        self.logs = []          # each agent's log, once halted
        self.errors = []
        self.crashes = []
        self._agent = None
        self._latest = None
        self._wake = threading.Condition()
        self._halted = False
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='machine-%s' % mac)

    def start(self):
        self._thread.start()

    def see(self, node):
        with self._wake:
            self._latest = node
            self._wake.notify()

    def _run(self):
        while True:
            with self._wake:
                while self._latest is None and not self._halted:
                    self._wake.wait()
                if self._halted:
                    return
                node, self._latest = self._latest, None
            if self._crashed():
                self._power_off()
                if (node.get('power_state') == 'power on'
                        and node.get('provision_state') in _DEPLOYING):
                    # As the ramdisk's service manager would: again.
                    self._boot_agent()
                    continue
            action = self.rule.decide(node, self._agent is not None)
            if action in ('stop', 'reboot'):
                self._power_off()
            if action in ('boot', 'reboot'):
                self._boot_agent()

    def _crashed(self):
        """Whether the running agent has ended by itself (recorded)."""
        agent = self._agent
        if agent is None or agent.process.poll() is None:
            return False
        tail = [line for line in _read_log(agent).splitlines()
                if 'ERROR' in line or 'CRITICAL' in line][-1:]
        self.crashes.append('agent exited %s: %s' % (
            agent.process.returncode, (tail or [''])[0][-300:]))
        return True

    def _boot_agent(self):
        agent = ConfinedAgent(self.endpoint, self.mac, disks=self.disks)
        try:
            agent.setUp()
        except Exception as exc:   # noqa: BLE001 -- recorded as a failure
            self.errors.append('agent did not start: %s' % str(exc)[-500:])
            return
        self._agent = agent
        self.agents.append(agent)

    def _power_off(self):
        if self._agent is not None:
            self._agent.stop()
            self._agent = None

    def halt(self):
        with self._wake:
            self._halted = True
            self._wake.notify()
        # Longer than an agent's start may take (ConfinedAgent's proof).
        self._thread.join(timeout=240)
        self._power_off()
        # The logs live in the agents' directories: read them first.
        self.logs = [_read_log(agent) for agent in self.agents]
        for agent in self.agents:
            agent.cleanUp()

    def running(self):
        return self._agent is not None


class Rack:
    """The machines of a run, and the one poller that watches their nodes
    through the REST API (a list request every ``interval``)."""

    def __init__(self, api, machines, interval):
        self.api, self.machines, self.interval = api, machines, interval
        self.latest = {}            # uuid: the node as last seen
        self.seen_at = {}           # (uuid, provision_state): first seen
        self.mem_available_min = None
        self.polls = self.poll_errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True,
                                        name='rack-poller')

    def __enter__(self):
        for machine in self.machines.values():
            machine.start()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=60)
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(Machine.halt, self.machines.values()))

    def _watch(self):
        while not self._stop.wait(self.interval):
            try:
                nodes = self.api.nodes(POLL_FIELDS)
            except Exception:   # noqa: BLE001 -- counted, polled again
                self.poll_errors += 1
                continue
            now = time.monotonic()
            self.polls += 1
            for node in nodes:
                self.latest[node['uuid']] = node
                self.seen_at.setdefault(
                    (node['uuid'], node['provision_state']), now)
                machine = self.machines.get(node['uuid'])
                if machine is not None:
                    machine.see(node)
            available = _mem_available_mib()
            if (self.mem_available_min is None
                    or available < self.mem_available_min):
                self.mem_available_min = available

    def wait(self, uuids, timeout):
        """Until every node is active or failed; :returns: {uuid: (state,
        monotonic time first seen so)}."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ended = {}
            for uuid in uuids:
                node = self.latest.get(uuid) or {}
                state = node.get('provision_state')
                if state == 'active' or (state or '').endswith('failed'):
                    ended[uuid] = (state, self.seen_at[(uuid, state)])
            if len(ended) == len(uuids):
                return ended
            time.sleep(0.05)
        return ended


def _read_log(agent):
    try:
        return agent.log()[-200000:]
    except OSError as exc:
        return 'no log: %s' % exc


def _mem_available_mib():
    with open('/proc/meminfo') as meminfo:
        for line in meminfo:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) // 1024
    return None


def _box_cpu_s():
    """CPU seconds the whole machine spent busy (all cores), /proc/stat."""
    with open('/proc/stat') as stat:
        fields = [int(f) for f in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]    # idle, iowait
    return (sum(fields[:8]) - idle) / cwi.TICK


# --- the systems ----------------------------------------------------------------

def ironic_conf(args, port):
    """Ironic 39: the anchor's configuration, with the direct deploy."""
    return '\n'.join([
        '# Written by benchmarks/real_agent_deploys.py, after '
        '/work/shared/bench/ironic-anchor.conf',
        '[DEFAULT]',
        'host = bench-conductor',
        'auth_strategy = noauth',
        'rpc_transport = none',
        'log_file = @STATE_DIR@/ironic.log',
        'debug = false',
        'use_stderr = false',
        'enabled_hardware_types = fake-hardware',
        'enabled_deploy_interfaces = direct,fake',
        'default_deploy_interface = fake',
    ] + ['enabled_%s_interfaces = %s\ndefault_%s_interface = %s'
         % (kind, impl, kind, impl) for kind, impl in (
             ('bios', 'fake'), ('boot', 'fake'), ('console', 'fake'),
             ('firmware', 'fake'), ('inspect', 'fake'),
             ('management', 'fake'), ('network', 'noop'),
             ('power', 'fake'), ('raid', 'fake'), ('rescue', 'fake'),
             ('storage', 'noop'), ('vendor', 'fake'))] + [
        '[api]',
        'host_ip = 127.0.0.1',
        'port = %d' % port,
        'ramdisk_heartbeat_timeout = %d' % args.heartbeat_timeout,
        '[database]',
        'connection = sqlite:///@STATE_DIR@/ironic.sqlite',
        '[dhcp]',
        'dhcp_provider = none',
        '[agent]',
        'image_download_source = http',
        '# The sandboxed agents call back on http://127.0.0.1 (no TLS).',
        'require_tls = false',
        '[conductor]',
        'automated_clean = false',
        '[service_catalog]',
        '# The agent is told the API URL; without keystone it is this.',
        'endpoint_override = http://127.0.0.1:%d' % port,
        '']) + '\n'


def our_conf_text(args):
    """Layered on OurService's configuration."""
    return ('[api]\nramdisk_heartbeat_timeout = %d\n'
            '[agent]\nimage_download_source = http\nrequire_tls = false\n'
            '[conductor]\nautomated_clean = false\n'
            % args.heartbeat_timeout)


def our_conf(args, state_dir):
    path = os.path.join(state_dir, 'real-agent.conf')
    with open(path, 'w') as conf:
        conf.write(our_conf_text(args))
    return path


class IronicDirect:
    """OpenStack Ironic 39 started as ``start_ironic_anchor.sh`` starts it
    (``ironic-dbsync create_schema`` on a fresh SQLite file, WAL as Ironic
    means to set it, the all-in-one ``ironic`` in the background; see
    /work/shared/bench/README.md), but on a free port of 127.0.0.1: the
    script waits for the fixed port 6385, which other sessions' anchors on
    this machine may hold.  Stopped by the PID it started."""

    name = 'ironic'

    def __init__(self, args):
        self.args = args
        self.proc = None
        self.children = []
        self.state_dir = self.port = self.log_path = None

    @property
    def pid(self):
        return self.proc.pid

    @property
    def endpoint(self):
        return 'http://%s:%d' % (cwi.LOOPBACK, self.port)

    def start(self):
        venv_bin = os.path.join(self.args.ironic_venv, 'bin')
        self.state_dir = tempfile.mkdtemp(prefix='real-agent-ironic-')
        self.port = cwi.free_port()
        self.log_path = os.path.join(self.state_dir, 'ironic.log')
        conf = os.path.join(self.state_dir, 'ironic.conf')
        with open(conf, 'w') as out:
            out.write(ironic_conf(self.args, self.port).replace(
                '@STATE_DIR@', self.state_dir))
        subprocess.run([os.path.join(venv_bin, 'ironic-dbsync'),
                        '--config-file', conf, 'create_schema'],
                       check=True, capture_output=True, timeout=300)
        with sqlite3.connect(os.path.join(self.state_dir,
                                          'ironic.sqlite')) as db:
            db.execute('PRAGMA journal_mode=WAL')
        with open(os.path.join(self.state_dir, 'stdout'), 'wb') as out:
            self.proc = subprocess.Popen(
                [os.path.join(venv_bin, 'ironic'), '--config-file', conf],
                stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, cwd=self.state_dir)
        if not cwi.wait_for_api(self.endpoint + '/v1',
                                lambda: self.proc.poll() is None,
                                self.args.start_timeout):
            self.stop()
            raise RuntimeError('Ironic did not start; see %s'
                               % self.state_dir)
        self.children = cwi.descendants(self.proc.pid)
        return self.proc.pid

    def stop(self):
        """SIGTERM to the master, which stops its worker; SIGKILL to
        either PID still there a minute later."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        deadline = time.monotonic() + 60
        while (any(cwi.pid_alive(pid) for pid in self.children)
               and time.monotonic() < deadline):
            time.sleep(0.2)
        for pid in self.children:
            if cwi.pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.proc = None

    def cleanup(self, keep):
        if self.state_dir and not keep:
            shutil.rmtree(self.state_dir, ignore_errors=True)


def make_service(args, system, scratch):
    if system == cwi.OURS:
        return cwi.OurService(argparse.Namespace(**dict(
            vars(args), ironic_steps_extra_conf=our_conf(args, scratch))))
    return IronicDirect(args)


# --- one run -----------------------------------------------------------------

def mac_of(index):
    return '52:54:00:be:%02x:%02x' % (index // 256, index % 256)


def enrol(api, system, disks, image):
    """N available direct nodes with ports and the image; [uuid]."""
    ironic = system != cwi.OURS

    def one(index):
        node = api('POST', '/v1/nodes', dict({
            'name': 'real-agent-%03d' % index, 'driver': 'fake-hardware',
            'deploy_interface': 'direct',
            'properties': {'root_device': {'serial': disks[index].serial},
                           'capabilities': 'boot_mode:bios'},
            'instance_info': image}, **({'driver_info': {
                'deploy_forces_oob_reboot': True}} if ironic else {})))
        api('POST', '/v1/ports', {'node_uuid': node['uuid'],
                                  'address': mac_of(index)})
        return node['uuid']

    uuids = api.each(one, range(len(disks)))
    for target, want in (('manage', 'manageable'), ('provide', 'available')):
        api.each(lambda u: api('PUT', '/v1/nodes/%s/states/provision' % u,
                               {'target': target}), uuids)
        api.wait_for(uuids, want)
    return uuids


def deploy_body(args, system):
    if system != cwi.OURS and not args.ironic_keep_prepare_instance_boot:
        return {'target': 'active', 'deploy_steps': IRONIC_DEPLOY_STEPS}
    return {'target': 'active'}


def request_deploy(api, uuid, body, attempts=6):
    """PUT the deploy request; :returns: the connection errors retried.

    A service may drop a connection under load (Ironic's cheroot resets
    some of 20 deploy requests at once): if the node has left
    ``available`` the request was taken, else it is sent again.
    """
    errors = []
    for attempt in range(attempts):
        try:
            api('PUT', '/v1/nodes/%s/states/provision' % uuid, body)
            return errors
        except (ConnectionError, http.client.HTTPException,
                urllib.error.URLError) as exc:
            if isinstance(exc, urllib.error.HTTPError):
                raise
            errors.append('%s: %s' % (type(exc).__name__, exc))
            time.sleep(0.2 * 2 ** attempt)
            try:
                state = api('GET', '/v1/nodes/%s?fields=provision_state'
                            % uuid)['provision_state']
            except (ConnectionError, http.client.HTTPException,
                    urllib.error.URLError):
                continue
            if state != 'available':
                return errors
    raise td.RunFailed('node %s: deploy request failed %d times: %s'
                       % (uuid, attempts, errors[-1]))


def measure(args, system, service, api, uuids, machines, work):
    """The timed deploy; the run's figures."""
    body = deploy_body(args, system)
    with Rack(api, machines, args.poll_interval) as rack:
        time.sleep(max(2 * args.poll_interval, 0.5))   # the machines see
        cpu0, box0 = cwi.cpu_snapshot(service.pid), _box_cpu_s()
        self0 = resource.getrusage(resource.RUSAGE_SELF)
        asked, retried = {}, []
        t0 = time.monotonic()

        def one(uuid):
            asked[uuid] = time.monotonic()
            retried.extend(request_deploy(api, uuid, body))

        with ThreadPoolExecutor(args.deploy_concurrency or len(uuids)) as pool:
            list(pool.map(one, uuids))
        submit_s = time.monotonic() - t0
        ended = rack.wait(uuids, args.deploy_timeout)
        t1 = max([seen for _state, seen in ended.values()] or [t0])
        cpu = cwi.cpu_delta(cpu0, cwi.cpu_snapshot(service.pid))
        box = _box_cpu_s() - box0
        self1 = resource.getrusage(resource.RUSAGE_SELF)
        latest = dict(rack.latest)
        polls, poll_errors = rack.polls, rack.poll_errors
        mem_min = rack.mem_available_min
    times = [seen - asked[uuid] for uuid, (state, seen) in ended.items()
             if state == 'active']
    failed = {uuid: (latest.get(uuid) or {}).get('provision_state')
              for uuid in uuids
              if (ended.get(uuid) or (None,))[0] != 'active'}
    wall = t1 - t0
    by_uuid = {m.uuid: m for m in machines.values()}
    written = sum(images.read_file_from_ext4(
        by_uuid[uuid].disks.disks[0].path, work) == MARKER_TEXT
        for uuid in uuids)
    return {
        'wall_s': round(wall, 2), 'submit_s': round(submit_s, 2),
        'deploys_per_s': round(len(times) / wall, 3) if wall else None,
        'node_deploy_mean_s': _round(statistics.mean, times),
        'node_deploy_median_s': _round(statistics.median, times),
        'node_deploy_min_s': _round(min, times),
        'node_deploy_max_s': _round(max, times),
        'active': len(times), 'failures': len(failed),
        'failed': {uuid: {'state': state, 'last_error': (
            (latest.get(uuid) or {}).get('last_error') or '')[:400]}
            for uuid, state in failed.items()},
        'server_cpu_s': round(cpu, 2),
        'server_cpu_per_node_s': round(cpu / len(uuids), 3),
        'server_cpu_pct_avg': round(100 * cpu / wall, 1) if wall else None,
        'box_cpu_s': round(box, 1),
        'bench_process_cpu_s': round(
            (self1.ru_utime + self1.ru_stime)
            - (self0.ru_utime + self0.ru_stime), 1),
        'mem_available_min_mib': mem_min,
        'agents_booted': sum(len(m.agents) for m in machines.values()),
        'agent_start_errors': [e for m in machines.values()
                               for e in m.errors][:5],
        'agents_left_running': sum(m.running() for m in machines.values()),
        'agent_crashes': sum(len(m.crashes) for m in machines.values()),
        'agent_crash_samples': [c for m in machines.values()
                                for c in m.crashes][:5],
        'disks_with_image': written,
        'polls': polls, 'poll_errors': poll_errors,
        'deploy_concurrency': args.deploy_concurrency or len(uuids),
        'deploy_request_retries': len(retried),
        'deploy_request_errors': sorted(set(retried))[:5],
    }


def _round(fn, values, digits=2):
    return round(fn(values), digits) if values else None


def run_one(args, system, rep, scratch):
    cwi.log('%s rep %d: N=%d' % (system, rep, args.nodes))
    work = tempfile.mkdtemp(prefix='%s-' % system, dir=scratch)
    path, digest = images.build_whole_disk_image(work, MARKER_TEXT)
    image_server = images.ImageServer(work)
    image_server.setUp()
    disks = [sandbox.LoopDisks() for _ in range(args.nodes)]
    service = make_service(args, system, work)
    code, load = cwi.git_state(), os.getloadavg()[0]
    result = {'benchmark': 'real-agent-deploys', 'system': system,
              'rep': rep, 'nodes': args.nodes}
    try:
        for disk in disks:
            disk.setUp()
        service.start()
        time.sleep(args.settle)
        api = td.Api(service.endpoint, args.concurrency)
        image = {'image_source': image_server.url(os.path.basename(path)),
                 'image_os_hash_algo': 'sha256',
                 'image_os_hash_value': digest,
                 'image_disk_format': 'qcow2'}
        t0 = time.monotonic()
        uuids = enrol(api, system, [d.disks[0] for d in disks], image)
        setup_s = time.monotonic() - t0
        rule = FakeBootsRule if system == cwi.OURS else PowerRule
        machines = {}
        for index, uuid in enumerate(uuids):
            machines[uuid] = Machine(service.endpoint, mac_of(index),
                                     disks[index], rule())
            machines[uuid].uuid = uuid
        result.update(measure(args, system, service, api, uuids, machines,
                              work))
        result.update({
            'setup_s': round(setup_s, 2),
            'machine_rule': rule.name,
            'deploy_request': deploy_body(args, system),
            'heartbeat_timeout': args.heartbeat_timeout,
            'poll_interval': args.poll_interval,
            'image_bytes': os.path.getsize(path),
            'loadavg_1m_at_start': load,
            'date': datetime.datetime.now().isoformat(timespec='seconds'),
            'git': code if system == cwi.OURS else None,
            'service_conf': (our_conf_text(args) if system == cwi.OURS
                             else ironic_conf(args, service.port)),
            'machine': args.machine})
        result.update(log_problems(service.log_path))
        if (result['failures'] and args.keep_failed) or args.keep_state:
            _keep_logs(args, system, rep, service, machines, work)
    except Exception as exc:   # noqa: BLE001 -- recorded, the rest goes on
        cwi.log('%s rep %d failed: %s' % (system, rep, exc))
        result['error'] = str(exc)[:2000]
        result['traceback'] = traceback.format_exc()[-3000:]
    finally:
        service.stop()
        service.cleanup(keep=args.keep_state)
        if args.keep_state:
            cwi.log('state (and log) of %s kept in %s'
                    % (system, service.state_dir))
        for disk in disks:
            disk.cleanUp()
        image_server.cleanUp()
    cwi.log('%s rep %d: wall %s s, %s deploys/s, node median %s s, CPU %s '
            's/node, %s failed' % (
                system, rep, result.get('wall_s'),
                result.get('deploys_per_s'),
                result.get('node_deploy_median_s'),
                result.get('server_cpu_per_node_s'),
                result.get('failures', result.get('error'))))
    return result


def log_problems(path):
    """How many ERROR and WARNING lines the service logged, and the
    first few distinct ERROR messages."""
    counts, samples = {'ERROR': 0, 'WARNING': 0}, []
    try:
        with open(path, errors='replace') as log:
            for line in log:
                for level in counts:
                    if ' %s ' % level in line:
                        counts[level] += 1
                        text = line.split(' %s ' % level, 1)[1].strip()
                        text = text.split('] ', 1)[-1][:300]
                        if level == 'ERROR' and text not in samples:
                            samples.append(text)
    except OSError:
        return {}
    return {'service_log_errors': counts['ERROR'],
            'service_log_warnings': counts['WARNING'],
            'service_log_error_samples': samples[:3]}


def _keep_logs(args, system, rep, service, machines, work):
    """The service's log and every agent's log, for a failed run."""
    target = tempfile.mkdtemp(prefix='real-agent-%s-rep%d-' % (system, rep))
    if service.log_path and os.path.exists(service.log_path):
        with open(service.log_path, 'rb') as src, open(
                os.path.join(target, 'service.log'), 'wb') as dst:
            dst.write(src.read())
    for uuid, machine in machines.items():
        with open(os.path.join(target, 'agents-%s.log' % uuid), 'w') as out:
            for number, log in enumerate(machine.logs):
                out.write('--- agent %d ---\n%s\n' % (number, log))
    cwi.log('service and agent logs kept in %s' % target)


# --- report -------------------------------------------------------------------

COLUMNS = (('system', 'system'), ('rep', 'rep'), ('N', 'nodes'),
           ('wall s', 'wall_s'), ('deploys/s', 'deploys_per_s'),
           ('node mean s', 'node_deploy_mean_s'),
           ('node median s', 'node_deploy_median_s'),
           ('node max s', 'node_deploy_max_s'),
           ('service CPU s', 'server_cpu_s'),
           ('CPU s/node', 'server_cpu_per_node_s'),
           ('box CPU s', 'box_cpu_s'),
           ('min MemAvail MiB', 'mem_available_min_mib'),
           ('disks written', 'disks_with_image'), ('failures', 'failures'))


def print_table(results, out=sys.stdout):
    print('| ' + ' | '.join(c[0] for c in COLUMNS) + ' |', file=out)
    print('|' + '---|' * len(COLUMNS), file=out)
    for res in results:
        cells = [str(res.get(key, '-')) for _, key in COLUMNS]
        if res.get('error'):
            cells[-1] = 'ERROR: %s' % res['error'][:80]
        print('| ' + ' | '.join(cells) + ' |', file=out)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nodes', type=int, default=20)
    ap.add_argument('--systems', default=','.join(SYSTEMS),
                    help='run in this order in each repetition: %s'
                         % ', '.join(SYSTEMS))
    ap.add_argument('--reps', type=int, default=1,
                    help='repetitions, the systems interleaved')
    ap.add_argument('--heartbeat-timeout', type=int, default=30,
                    help='[api] ramdisk_heartbeat_timeout of both services')
    ap.add_argument('--poll-interval', type=float, default=0.25,
                    help="seconds between the machines' list requests")
    ap.add_argument('--concurrency', type=int, default=8,
                    help='requests in flight while enrolling')
    ap.add_argument('--deploy-timeout', type=float, default=900.0)
    ap.add_argument('--deploy-concurrency', type=int, default=0,
                    help='deploy requests in flight (default: all N)')
    ap.add_argument('--settle', type=float, default=3.0,
                    help='idle seconds between start and enrolment')
    ap.add_argument('--ironic-keep-prepare-instance-boot',
                    action='store_true',
                    help="deploy Ironic's nodes with every default step "
                         '(its fake management then fails them)')
    ap.add_argument('--keep-failed', action='store_true',
                    help='keep the service and agent logs of a run with '
                         'failures (a directory in $TMPDIR)')
    ap.add_argument('--keep-state', action='store_true',
                    help="keep each service's state directory and log")
    ap.add_argument('--out', default=os.path.join(
        HERE, 'results', '%s-real-agent.jsonl'
        % datetime.date.today().isoformat()))
    args = ap.parse_args(argv)
    args.systems = [s for s in args.systems.split(',') if s]
    if not args.systems or set(args.systems) - set(SYSTEMS):
        ap.error('--systems is among %s' % ', '.join(SYSTEMS))
    if min(args.nodes, args.reps, args.concurrency) < 1:
        ap.error('--nodes, --reps and --concurrency must be at least 1')
    problem = sandbox.why_unavailable()
    if problem:
        ap.error('cannot start the real agent: %s' % problem)
    args.workers_pool_size, args.start_timeout = None, 90.0
    venv_bin = os.path.join(cwi.REPO, '.venv', 'bin')
    args.ironic_steps = os.path.join(venv_bin, 'ironic-steps')
    args.ironic_steps_python = os.path.join(venv_bin, 'python')
    args.ironic_venv = os.path.expanduser('~/ironic-anchor/venv')
    return args


def _exit_on_sigterm(signum, frame):
    # SystemExit in the main thread: every ``finally`` stops what it
    # started (service, agents, loop disks) on the way out.
    sys.exit(128 + signum)


def main(argv=None):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    args.machine = cwi.machine_info(args)
    if 'ironic' not in args.systems:
        args.machine.pop('python_ironic', None)
    results = []
    with tempfile.TemporaryDirectory(prefix='real-agent-bench-') as scratch:
        for rep in range(1, args.reps + 1):
            for system in args.systems:
                result = run_one(args, system, rep, scratch)
                results.append(result)
                with open(args.out, 'a') as out:
                    out.write(json.dumps(result) + '\n')
    print_table(results)
    print('\nJSON lines appended to %s' % args.out)
    return 0 if all(not r.get('error') and not r.get('failures')
                    for r in results) else 1


if __name__ == '__main__':
    sys.exit(main())
