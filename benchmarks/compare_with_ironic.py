#!/usr/bin/env python3
"""ironic-steps and OpenStack Ironic 39, side by side, on one workload.

For each node count N (``--nodes``) and each repetition, every system in
``--systems`` is started fresh, driven by the same standard-library
workload (``deploy_workload.py`` from the shared bench directory, with
identical arguments), measured and stopped, one system after the other, so
the figures being compared come from one invocation on one machine:

* ``ironic-steps``: this project's all-in-one service
  (``.venv/bin/ironic-steps --config-file FILE``), on a fresh SQLite file
  in a temporary state directory, listening on 127.0.0.1 and a free port,
  with ``[fake] agent_delay = 0``, ``step_delay = 0`` and, only if
  ``--workers-pool-size`` is given, that ``[conductor]
  workers_pool_size`` (else the shipped default);
* ``ironic``: the real Ironic 39 anchor, through
  ``start_ironic_anchor.sh`` with ``IRONIC_FRESH_DB=1`` (default profile);
* ``ironic-tuned``: the same with ``ironic-anchor-tuned.conf`` layered on
  top and the SQLite file in WAL mode.

Server CPU is utime+stime, from ``/proc/<pid>/stat``, of the started
process and all its descendants (plus the CPU of descendants it reaped)
between the start and the end of the workload.

Each run is one JSON line: the workload's own line plus ``system``,
``rep``, ``server_cpu_s``, ``server_cpu_pct_avg`` (100 % = one core),
``client_cpu_s``, ``run_wall_s`` and a ``machine`` record.  The lines are
appended to ``benchmarks/results/<date>-compare.jsonl`` (``--out``);
afterwards a table and the ratios ours / Ironic are printed.

Example (standard library only; run it with any Python 3.8+)::

    python3 benchmarks/compare_with_ironic.py --nodes 100,500 \\
        --systems ironic-steps,ironic,ironic-tuned --concurrency 8 --gets 1000

``--py-spy PATH`` additionally records every server with py-spy during
its workload (raw collapsed stacks in ``--py-spy-dir``); that slows the
server down, so do not mix such runs with measured ones.
"""

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_BENCH_DIR = '/work/shared/bench'
IRONIC_PORT = 6385          # fixed by the anchor's configuration
LOOPBACK = '127.0.0.1'
TICK = os.sysconf('SC_CLK_TCK')

SYSTEMS = ('ironic-steps', 'ironic', 'ironic-tuned')
OURS = 'ironic-steps'
#: Fields compared as ours / Ironic.
RATIO_FIELDS = ('nodes_per_s', 'deploy_s', 'get_p50_ms', 'get_p99_ms')


def log(msg):
    print('[compare %s] %s' % (time.strftime('%H:%M:%S'), msg),
          file=sys.stderr, flush=True)


# --- processes and CPU time ---------------------------------------------

def _stat_fields(pid):
    """Fields 3.. of /proc/<pid>/stat (index 0 is the state), or None."""
    try:
        with open('/proc/%d/stat' % pid) as fh:
            data = fh.read()
    except OSError:
        return None
    return data[data.rindex(')') + 2:].split()


def descendants(pid):
    """PIDs of every live descendant of ``pid`` (from /proc, no ps)."""
    parent_of = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields:
                parent_of[int(entry)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parent_of.items() if pp == parent]
        found.extend(kids)
        frontier.extend(kids)
    return found


def cpu_snapshot(root_pid):
    """{pid: (own cpu s, reaped children's cpu s)} for a process tree."""
    snap = {}
    for pid in [root_pid] + descendants(root_pid):
        fields = _stat_fields(pid)
        if fields:
            # utime, stime, cutime, cstime are fields 14-17 of stat
            own = (int(fields[11]) + int(fields[12])) / TICK
            reaped = (int(fields[13]) + int(fields[14])) / TICK
            snap[pid] = (own, reaped)
    return snap


