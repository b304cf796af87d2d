"""Watch ironic-steps deploy nodes, step by step (see tools/demo).

Three labs share one set of machinery (config, service, CLI, live view):

* the default deploys fake nodes, the last one failing on purpose;
* ``--redfish`` starts a Redfish BMC emulator beside the service
  (``tests/redfish_emulator``), enrols its systems as ``redfish`` nodes
  and deploys them with a deploy template that sets BIOS settings and
  builds RAID volumes on the BMC, as a bare-metal lab would;
* ``--agent`` (root) deploys ``direct`` nodes with the real
  ironic-python-agent, confined to a loop disk per node
  (``tools/demo_agent.py``): it cleans the disk, writes a real image and a
  config drive, and the demo reads them back from the disk.
"""

import argparse
import base64
import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
DONE_STATES = ('active', 'deploy failed')
#: The fake demo's last node fails on purpose, to show what a failure
#: looks like.
FAILING_STEP = 'boot.prepare_instance_boot'

#: What the Redfish lab's deploy template does: BIOS settings the
#: emulator's systems have, and a RAID layout their four drives can hold.
#: Priorities above deploy.deploy's 100: the server is set up before it
#: boots its ISO.
TEMPLATE = 'CUSTOM_DATABASE'
TEMPLATE_STEPS = [
    {'interface': 'bios', 'step': 'apply_configuration', 'priority': 150,
     'args': {'settings': [{'name': 'ProcTurboMode', 'value': 'Disabled'},
                           {'name': 'SriovEnable', 'value': 'Enabled'}]}},
    {'interface': 'raid', 'step': 'apply_configuration', 'priority': 140,
     'args': {'raid_config': {'logical_disks': [
         {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True,
          'volume_name': 'root'},
         {'size_gb': 200, 'raid_level': '0', 'volume_name': 'scratch'}]}}},
]
#: The ramdisk deploy boots this from virtual media; the emulator only
#: records the URL, so nothing needs to serve it.
BOOT_ISO = 'http://127.0.0.1:9/images/database.iso'
BMC_USER = 'admin'
#: Each agent is a confined ironic-python-agent on its own loop disk.
AGENT_MAX_NODES = 3
#: Where a node keeps the agent command its step waits for
#: (driver_internal_info; ironic_steps.drivers.base.AGENT_COMMAND_KEY).
AGENT_COMMAND = 'agent_command'


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    lab = parser.add_mutually_exclusive_group()
    lab.add_argument('--redfish', action='store_true',
                     help='deploy redfish nodes against a Redfish BMC '
                          'emulator, with a BIOS + RAID deploy template; '
                          'the emulator and the service are stopped at '
                          'the end')
    lab.add_argument('--agent', action='store_true',
                     help='(root) deploy a real image with the real '
                          'ironic-python-agent, confined to a loop disk '
                          'per node, and read the disk back')
    parser.add_argument('--nodes', type=int, default=None,
                        help='how many nodes to deploy (default 3; 1 with '
                             '--agent, at most %d)' % AGENT_MAX_NODES)
    parser.add_argument('--port', type=int, default=6385,
                        help='API port on 127.0.0.1 (default 6385; a free '
                             'port is used if it is taken)')
    parser.add_argument('--state-dir', default=None,
                        help='where the demo keeps its config, database, '
                             'logs and emulator state (default state/demo, '
                             'or state/demo-redfish with --redfish)')
    parser.add_argument('--step-delay', type=float, default=1.0,
                        help='seconds each fake step takes (default 1)')
    parser.add_argument('--stop', action='store_true',
                        help='stop the service at the end instead of '
                             'leaving it running for inspection')
    args = parser.parse_args()
    if args.nodes is None:
        args.nodes = 1 if args.agent else 3
    if args.agent and not 1 <= args.nodes <= AGENT_MAX_NODES:
        parser.error('--agent deploys 1 to %d nodes, not %d' % (
            AGENT_MAX_NODES, args.nodes))
    if args.state_dir is None:
        lab = 'redfish' if args.redfish else 'agent' if args.agent else None
        args.state_dir = os.path.join(
            ROOT, 'state', 'demo-%s' % lab if lab else 'demo')
    if args.redfish:
        args.stop = True
    return args


