#!/usr/bin/env python3
"""The all-in-one service phase by phase, configuration variants side by side.

For each repetition (``--reps``) and each variant (``--variant``), in that
order (repetition 1 of every variant, then repetition 2 of every
variant...), a fresh ironic-steps all-in-one service
(``.venv/bin/ironic-steps --config-file FILE``) is started exactly as
``compare_with_ironic.py`` starts it (its ``OurService``: a fresh SQLite
file in a temporary state directory, 127.0.0.1 and a free port, ``[fake]
agent_delay = 0``, ``step_delay = 0``, ``[conductor] workers_pool_size`` =
``--workers-pool-size`` if given), with the variant's overrides in a second
``--config-file``.  The run then drives it with the shared standard-library
workload (``Client`` and ``Run`` of ``deploy_workload.py``):

* setup, not measured further: enrol N nodes (``--nodes``; their
  ``resource_class`` is a prefix of the run's own), manage them and
  provide them, waiting until every node is ``available``;
* deploy phase: a deploy request (target ``active``) for every node, C in
  flight (``--concurrency``), then polling until all are ``active``:
  seconds, nodes/s, server CPU seconds and CPU ms per node;
* GET phase: M x ``GET /v1/nodes/{uuid}`` (``--gets``), C in flight:
  GETs/s, p50 and p99 latency, server CPU ms per GET, voluntary and
  involuntary context switches per GET and the server's user and system
  CPU seconds during the phase;
* the service is stopped (SIGTERM) and its state directory removed,
  unless the run failed (or ``--keep-state``).

Server CPU ("CPU ms/node", "CPU ms/GET") is utime+stime of the service
process and all its descendants, from ``/proc/<pid>/stat``
(``compare_with_ironic.cpu_snapshot``).  User and system seconds are
fields 14 and 15 of ``/proc/<pid>/stat`` of the service process alone
(all its threads).  Context switches are ``voluntary_ctxt_switches`` and
``nonvoluntary_ctxt_switches`` summed over ``/proc/<pid>/task/*/status``,
the threads alive at the start and at the end of the phase: a thread that
ends during the phase takes its switches with it.

A variant is ``NAME=SECTION.OPTION=VALUE[,SECTION.OPTION=VALUE...]``
(values cannot contain commas); ``NAME`` alone is a variant without
overrides.  Without ``--variant`` there is one, ``default``.

Output: a table, one row per run, and with two variants or more the ratios
of each variant to the first (medians over repetitions) of nodes/s, GET
p50, GETs/s and CPU ms/GET.  With ``--out FILE`` one JSON line per run is
appended to FILE: variant, overrides, rep, every figure of the table and
more, the machine (nproc, Python versions, load average at the start of the
run) and the commit of this checkout (``git rev-parse --short HEAD``) with
whether ``ironic_steps/`` had uncommitted changes.  Exit status 1 when a
service did not start or a node or GET failed (the table shows which run).

Example::

    .venv/bin/python benchmarks/service_phases.py --nodes 500 --gets 2000 \\
        --reps 3 --variant one-thread=api.api_workers=1 \\
        --variant four-threads=api.api_workers=4
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BENCH_DIR = '/work/shared/bench'
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, HERE)

import compare_with_ironic as cwi  # noqa: E402
import deploy_workload as dw  # noqa: E402

#: Fields compared as variant / first variant.
RATIO_FIELDS = ('nodes_per_s', 'get_p50_ms', 'gets_per_s',
                'get_cpu_ms_per_get')


def log(msg):
    print('[phases %s] %s' % (time.strftime('%H:%M:%S'), msg),
          file=sys.stderr, flush=True)


class RunFailed(Exception):
    """A run that cannot give figures: the message says why."""


# --- per-process counters --------------------------------------------------

def user_system_s(pid):
    """(user, system) CPU seconds of ``pid``, all threads: stat fields 14-15."""
    fields = cwi._stat_fields(pid)
    if not fields:
        return None, None
    return int(fields[11]) / cwi.TICK, int(fields[12]) / cwi.TICK


def context_switches(pid):
    """(voluntary, involuntary) switches summed over the live threads."""
    vol = invol = 0
    task_dir = '/proc/%d/task' % pid
    try:
        tids = os.listdir(task_dir)
    except OSError:
        return 0, 0
    for tid in tids:
        try:
            with open(os.path.join(task_dir, tid, 'status')) as fh:
                for line in fh:
                    if line.startswith('voluntary_ctxt_switches'):
                        vol += int(line.split()[1])
                    elif line.startswith('nonvoluntary_ctxt_switches'):
                        invol += int(line.split()[1])
        except OSError:
            pass    # the thread ended meanwhile
    return vol, invol


def loadavg_1m():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


# --- variants ----------------------------------------------------------------

def parse_variant(text):
    """``NAME=SEC.OPT=VAL,...`` -> (name, [(section, option, value)])."""
    name, _, spec = text.partition('=')
    name = name.strip()
    if not name:
        raise ValueError('%r: the variant needs a name' % text)
    overrides = []
    for item in filter(None, (s.strip() for s in spec.split(','))):
        key, eq, value = item.partition('=')
        section, dot, option = key.strip().partition('.')
        if not (eq and dot and section and option):
            raise ValueError('%r: %r is not SECTION.OPTION=VALUE'
                             % (text, item))
        overrides.append((section, option.strip(), value.strip()))
    return name, overrides


def write_overrides(overrides, directory):
    """The overrides as an INI file in ``directory``; its path, or None."""
    if not overrides:
        return None
    sections = {}
    for section, option, value in overrides:
        sections.setdefault(section, []).append((option, value))
    path = os.path.join(directory, 'overrides.conf')
    with open(path, 'w') as fh:
        for section, items in sections.items():
            fh.write('[%s]\n' % section)
            for option, value in items:
                fh.write('%s = %s\n' % (option, value))
            fh.write('\n')
    return path


# --- one run -----------------------------------------------------------------

def _tail(path, lines=15):
    try:
        with open(path, errors='replace') as fh:
            return ''.join(fh.readlines()[-lines:]).rstrip()
    except OSError:
        return ''


def _check(run, what):
    if run.failures:
        raise RunFailed('%s: %d node(s) failed (%s); first: %s'
                        % (what, len(run.failures),
                           json.dumps(run.failures_by_phase()),
                           run.errors[0] if run.errors else '?'))


def drive(args, service, result):
    """Set up, deploy and GET against a started service; fills ``result``."""
    pid = service.pid
    prefix = 'phases-%s' % uuid.uuid4().hex[:8]
    wargs = dw.build_parser().parse_args([
        '--endpoint', service.endpoint, '--nodes', str(args.nodes),
        '--concurrency', str(args.concurrency), '--gets', str(args.gets),
        '--name-prefix', prefix, '--resource-class', prefix, '--quiet'])
    wargs.node_extra = {}
    client = dw.Client(service.endpoint,
                       {'Accept': 'application/json',
                        'X-OpenStack-Ironic-API-Version': 'latest',
                        'User-Agent': 'service_phases/1'},
                       wargs.request_timeout, wargs.retries)
    dw.check_loopback(client.host)
    run = dw.Run(wargs, client)

    # setup: enrol, manage, provide
    t0 = time.monotonic()
    nodes, enroll_s, _ = run.enroll()
    result['enroll_s'] = round(enroll_s, 3)
    _check(run, 'enrol')
    uuids = [n['uuid'] for n in nodes]
    for phase, target, want, origin in (
            ('manage', 'manage', 'manageable', 'enroll'),
            ('provide', 'provide', 'available', 'manageable')):
        accepted, t_phase, _, _ = run.provision(phase, uuids, target)
        run.wait_for(phase, accepted, want, origin, t_phase)
        _check(run, phase)
    result['setup_s'] = round(time.monotonic() - t0, 3)

    # deploy phase
    cpu0 = cwi.cpu_snapshot(pid)
    accepted, t_dep, _, _ = run.provision('deploy', uuids, 'active')
    done_at, _, active = run.wait_for('deploy', accepted, 'active',
                                      'available', t_dep)
    cpu1 = cwi.cpu_snapshot(pid)
    _check(run, 'deploy')
    deploy_s = done_at - t_dep
    deploy_cpu = cwi.cpu_delta(cpu0, cpu1)
    result.update({
        'active': len(active),
        'deploy_s': round(deploy_s, 3),
        'nodes_per_s': round(len(active) / deploy_s, 2),
        'deploy_cpu_s': round(deploy_cpu, 2),
        'deploy_cpu_ms_per_node': round(1000 * deploy_cpu / len(active), 2),
    })

    # GET phase
    cpu0, ctx0, us0 = (cwi.cpu_snapshot(pid), context_switches(pid),
                       user_system_s(pid))
    gets = run.gets(uuids)
    cpu1, ctx1, us1 = (cwi.cpu_snapshot(pid), context_switches(pid),
                       user_system_s(pid))
    result.update(gets)
    if gets.get('get_errors'):
        raise RunFailed('GET phase: %d of %d GETs failed; first: %s'
                        % (gets['get_errors'], args.gets,
                           run.errors[0] if run.errors else '?'))
    m = gets.get('gets') or 0
    if m:
        get_cpu = cwi.cpu_delta(cpu0, cpu1)
        result.update({
            'get_cpu_s': round(get_cpu, 3),
            'get_cpu_ms_per_get': round(1000 * get_cpu / m, 3),
            'get_vol_cs_per_get': round((ctx1[0] - ctx0[0]) / m, 2),
            'get_invol_cs_per_get': round((ctx1[1] - ctx0[1]) / m, 2),
            'get_user_s': round(us1[0] - us0[0], 2),
            'get_sys_s': round(us1[1] - us0[1], 2),
        })
    result['http_retries'] = client.retry_count
    result['conn_errors'] = client.conn_errors


def run_one(args, variant, overrides, rep, machine):
    """One fresh service for one variant and repetition; its JSON record."""
    log('%s rep %d: starting (%s)' % (variant, rep, ', '.join(
        '%s.%s=%s' % o for o in overrides) or 'no overrides'))
    result = {
        'variant': variant,
        'overrides': {'%s.%s' % (s, o): v for s, o, v in overrides},
        'rep': rep, 'nodes': args.nodes, 'gets': args.gets,
        'concurrency': args.concurrency,
        'workers_pool_size': args.workers_pool_size,
        'date': datetime.datetime.now().isoformat(timespec='seconds'),
        'loadavg_1m_at_start': loadavg_1m(),
        'git': cwi.git_state(),    # the code the service loads
        'machine': machine,
    }
    conf_dir = tempfile.mkdtemp(prefix='service-phases-')
    svc_args = argparse.Namespace(**vars(args))
    svc_args.ironic_steps_extra_conf = write_overrides(overrides, conf_dir)
    service = cwi.OurService(svc_args)
    try:
        try:
            service.start()
        except RuntimeError as exc:
            raise RunFailed('%s\n%s' % (exc, _tail(os.path.join(
                service.state_dir, 'stdout')) or _tail(service.log_path)))
        result['server_pid'] = service.pid
        drive(args, service, result)
    except (RunFailed, dw.ApiError) as exc:
        result['error'] = str(exc)
        result['state_dir'] = service.state_dir
        log('%s rep %d FAILED (state kept in %s): %s'
            % (variant, rep, service.state_dir, exc))
    finally:
        service.stop()
        # a failed run keeps its state directory (log, database)
        service.cleanup(keep=args.keep_state or 'error' in result)
        shutil.rmtree(conf_dir, ignore_errors=True)
    if not result.get('error'):
        log('%s rep %d: %.1f nodes/s, %.0f GETs/s, GET p50 %.2f ms'
            % (variant, rep, result['nodes_per_s'], result['gets_per_s'],
               result['get_p50_ms']))
    return result


# --- report --------------------------------------------------------------------

COLUMNS = (
    ('variant', 'variant', 0), ('rep', 'rep', 0),
    ('deploy s', 'deploy_s', 2), ('nodes/s', 'nodes_per_s', 1),
    ('CPU ms/node', 'deploy_cpu_ms_per_node', 1),
    ('GETs/s', 'gets_per_s', 0), ('GET p50 ms', 'get_p50_ms', 2),
    ('GET p99 ms', 'get_p99_ms', 2), ('CPU ms/GET', 'get_cpu_ms_per_get', 3),
    ('vol cs/GET', 'get_vol_cs_per_get', 2),
    ('invol cs/GET', 'get_invol_cs_per_get', 2),
    ('user s', 'get_user_s', 2), ('sys s', 'get_sys_s', 2),
)


def _fmt(value, digits):
    if value is None:
        return '-'
    if isinstance(value, float):
        return '%.*f' % (digits, value)
    return str(value)


def print_table(results, out=sys.stdout):
    print('| ' + ' | '.join(c[0] for c in COLUMNS) + ' |', file=out)
    print('|' + '---|' * len(COLUMNS), file=out)
    for res in results:
        cells = [_fmt(res.get(key), digits) for _, key, digits in COLUMNS]
        if res.get('error'):
            cells[2:] = ['ERROR: %s' % res['error'].splitlines()[0][:100]]
            cells += [''] * (len(COLUMNS) - len(cells))
        print('| ' + ' | '.join(cells) + ' |', file=out)


def _median(results, key):
    vals = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def print_ratios(results, variants, out=sys.stdout):
    """Each variant / the first, on medians over the successful reps."""
    if len(variants) < 2:
        return
    by_name = {name: [r for r in results
                      if r['variant'] == name and not r.get('error')]
               for name, _ in variants}
    base_name = variants[0][0]
    base = {k: _median(by_name[base_name], k) for k in RATIO_FIELDS}
    print('\nRatios to %s (medians over repetitions):' % base_name, file=out)
    print('| variant | ' + ' | '.join(RATIO_FIELDS) + ' |', file=out)
    print('|' + '---|' * (1 + len(RATIO_FIELDS)), file=out)
    for name, _ in variants[1:]:
        cells = []
        for key in RATIO_FIELDS:
            a = _median(by_name[name], key)
            cells.append(_fmt(a / base[key], 3) if a is not None
                         and base[key] else '-')
        print('| %s | %s |' % (name, ' | '.join(cells)), file=out)


# --- command line ---------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nodes', type=int, default=500,
                    help='nodes enrolled and deployed per run (default 500)')
    ap.add_argument('--gets', type=int, default=2000,
                    help='GET /v1/nodes/{uuid} in the GET phase '
                         '(default 2000)')
    ap.add_argument('--concurrency', type=int, default=8,
                    help='requests in flight in every phase (default 8)')
    ap.add_argument('--reps', type=int, default=1,
                    help='repetitions of every variant, interleaved')
    ap.add_argument('--variant', action='append', default=[],
                    metavar='NAME=SECTION.OPTION=VALUE[,...]',
                    help='a configuration variant (repeatable); default: '
                         'one variant "default" without overrides')
    ap.add_argument('--out', default=None, metavar='PATH',
                    help='JSON lines file to append one line per run to '
                         '(default: none)')
    ap.add_argument('--workers-pool-size', type=int, default=None,
                    help='[conductor] workers_pool_size (default: as '
                         'shipped)')
    ap.add_argument('--ironic-steps',
                    default=os.path.join(REPO, '.venv', 'bin', 'ironic-steps'),
                    help='the ironic-steps command')
    ap.add_argument('--start-timeout', type=float, default=90.0,
                    help='seconds the service has to answer GET /v1')
    ap.add_argument('--keep-state', action='store_true',
                    help="keep the services' temporary state directories")
    args = ap.parse_args(argv)
    if args.nodes < 1 or args.gets < 1 or args.concurrency < 1 \
            or args.reps < 1:
        ap.error('--nodes, --gets, --concurrency and --reps must be >= 1')
    args.variants = []
    for text in args.variant or ['default']:
        try:
            args.variants.append(parse_variant(text))
        except ValueError as exc:
            ap.error('--variant %s' % exc)
    names = [name for name, _ in args.variants]
    if len(set(names)) != len(names):
        ap.error('variant names must be unique: %s' % ', '.join(names))
    if not os.access(args.ironic_steps, os.X_OK):
        ap.error('%s is not an executable' % args.ironic_steps)
    return args


def machine_info(args):
    return {
        'nproc': os.cpu_count(),
        'platform': platform.platform(),
        'python_driver': platform.python_version(),
        'python_ironic_steps': cwi._python_version(os.path.join(
            os.path.dirname(args.ironic_steps), 'python')),
    }


def main(argv=None):
    args = parse_args(argv)
    machine = machine_info(args)
    log('machine: %s' % json.dumps(machine))
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)),
                    exist_ok=True)
    results = []
    for rep in range(1, args.reps + 1):
        for name, overrides in args.variants:
            res = run_one(args, name, overrides, rep, machine)
            results.append(res)
            if args.out:
                with open(args.out, 'a') as fh:
                    fh.write(json.dumps(res) + '\n')
    print('\nService phases (N %d, %d GETs, concurrency %d; %s):'
          % (args.nodes, args.gets, args.concurrency,
             ' '.join(sys.argv[1:]) or 'defaults'))
    print_table(results)
    print_ratios(results, args.variants)
    if args.out:
        print('\nJSON lines appended to %s' % args.out)
    failed = [r for r in results if r.get('error')]
    for res in failed:
        print('error: %s rep %d: %s'
              % (res['variant'], res['rep'], res['error']), file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print('interrupted', file=sys.stderr)
        sys.exit(130)