def cpu_delta(before, after):
    """CPU seconds the tree used between two snapshots.

    A process that appeared in between counts from zero; one that
    vanished is covered by its parent's reaped-children time.
    """
    total = 0.0
    for pid, (own, reaped) in after.items():
        own0, reaped0 = before.get(pid, (0.0, 0.0))
        total += (own - own0) + (reaped - reaped0)
    return total


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def port_in_use(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((LOOPBACK, port)) == 0


def wait_for_api(url, proc_alive, timeout):
    """Poll ``url`` until it answers 200; False on timeout or death."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc_alive():
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    return False


def pid_alive(pid):
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != 'Z'


# --- the systems ----------------------------------------------------------

class OurService:
    """ironic-steps on a fresh SQLite file in a temporary directory."""

    name = OURS

    def __init__(self, args):
        self.args = args
        self.proc = None
        self.state_dir = None
        self.port = None
        self.log_path = None

    @property
    def pid(self):
        return self.proc.pid

    @property
    def endpoint(self):
        return 'http://%s:%d' % (LOOPBACK, self.port)

    def _config(self):
        return textwrap.dedent("""\
            [DEFAULT]
            host = bench-conductor
            state_path = {state}
            log_file = {state}/ironic-steps.log
            use_stderr = false
            debug = false

            [api]
            host_ip = {host}
            port = {port}

            [fake]
            agent_delay = 0
            step_delay = 0
            """).format(state=self.state_dir, host=LOOPBACK, port=self.port
                        ) + ('' if self.args.workers_pool_size is None else
                             '\n[conductor]\nworkers_pool_size = %d\n'
                             % self.args.workers_pool_size)

    def start(self):
        self.state_dir = tempfile.mkdtemp(prefix='compare-ironic-steps-')
        self.port = free_port()
        conf = os.path.join(self.state_dir, 'ironic-steps.conf')
        with open(conf, 'w') as fh:
            fh.write(self._config())
        self.log_path = os.path.join(self.state_dir, 'ironic-steps.log')
        out = open(os.path.join(self.state_dir, 'stdout'), 'wb')
        cmd = [self.args.ironic_steps, '--config-file', conf]
        if self.args.ironic_steps_extra_conf:
            cmd += ['--config-file',
                    os.path.abspath(self.args.ironic_steps_extra_conf)]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            cwd=self.state_dir)
        out.close()
        if not wait_for_api(self.endpoint + '/v1',
                            lambda: self.proc.poll() is None,
                            self.args.start_timeout):
            self.stop()
            raise RuntimeError('ironic-steps did not start; see %s'
                               % self.state_dir)
        return self.proc.pid

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                log('ironic-steps PID %d ignored SIGTERM for 60 s: SIGKILL'
                    % self.proc.pid)
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def cleanup(self, keep):
        if self.state_dir and not keep:
            shutil.rmtree(self.state_dir, ignore_errors=True)


class IronicAnchor:
    """OpenStack Ironic 39 through the shared start/stop scripts."""

    def __init__(self, args, tuned):
        self.args = args
        self.tuned = tuned
        self.name = 'ironic-tuned' if tuned else 'ironic'
        self.pid_value = None
        self.endpoint = 'http://%s:%d' % (LOOPBACK, IRONIC_PORT)
        self.state_dir = args.ironic_state_dir
        self.log_path = None

    @property
    def pid(self):
        return self.pid_value

    def _env(self):
        env = dict(os.environ, IRONIC_STATE_DIR=self.state_dir,
                   IRONIC_VENV=self.args.ironic_venv)
        env.pop('IRONIC_EXTRA_CONF', None)
        env.pop('IRONIC_SQLITE_WAL', None)
        return env

    def start(self):
        if port_in_use(IRONIC_PORT):
            raise RuntimeError('127.0.0.1:%d is already in use; stop that '
                               'server first' % IRONIC_PORT)
        env = dict(self._env(), IRONIC_FRESH_DB='1')
        if self.tuned:
            env['IRONIC_EXTRA_CONF'] = os.path.join(
                self.args.bench_dir, 'ironic-anchor-tuned.conf')
            env['IRONIC_SQLITE_WAL'] = '1'
        out = subprocess.run(
            [os.path.join(self.args.bench_dir, 'start_ironic_anchor.sh')],
            env=env, capture_output=True, text=True)
        lines = out.stdout.strip().splitlines()
        if lines and lines[-1].isdigit():
            self.pid_value = int(lines[-1])
        if out.returncode != 0 or self.pid_value is None:
            self.stop()
            raise RuntimeError('start_ironic_anchor.sh failed (%d): %s'
                               % (out.returncode, out.stderr.strip()))
        return self.pid_value

    def stop(self):
        pid_file = os.path.join(self.state_dir, 'ironic.pid')
        if self.pid_value is None and not os.path.exists(pid_file):
            return
        # stop_ironic_anchor.sh signals only the PID its start script wrote
        subprocess.run([os.path.join(self.args.bench_dir,
                                     'stop_ironic_anchor.sh')],
                       env=self._env(), capture_output=True, text=True)
        self.pid_value = None

    def cleanup(self, keep):
        pass


def make_system(name, args):
    if name == OURS:
        return OurService(args)
    return IronicAnchor(args, tuned=(name == 'ironic-tuned'))


# --- one run -----------------------------------------------------------------

def workload_command(args, endpoint, nodes):
    if args.port_heavy:
        # The same workload, each node enrolled with ports and the GETs
        # spread over nodes and ports (see port_workload.py).
        cmd = [args.python, os.path.join(os.path.dirname(
            os.path.abspath(__file__)), 'port_workload.py'),
            '--bench-dir', args.bench_dir,
            '--ports-per-node', str(args.port_heavy)]
    else:
        cmd = [args.python, os.path.join(args.bench_dir, 'deploy_workload.py')]
    cmd += ['--endpoint', endpoint, '--nodes', str(nodes),
            '--concurrency', str(args.concurrency), '--gets', str(args.gets),
            '--quiet']
    if args.get_concurrency:
        cmd += ['--get-concurrency', str(args.get_concurrency)]
    return cmd + args.workload_args.split()


def start_py_spy(args, system, nodes, rep, pid):
    if not args.py_spy:
        return None, None
    os.makedirs(args.py_spy_dir, exist_ok=True)
    path = os.path.join(args.py_spy_dir, '%s-N%d-rep%d.txt'
                        % (system.name, nodes, rep))
    # Ironic's API and conductor run in the worker child of the master.
    target = pid
    if isinstance(system, IronicAnchor):
        kids = descendants(pid)
        target = kids[0] if kids else pid
    proc = subprocess.Popen(
        [args.py_spy, 'record', '--pid', str(target), '--format', 'raw',
         '--rate', str(args.py_spy_rate), '--output', path, '--nonblocking']
        + (['--gil'] if args.py_spy_gil else []),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, path


def stop_py_spy(proc):
    if proc is None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_one(args, system, nodes, rep, machine):
    log('%s N=%d rep %d: starting' % (system.name, nodes, rep))
    result = None
    # the code the server loads: what the checkout holds when it starts
    code = git_state() if system.name == OURS else None
    try:
        pid = system.start()
        time.sleep(args.settle)
        cpu0 = cpu_snapshot(pid)
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        spy, spy_path = start_py_spy(args, system, nodes, rep, pid)
        t0 = time.monotonic()
        wl = subprocess.run(workload_command(args, system.endpoint, nodes),
                            capture_output=True, text=True)
        wall = time.monotonic() - t0
        cpu1 = cpu_snapshot(pid)
        stop_py_spy(spy)
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = [ln for ln in wl.stdout.splitlines() if ln.startswith('{')]
        result = (json.loads(lines[-1]) if lines
                  else {'error': wl.stderr[-2000:]})
        server_cpu = cpu_delta(cpu0, cpu1)
        client_cpu = ((ru1.ru_utime + ru1.ru_stime)
                      - (ru0.ru_utime + ru0.ru_stime))
        result.update({
            'system': system.name,
            'rep': rep,
            'workload_rc': wl.returncode,
            'server_pid': pid,
            'server_cpu_s': round(server_cpu, 2),
            'server_cpu_pct_avg': round(100 * server_cpu / wall, 1),
            'client_cpu_s': round(client_cpu, 2),
            'run_wall_s': round(wall, 2),
            'date': datetime.datetime.now().isoformat(timespec='seconds'),
            'machine': machine,
        })
        if system.name == OURS:
            result['workers_pool_size'] = args.workers_pool_size
            result['git'] = code
            result['extra_conf'] = args.ironic_steps_extra_conf
        if spy_path:
            result['py_spy_raw'] = spy_path
    except Exception as exc:   # noqa: BLE001 -- recorded, the rest goes on
        log('%s N=%d rep %d failed: %s' % (system.name, nodes, rep, exc))
        result = {'system': system.name, 'nodes': nodes, 'rep': rep,
                  'error': str(exc), 'machine': machine}
    finally:
        system.stop()
        system.cleanup(keep=args.keep_state)
    log('%s N=%d rep %d: deploy %s s, %s nodes/s, GET p50 %s ms'
        % (system.name, nodes, rep, result.get('deploy_s'),
           result.get('nodes_per_s'), result.get('get_p50_ms')))
    return result


# --- report --------------------------------------------------------------------

def git_state():
    """The commit of this checkout and whether ironic_steps/ differs."""
    def git(*cmd):
        try:
            return subprocess.run(('git', '-C', REPO) + cmd,
                                  capture_output=True, text=True,
                                  timeout=30).stdout.strip()
        except OSError:
            return None
    return {'commit': git('rev-parse', '--short', 'HEAD'),
            'ironic_steps_dirty': bool(git('status', '--porcelain',
                                           '--', 'ironic_steps'))}


def machine_info(args):
    return {
        'nproc': os.cpu_count(),
        'platform': platform.platform(),
        'python_driver': platform.python_version(),
        'python_ironic_steps': _python_version(args.ironic_steps_python),
        'python_ironic': _python_version(os.path.join(args.ironic_venv,
                                                      'bin', 'python3')),
    }


def _python_version(python):
    try:
        out = subprocess.run([python, '-c', 'import platform; '
                              'print(platform.python_version())'],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or None
    except OSError:
        return None


def _fmt(value, digits=2):
    if value is None:
        return '-'
    if isinstance(value, float):
        return '%.*f' % (digits, value)
    return str(value)


COLUMNS = (
    ('N', 'nodes', 0), ('system', 'system', 0), ('rep', 'rep', 0),
    ('enroll s', 'enroll_s', 1), ('provide s', 'provide_s', 1),
    ('deploy s', 'deploy_s', 2), ('nodes/s', 'nodes_per_s', 1),
    ('GET p50 ms', 'get_p50_ms', 2), ('GET p99 ms', 'get_p99_ms', 2),
    ('GETs/s', 'gets_per_s', 0), ('server CPU s', 'server_cpu_s', 1),
    ('CPU %', 'server_cpu_pct_avg', 0), ('failures', 'failures', 0),
)


def print_table(results, out=sys.stdout):
    header = '| ' + ' | '.join(c[0] for c in COLUMNS) + ' |'
    print(header, file=out)
    print('|' + '---|' * len(COLUMNS), file=out)
    for res in results:
        cells = []
        for _, key, digits in COLUMNS:
            value = res.get(key)
            if isinstance(value, float):
                value = round(value, digits) if digits else round(value)
            cells.append(_fmt(value, digits))
        if res.get('error'):
            cells[-1] = 'ERROR: %s' % res['error'][:60]
        print('| ' + ' | '.join(cells) + ' |', file=out)


def _median(results, key):
    vals = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def ratios(results):
    """[(N, other system, {field: ours/other})], on medians over reps."""
    rows = []
    for n in sorted({r.get('nodes') for r in results if r.get('nodes')}):
        ours = [r for r in results if r.get('nodes') == n
                and r.get('system') == OURS and not r.get('error')]
        if not ours:
            continue
        for other in SYSTEMS[1:]:
            theirs = [r for r in results if r.get('nodes') == n
                      and r.get('system') == other and not r.get('error')]
            if not theirs:
                continue
            row = {}
            for key in RATIO_FIELDS:
                a, b = _median(ours, key), _median(theirs, key)
                row[key] = (a / b) if a is not None and b else None
            rows.append((n, other, row))
    return rows


def print_ratios(results, out=sys.stdout):
    rows = ratios(results)
    if not rows:
        return
    print('\nRatios ours / Ironic (medians over repetitions; targets: '
          'nodes_per_s >= 10, get_p50_ms <= 0.1):', file=out)
    print('| N | vs | ' + ' | '.join(RATIO_FIELDS) + ' |', file=out)
    print('|' + '---|' * (2 + len(RATIO_FIELDS)), file=out)
    for n, other, row in rows:
        cells = [_fmt(row[k], 3) for k in RATIO_FIELDS]
        print('| %d | %s | %s |' % (n, other, ' | '.join(cells)), file=out)


# --- command line ---------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nodes', default='100,500',
                    help='comma-separated node counts (default 100,500)')
    ap.add_argument('--systems', default='ironic-steps,ironic',
                    help='comma-separated, run in this order for each N: '
                         '%s (default ironic-steps,ironic)'
                         % ', '.join(SYSTEMS))
    ap.add_argument('--reps', type=int, default=1,
                    help='repetitions of each (N, system), interleaved')
    ap.add_argument('--concurrency', type=int, default=8)
    ap.add_argument('--gets', type=int, default=1000)
    ap.add_argument('--get-concurrency', type=int, default=0)
    ap.add_argument('--port-heavy', type=int, nargs='?', const=2, default=0,
                    metavar='PORTS',
                    help='enroll each node with PORTS ports (default 2) and '
                         'spread the GETs over a node, /v1/ports?detail=True '
                         'and the node\'s ports (benchmarks/port_workload.py)')
    ap.add_argument('--workload-args', default='',
                    help='more arguments for deploy_workload.py, '
                         'identical for every system')
    ap.add_argument('--workers-pool-size', type=int, default=None,
                    help='[conductor] workers_pool_size of ironic-steps '
                         '(default: as shipped)')
    ap.add_argument('--settle', type=float, default=3.0,
                    help='idle seconds between start and workload')
    ap.add_argument('--start-timeout', type=float, default=90.0)
    ap.add_argument('--bench-dir', default=DEFAULT_BENCH_DIR,
                    help='holds deploy_workload.py and the anchor scripts')
    ap.add_argument('--ironic-venv',
                    default=os.path.expanduser('~/ironic-anchor/venv'))
    ap.add_argument('--ironic-state-dir',
                    default=os.path.expanduser('~/ironic-anchor/state'))
    ap.add_argument('--ironic-steps',
                    default=os.path.join(REPO, '.venv', 'bin', 'ironic-steps'),
                    help='the ironic-steps command')
    ap.add_argument('--ironic-steps-extra-conf', default=None, metavar='FILE',
                    help='config file layered on the generated one (what-if '
                         'runs; its name is recorded in the results)')
    ap.add_argument('--python', default=sys.executable,
                    help='interpreter for deploy_workload.py')
    ap.add_argument('--out', default=None,
                    help='JSON lines file to append to (default '
                         'benchmarks/results/<date>-compare.jsonl)')
    ap.add_argument('--keep-state', action='store_true',
                    help="keep ironic-steps' temporary state directories")
    ap.add_argument('--py-spy', default=None, metavar='PATH',
                    help='py-spy binary: record each server during its '
                         'workload (slows it; not for measured runs)')
    ap.add_argument('--py-spy-dir', default=os.path.join(tempfile.gettempdir(),
                                                         'compare-py-spy'))
    ap.add_argument('--py-spy-rate', type=int, default=100)
    ap.add_argument('--py-spy-gil', action='store_true',
                    help='sample only the thread holding the GIL: where the '
                         "server's CPU goes, not where its threads wait")
    args = ap.parse_args(argv)

    try:
        args.node_counts = [int(x) for x in args.nodes.split(',') if x]
    except ValueError:
        ap.error('--nodes must be comma-separated integers')
    args.system_names = [s.strip() for s in args.systems.split(',')
                         if s.strip()]
    unknown = set(args.system_names) - set(SYSTEMS)
    if unknown:
        ap.error('unknown systems %s; choose from %s'
                 % (', '.join(sorted(unknown)), ', '.join(SYSTEMS)))
    if not args.node_counts or args.reps < 1:
        ap.error('need at least one N and one repetition')
    if args.out is None:
        args.out = os.path.join(HERE, 'results', '%s-compare.jsonl'
                                % datetime.date.today().isoformat())
    args.ironic_steps_python = os.path.join(
        os.path.dirname(args.ironic_steps), 'python')
    return args


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    machine = machine_info(args)
    log('machine: %s; results to %s' % (json.dumps(machine), args.out))
    results = []
    for n in args.node_counts:
        for rep in range(1, args.reps + 1):
            for name in args.system_names:
                res = run_one(args, make_system(name, args), n, rep, machine)
                results.append(res)
                with open(args.out, 'a') as fh:
                    fh.write(json.dumps(res) + '\n')
    print('\nSide by side (concurrency %d, %d GETs; %s):'
          % (args.concurrency, args.gets, ' '.join(sys.argv[1:]) or
             'defaults'))
    print_table(results)
    print_ratios(results)
    print('\nraw JSON lines appended to %s' % args.out)
    return 0 if all(not r.get('error') and r.get('workload_rc') == 0
                    for r in results) else 1


if __name__ == '__main__':
    sys.exit(main())