# Processes: the service, the emulator.

def port_is_free(port):
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', port))
        except OSError:
            return False
    return True


def pick_port(wanted):
    if wanted and port_is_free(wanted):
        return wanted
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def write_config(state_dir, port, sections):
    """A config file for a service on an empty database, with the
    demo's own ``sections`` ({section: {option: value}})."""
    os.makedirs(state_dir, exist_ok=True)
    database = os.path.join(state_dir, 'ironic-steps.sqlite')
    for leftover in (database, database + '-wal', database + '-shm'):
        if os.path.exists(leftover):
            os.remove(leftover)   # each demo starts from an empty database
    options = {'DEFAULT': {'state_path': state_dir,
                           'host': 'demo-conductor',
                           'log_file': os.path.join(state_dir,
                                                    'ironic-steps.log')},
               'api': {'host_ip': '127.0.0.1', 'port': port}}
    for section, values in sections.items():
        options.setdefault(section, {}).update(values)
    path = os.path.join(state_dir, 'ironic-steps.conf')
    with open(path, 'w') as conf:
        for section, values in options.items():
            conf.write('[%s]\n' % section)
            conf.writelines('%s = %s\n' % item for item in values.items())
            conf.write('\n')
    return path


def wait_until_up(process, url, what, log_dir, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit('%s exited (%s); see its log in %s' % (
                what, process.returncode, log_dir))
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    stop(process, what)
    sys.exit('%s did not answer at %s' % (what, url))


def start_service(config_file, endpoint):
    print('Starting: ironic-steps --config-file %s' % config_file)
    process = subprocess.Popen(
        [os.path.join(BIN, 'ironic-steps'), '--config-file', config_file],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)   # keeps running after the demo exits
    wait_until_up(process, endpoint + '/v1', 'ironic-steps',
                  os.path.dirname(config_file))
    print('Service up at %s (PID %d)\n' % (endpoint, process.pid))
    return process


class Emulator:
    """The Redfish BMC emulator this demo started, and how to reach it."""

    def __init__(self, state_dir, systems):
        self.state_dir = os.path.join(state_dir, 'emulator')
        shutil.rmtree(self.state_dir, ignore_errors=True)   # fresh BMCs
        os.makedirs(self.state_dir)
        self.systems = systems
        self.address = 'http://127.0.0.1:%d' % pick_port(0)
        self.password = secrets.token_urlsafe(12)
        self.process = None

    def start(self):
        command = [sys.executable, '-m', 'tests.redfish_emulator.server',
                   '--port', self.address.rsplit(':', 1)[1],
                   '--systems', str(self.systems),
                   '--state-dir', self.state_dir,
                   # Joined: a password starting with '-' (one token in
                   # 64) would otherwise be read as an option.
                   '--username=' + BMC_USER, '--password=' + self.password]
        print('Starting the Redfish BMC emulator: %s systems at %s, basic '
              'auth as %s' % (self.systems, self.address, BMC_USER))
        with open(os.path.join(self.state_dir, 'emulator.log'), 'ab') as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)
        wait_until_up(self.process, self.address + '/redfish/v1/',
                      'the Redfish emulator', self.state_dir)
        print('Emulator up (PID %d)' % self.process.pid)

    def get(self, path):
        token = base64.b64encode(('%s:%s' % (
            BMC_USER, self.password)).encode()).decode()
        request = urllib.request.Request(
            self.address + path, headers={'Authorization': 'Basic ' + token})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def members(self, path):
        return [m['@odata.id'] for m in self.get(path)['Members']]

    def system_paths(self):
        return self.members('/redfish/v1/Systems')

    def volumes(self, system_path):
        """(name, RAID type, GiB) of every volume of a system."""
        found = []
        for controller in self.members(system_path + '/Storage'):
            for volume in self.members(controller + '/Volumes'):
                body = self.get(volume)
                found.append((body['Name'], body.get('RAIDType'),
                              body['CapacityBytes'] // 1024 ** 3))
        return found


def stop(process, what):
    """SIGTERM a process this demo started, by its PID."""
    if process is None or process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    print('%s stopped (PID %d).' % (what, process.pid))


# The client and the live view.

def openstack(endpoint, *args, show=True, secret=None):
    """Run `openstack baremetal ARGS`, printing the command (``secret``
    masked) and its output when ``show``; exit on failure."""
    if show:
        command = shlex.join(('openstack', 'baremetal') + args)
        if secret:
            command = command.replace(secret, '******')
        print('$ ' + command)
    result = subprocess.run(
        [os.path.join(BIN, 'openstack'), '--os-auth-type', 'none',
         '--os-endpoint', endpoint, 'baremetal'] + list(args),
        capture_output=True, text=True, env=dict(os.environ, OS_CLOUD=''))
    if result.returncode != 0:
        sys.exit('openstack failed: %s' % result.stderr.strip())
    if show and result.stdout.strip():
        print(result.stdout.rstrip())
    return result.stdout


def get_nodes(endpoint):
    request = urllib.request.Request(
        endpoint + '/v1/nodes/detail',
        headers={'X-OpenStack-Ironic-API-Version': '1.44'})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)['nodes']


def in_band(node):
    """'interface.step' of the step the node's agent runs now (one of the
    agent's own steps, or a driver's step run as an agent command, as
    write_image), or None."""
    step = node.get('clean_step') or node.get('deploy_step')
    if not step:
        return None
    label = '%s.%s' % (step['interface'], step['step'])
    info = node.get('driver_internal_info') or {}
    command = info.get(AGENT_COMMAND) or {}
    if step.get('in_band') or command.get('step') == label:
        return label
    return None


def describe(node):
    """A node's state and the deploy or clean step it is at, n/N."""
    kind = 'clean' if node.get('clean_step') else 'deploy'
    step = node.get('%s_step' % kind) or {}
    info = node.get('driver_internal_info') or {}
    plan = info.get('%s_steps' % kind) or []
    if step:
        index = info.get('%s_step_index' % kind)
        where = '%s/%s %s.%s' % ((index or 0) + 1, len(plan) or '?',
                                 step['interface'], step['step'])
        if in_band(node):
            where += ' (in-band: the agent runs it)'
    else:
        where = '-'
    return '%-8s %-15s %s' % (node['name'], node['provision_state'], where)


def watch(endpoint, names, timeout=300, done=DONE_STATES, what='deploys',
          ran_in_band=None):
    """Print each node's state and step whenever one changes, until each
    is in one of the ``done`` states; add to the set ``ran_in_band`` the
    steps seen running in-band."""
    print('\nWatching the %s (node, state, step n/N):' % what)
    seen = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        nodes = [n for n in get_nodes(endpoint) if n['name'] in names]
        for node in nodes:
            line = describe(node)
            if seen.get(node['name']) != line:
                seen[node['name']] = line
                print('  %s  %s' % (time.strftime('%H:%M:%S'), line))
            if ran_in_band is not None and in_band(node):
                ran_in_band.add(in_band(node))
        if all(n['provision_state'] in done for n in nodes):
            return nodes
        time.sleep(0.2)
    sys.exit('The %s did not finish within %ss' % (what, timeout))


def make_available(endpoint, names):
    openstack(endpoint, 'node', 'manage', *names, '--wait', '60')
    openstack(endpoint, 'node', 'provide', *names, '--wait', '60')


# The two labs.

def fake_lab(endpoint, names):
    for name in names:
        extra = []
        if name == names[-1] and len(names) > 1:
            extra = ['--driver-info', 'fake_fail_step=%s' % FAILING_STEP]
        openstack(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                  '--name', name, *extra, '-f', 'value', '-c', 'uuid')
    make_available(endpoint, names)
    if len(names) > 1:
        print('\n(%s is told to fail at %s, to show what a failed '
              'deploy looks like.)' % (names[-1], FAILING_STEP))
        print('\nThe steps its deploy will run, before it starts:')
        openstack(endpoint, 'node', 'step', 'preview', names[-1], '-c',
                  'steps')
    openstack(endpoint, 'node', 'deploy', *names)
    watch(endpoint, names)
    print()
    openstack(endpoint, 'node', 'list')
    if len(names) > 1:
        openstack(endpoint, 'node', 'show', names[-1], '-c',
                  'provision_state', '-c', 'deploy_step', '-c', 'last_error')
        resume_lab(endpoint, names[-1])
    openstack(endpoint, 'node', 'show', names[0])


def resume_lab(endpoint, name):
    """Fix the failed node and resume its deploy from the failed step."""
    print('\nFixed, %s resumes from the failed step; the steps before it '
          'are not run again:' % name)
    openstack(endpoint, 'node', 'unset', name, '--driver-info',
              'fake_fail_step')
    openstack(endpoint, 'node', 'step', 'preview', name, '-c', 'resume')
    openstack(endpoint, 'node', 'deploy', 'resume', name)
    watch(endpoint, [name])
    print('\nWhat ran on %s, each step with its duration: the failed '
          'attempt, then the resumed one from the failed step on:' % name)
    openstack(endpoint, 'node', 'step', 'history', name, '--flow', 'deploy')


def redfish_lab(endpoint, names, emulator):
    openstack(endpoint, 'deploy', 'template', 'create', TEMPLATE, '--steps',
              json.dumps(TEMPLATE_STEPS), '-f', 'value', '-c', 'uuid')
    for name, system in zip(names, emulator.system_paths()):
        openstack(endpoint, 'node', 'create', '--driver', 'redfish',
                  '--name', name, '--deploy-interface', 'ramdisk',
                  '--driver-info', 'redfish_address=%s' % emulator.address,
                  '--driver-info', 'redfish_system_id=%s' % system,
                  '--driver-info', 'redfish_username=%s' % BMC_USER,
                  '--driver-info', 'redfish_password=%s' % emulator.password,
                  '-f', 'value', '-c', 'uuid', secret=emulator.password)
        openstack(endpoint, 'node', 'add', 'trait', name, TEMPLATE)
        # Nova sets instance_info/traits to the flavor's traits; here we do.
        openstack(endpoint, 'node', 'set', name,
                  '--instance-info', 'boot_iso=%s' % BOOT_ISO,
                  '--instance-info', 'traits=["%s"]' % TEMPLATE)
    make_available(endpoint, names)
    openstack(endpoint, 'node', 'deploy', *names)
    nodes = watch(endpoint, names)
    print()
    openstack(endpoint, 'node', 'list')
    openstack(endpoint, 'node', 'show', names[0])
    openstack(endpoint, 'node', 'bios', 'setting', 'list', names[0])
    system = emulator.system_paths()[0]
    print('\nThe BMC of %s now has these volumes: %s' % (names[0], ', '.join(
        '%s (%s, %d GiB)' % volume for volume in emulator.volumes(system))))
    return nodes


def agent_lab(endpoint, names, lab):
    """Deploy ``names`` with the real agent on ``lab``'s machines (a
    demo_agent.AgentLab), then read their disks back."""
    for number, name in enumerate(names, 1):
        mac = '52:54:00:5e:00:%02x' % number
        disk = lab.add_disk(name)
        uuid = openstack(
            endpoint, 'node', 'create', '--driver', 'fake-hardware',
            '--deploy-interface', 'direct', '--name', name,
            '--property', 'root_device={"serial": "%s"}' % disk.serial,
            '--property', 'capabilities=boot_mode:bios',
            '-f', 'value', '-c', 'uuid').strip()
        openstack(endpoint, 'port', 'create', mac, '--node', uuid,
                  '-f', 'value', '-c', 'uuid')
        openstack(endpoint, 'node', 'set', name,
                  '--instance-info', 'image_source=%s' % lab.image_url,
                  '--instance-info', 'image_checksum=%s' % lab.checksum,
                  '--instance-info', 'image_disk_format=qcow2')
        lab.add_machine(name, uuid, mac)
    print('\n(Each node is a machine with a loop disk, %s; it boots the '
          'real ironic-python-agent, confined to that disk, whenever it '
          'boots from the network.  The image is a qcow2 whole-disk image '
          'with a marker file in its ext4 partition.)' % ', '.join(
              '%s: %s' % (name, lab.disk(name).device) for name in names))
    openstack(endpoint, 'node', 'manage', *names, '--wait', '60')
    openstack(endpoint, 'node', 'provide', *names)
    ran_in_band = set()
    expect(endpoint, watch(endpoint, names, done=('available', 'clean failed'),
                           what='automated cleanings, by the agent',
                           ran_in_band=ran_in_band), 'available', lab)
    print('\nThe steps the deploy of %s will run, before it starts:'
          % names[0])
    openstack(endpoint, 'node', 'step', 'preview', names[0], '-c', 'steps')
    print('\nDeploying, each with a config drive: its host name and a '
          'throwaway SSH key.')
    for name in names:
        openstack(endpoint, 'node', 'deploy', name, '--config-drive',
                  json.dumps(lab.config_drive(name)))
    expect(endpoint, watch(endpoint, names, ran_in_band=ran_in_band),
           'active', lab)
    print('\nWhat ran on %s, cleaning then deploy, each step with its '
          'duration:' % names[0])
    openstack(endpoint, 'node', 'step', 'history', names[0])
    print('In-band, run by the agent on the machine: %s; the others ran '
          'in the conductor (out-of-band).' % ', '.join(sorted(ran_in_band)))
    for name in names:
        lab.show_written(name)


def expect(endpoint, nodes, state, lab):
    """Exit, with each node's error, unless every node is in ``state``."""
    failed = [node['name'] for node in nodes
              if node['provision_state'] != state]
    for name in failed:
        openstack(endpoint, 'node', 'show', name, '-c', 'provision_state',
                  '-c', 'last_error')
    if failed:
        sys.exit('%s did not become %s; the agents\' logs will be in %s'
                 % (', '.join(failed), state, lab.log_dir))


def load_agent_lab():
    """tools/demo_agent.py; it needs the repository on the path, for the
    confined agent's fixtures in tests/real_agent (not installed)."""
    sys.path.insert(0, ROOT)
    import demo_agent
    problem = demo_agent.why_unavailable()
    if problem:
        print('tools/demo --agent cannot run: %s' % problem, file=sys.stderr)
        sys.exit(2)
    return demo_agent


def exit_on_sigterm(signum, frame):
    """SIGTERM ends the demo as Ctrl-C does: through its ``finally``."""
    sys.exit(128 + signum)


def main():
    args = parse_args()
    port = pick_port(args.port)
    endpoint = 'http://127.0.0.1:%d' % port
    names = ['demo-%d' % i for i in range(1, args.nodes + 1)]
    emulator = lab = None
    if args.agent:
        demo_agent = load_agent_lab()
        # The agent's heartbeats come every few seconds, not every 5
        # minutes; cleaning shows the agent's own erase steps.
        sections = {'api': {'ramdisk_heartbeat_timeout': 6},
                    'conductor': {'automated_clean': 'true'}}
    elif args.redfish:
        # Polled steps (BIOS, RAID) are checked every second, so the lab
        # is quick; the default is every 10 s.
        sections = {'conductor': {'step_poll_interval': 1},
                    'redfish': {'power_state_poll_interval': 0.2}}
    else:
        sections = {'fake': {'step_delay': args.step_delay,
                             'agent_delay': 2 * args.step_delay}}
    config_file = write_config(args.state_dir, port, sections)
    service = None
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    try:
        if args.redfish:
            emulator = Emulator(args.state_dir, args.nodes)
            emulator.start()
        service = start_service(config_file, endpoint)
        if args.redfish:
            redfish_lab(endpoint, names, emulator)
        elif args.agent:
            lab = demo_agent.AgentLab(
                endpoint, os.path.join(args.state_dir, 'agents'))
            lab.setUp()
            agent_lab(endpoint, names, lab)
        else:
            fake_lab(endpoint, names)
    finally:
        print()
        if lab is not None:
            lab.stop()
        if args.stop:
            stop(service, 'Service')
        if emulator is not None:
            stop(emulator.process, 'Emulator')
    if not args.stop:
        print('The service keeps running (PID %d) so you can look around:'
              '\n  export OS_AUTH_TYPE=none OS_ENDPOINT=%s'
              '\n  .venv/bin/openstack baremetal node show %s'
              '\nStop it with: kill %d' % (service.pid, endpoint, names[0],
                                           service.pid))


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        print('Interrupted.', file=sys.stderr)
        sys.exit(130)
