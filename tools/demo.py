"""Watch ironic-steps deploy fake nodes, step by step (see tools/demo)."""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
DONE_STATES = ('active', 'deploy failed')
#: The demo's last node fails on purpose, to show what a failure looks like.
FAILING_STEP = 'boot.prepare_instance_boot'


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--nodes', type=int, default=3,
                        help='how many fake nodes to deploy (default 3)')
    parser.add_argument('--port', type=int, default=6385,
                        help='API port on 127.0.0.1 (default 6385; a free '
                             'port is used if it is taken)')
    parser.add_argument('--state-dir', default=os.path.join(ROOT, 'state',
                                                            'demo'),
                        help='where the demo keeps its config, database '
                             'and log (default state/demo)')
    parser.add_argument('--step-delay', type=float, default=1.0,
                        help='seconds each fake step takes (default 1)')
    parser.add_argument('--stop', action='store_true',
                        help='stop the service at the end instead of '
                             'leaving it running for inspection')
    return parser.parse_args()


def port_is_free(port):
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', port))
        except OSError:
            return False
    return True


def pick_port(wanted):
    if port_is_free(wanted):
        return wanted
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def write_config(args, port):
    os.makedirs(args.state_dir, exist_ok=True)
    database = os.path.join(args.state_dir, 'ironic-steps.sqlite')
    for leftover in (database, database + '-wal', database + '-shm'):
        if os.path.exists(leftover):
            os.remove(leftover)   # each demo starts from an empty database
    path = os.path.join(args.state_dir, 'ironic-steps.conf')
    with open(path, 'w') as conf:
        conf.write('[DEFAULT]\nstate_path = %s\nhost = demo-conductor\n'
                   'log_file = %s\n\n[api]\nhost_ip = 127.0.0.1\nport = %d\n\n'
                   '[fake]\nstep_delay = %s\nagent_delay = %s\n' % (
                       args.state_dir,
                       os.path.join(args.state_dir, 'ironic-steps.log'),
                       port, args.step_delay, 2 * args.step_delay))
    return path


def start_service(config_file, endpoint):
    print('Starting: ironic-steps --config-file %s' % config_file)
    process = subprocess.Popen(
        [os.path.join(BIN, 'ironic-steps'), '--config-file', config_file],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)   # keeps running after the demo exits
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit('ironic-steps exited (%s); see its log in %s' % (
                process.returncode, os.path.dirname(config_file)))
        try:
            urllib.request.urlopen(endpoint + '/v1', timeout=1)
            print('Service up at %s (PID %d)\n' % (endpoint, process.pid))
            return process
        except OSError:
            time.sleep(0.2)
    process.terminate()
    sys.exit('ironic-steps did not answer at %s' % endpoint)


def openstack(endpoint, *args, show=True):
    if show:
        print('$ openstack baremetal ' + ' '.join(args))
    result = subprocess.run(
        [os.path.join(BIN, 'openstack'), '--os-auth-type', 'none',
         '--os-endpoint', endpoint, 'baremetal'] + list(args),
        capture_output=True, text=True)
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


def describe(node):
    step = node.get('deploy_step') or {}
    info = node.get('driver_internal_info') or {}
    plan = info.get('deploy_steps') or []
    if step:
        index = info.get('deploy_step_index')
        where = '%s/%s %s.%s' % ((index or 0) + 1, len(plan) or '?',
                                 step['interface'], step['step'])
    else:
        where = '-'
    return '%-8s %-15s %s' % (node['name'], node['provision_state'], where)


def watch(endpoint, names, timeout=300):
    """Print each node's state and step whenever one changes."""
    print('\nWatching the deploys (node, state, step n/N):')
    seen = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        nodes = [n for n in get_nodes(endpoint) if n['name'] in names]
        for node in nodes:
            line = describe(node)
            if seen.get(node['name']) != line:
                seen[node['name']] = line
                print('  %s  %s' % (time.strftime('%H:%M:%S'), line))
        if all(n['provision_state'] in DONE_STATES for n in nodes):
            return nodes
        time.sleep(0.2)
    sys.exit('The deploys did not finish within %ss' % timeout)


def main():
    args = parse_args()
    port = pick_port(args.port)
    endpoint = 'http://127.0.0.1:%d' % port
    config_file = write_config(args, port)
    process = start_service(config_file, endpoint)
    names = ['demo-%d' % i for i in range(1, args.nodes + 1)]
    try:
        for name in names:
            extra = []
            if name == names[-1] and len(names) > 1:
                extra = ['--driver-info', 'fake_fail_step=%s' % FAILING_STEP]
            openstack(endpoint, 'node', 'create', '--driver',
                      'fake-hardware', '--name', name, *extra,
                      '-f', 'value', '-c', 'uuid')
        openstack(endpoint, 'node', 'manage', *names, '--wait', '60')
        openstack(endpoint, 'node', 'provide', *names, '--wait', '60')
        if len(names) > 1:
            print('\n(%s is told to fail at %s, to show what a failed '
                  'deploy looks like.)' % (names[-1], FAILING_STEP))
        openstack(endpoint, 'node', 'deploy', *names)
        watch(endpoint, names)
        print()
        openstack(endpoint, 'node', 'list')
        if len(names) > 1:
            openstack(endpoint, 'node', 'show', names[-1], '-c',
                      'provision_state', '-c', 'deploy_step', '-c',
                      'last_error')
        openstack(endpoint, 'node', 'show', names[0])
    finally:
        if args.stop:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=60)
            print('\nService stopped.')
    if not args.stop:
        print('\nThe service keeps running (PID %d) so you can look around:'
              '\n  export OS_AUTH_TYPE=none OS_ENDPOINT=%s'
              '\n  .venv/bin/openstack baremetal node show %s'
              '\nStop it with: kill %d' % (process.pid, endpoint, names[0],
                                           process.pid))


if __name__ == '__main__':
    main()
