#!/usr/bin/env python3
"""What being ephemeral costs: ``ironic-steps run`` against a running service.

The same N fake nodes (default 1,000), deployed two ways, repetitions
interleaved:

* ``ephemeral``: ``ironic-steps run INVENTORY --run-dir DIR`` timed as a
  command, from its start to its exit: interpreter and service start, an
  empty SQLite database, enrolment, manage, provide, deploy, then the
  service's stop, the report and the dump, and the removal of the
  database;
* ``long-running``: an all-in-one ``ironic-steps`` started beforehand (not
  timed) on a fresh state directory, driven by the shared
  ``deploy_workload.py`` (``--gets 0``), timed as a command too, from its
  start to its exit: enrolment, manage, provide, deploy.

Both have the same configuration (fake hardware, no delays); the workload
makes 8 API requests at once (its standard), the run as many as its own
default (8 too).  The overhead is the difference of the medians of wall time.
The CPU seconds of the same window are given beside them (ephemeral: the
run and its driver process; long-running: the service and the workload):
a shared host's CPU steal stretches wall times, not CPU times, so when
the two disagree the CPU seconds say what the run itself costs.  Each
line also has the run's report ``timings`` (start, enrolment, drive, stop,
report, dump) and the workload's phases.  JSON lines go to
``results/<date>-ephemeral-run.jsonl``.  Example::

    .venv/bin/python benchmarks/ephemeral_run.py --nodes 1000 --reps 2
"""

import argparse
import datetime
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare_with_ironic as cwi  # noqa: E402

CONFIG = """\
[DEFAULT]
host = bench-conductor
state_path = {state}
debug = false

[fake]
agent_delay = 0
step_delay = 0
"""


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid):
    fields = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def write_inventory(path, nodes):
    with open(path, 'w') as out:
        json.dump({'nodes': [
            {'name': 'eph-%05d' % number, 'driver': 'fake-hardware',
             'instance_info': {'image_source': 'http://127.0.0.1/img'}}
            for number in range(nodes)]}, out)


def ephemeral(args, scratch, rep):
    state = os.path.join(scratch, 'ephemeral-%d' % rep)
    os.makedirs(state)
    conf = os.path.join(state, 'run.conf')
    with open(conf, 'w') as out:
        out.write(CONFIG.format(state=state))
    inventory = os.path.join(state, 'inventory.json')
    write_inventory(inventory, args.nodes)
    run_dir = os.path.join(state, 'run')
    cpu = children_cpu()
    started = time.monotonic()
    result = subprocess.run(
        [args.ironic_steps, '--config-file', conf, 'run', inventory,
         '--run-dir', run_dir] + (
             ['--concurrency', str(args.run_concurrency)]
             if args.run_concurrency else []),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    cpu = children_cpu() - cpu
    if result.returncode != 0:
        raise SystemExit('ironic-steps run exited %d:\n%s\n%s' % (
            result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
    with open(os.path.join(run_dir, 'report.json')) as stream:
        report = json.load(stream)
    dump_size = os.path.getsize(os.path.join(run_dir, 'dump.sql'))
    return {'variant': 'ephemeral', 'wall_s': round(wall, 3),
            'cpu_s': round(cpu, 3),
            'run_wall_s': report['wall_seconds'],
            'active': report['states'].get('active', 0),
            'timings': report.get('timings'),
            'dump_bytes': dump_size,
            'live_database_left': os.path.exists(
                os.path.join(run_dir, 'live.sqlite'))}


def long_running(args, rep):
    service = cwi.OurService(args)
    service.start()
    try:
        time.sleep(args.settle)
        cpu = children_cpu() + process_cpu(service.pid)
        started = time.monotonic()
        result = subprocess.run(
            [args.python, os.path.join(args.bench_dir, 'deploy_workload.py'),
             '--endpoint', service.endpoint, '--nodes', str(args.nodes),
             '--concurrency', str(args.concurrency), '--gets', '0',
             '--quiet'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        wall = time.monotonic() - started
        cpu = children_cpu() + process_cpu(service.pid) - cpu
    finally:
        service.stop()
        if not args.keep_state:
            shutil.rmtree(service.state_dir, ignore_errors=True)
    if result.returncode != 0:
        raise SystemExit('deploy_workload.py exited %d:\n%s' % (
            result.returncode, result.stderr[-3000:]))
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    return {'variant': 'long-running', 'wall_s': round(wall, 3),
            'cpu_s': round(cpu, 3),
            'workload_total_s': measured.get('total_s'),
            'workload_phases': {key: measured.get(key) for key in (
                'enroll_s', 'provide_s', 'deploy_s')},
            'active': measured.get('active')}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--nodes', type=int, default=1000)
    ap.add_argument('--reps', type=int, default=2)
    ap.add_argument('--concurrency', type=int, default=8,
                    help='requests in flight of deploy_workload.py')
    ap.add_argument('--run-concurrency', type=int, default=None,
                    help="ironic-steps run's --concurrency (default: its "
                         "own)")
    ap.add_argument('--settle', type=float, default=3.0,
                    help='idle seconds between the service start and the '
                         'workload (long-running)')
    ap.add_argument('--start-timeout', type=float, default=90.0)
    ap.add_argument('--bench-dir', default=cwi.DEFAULT_BENCH_DIR)
    ap.add_argument('--ironic-steps',
                    default=os.path.join(cwi.REPO, '.venv', 'bin',
                                         'ironic-steps'))
    ap.add_argument('--python', default=sys.executable)
    ap.add_argument('--keep-state', action='store_true')
    ap.add_argument('--out', default=os.path.join(
        HERE, 'results', '%s-ephemeral-run.jsonl'
        % datetime.date.today().isoformat()))
    args = ap.parse_args(argv)
    # What compare_with_ironic.OurService reads.
    args.ironic_steps_extra_conf = None
    args.workers_pool_size = None
    return args


def main(argv=None):
    args = parse_args(argv)
    scratch = tempfile.mkdtemp(prefix='bench-ephemeral-')
    results = {'ephemeral': [], 'long-running': []}
    cpus = {'ephemeral': [], 'long-running': []}
    try:
        for rep in range(1, args.reps + 1):
            for variant in ('long-running', 'ephemeral'):
                line = (long_running(args, rep) if variant == 'long-running'
                        else ephemeral(args, scratch, rep))
                line.update(nodes=args.nodes, rep=rep,
                            concurrency=args.concurrency,
                            date=datetime.datetime.now().isoformat(
                                timespec='seconds'),
                            git=cwi.git_state())
                results[variant].append(line['wall_s'])
                cpus[variant].append(line['cpu_s'])
                print('rep %d %-12s %7.2f s, CPU %6.2f s (%s active)' % (
                    rep, variant, line['wall_s'], line['cpu_s'],
                    line['active']), flush=True)
                with open(args.out, 'a') as out:
                    out.write(json.dumps(line) + '\n')
    finally:
        if not args.keep_state:
            shutil.rmtree(scratch, ignore_errors=True)
    ephemeral_s = statistics.median(results['ephemeral'])
    running_s = statistics.median(results['long-running'])
    print('median: ephemeral %.2f s, long-running %.2f s: overhead %+.2f s '
          '(%.2fx)' % (ephemeral_s, running_s, ephemeral_s - running_s,
                       ephemeral_s / running_s))
    ephemeral_cpu = statistics.median(cpus['ephemeral'])
    running_cpu = statistics.median(cpus['long-running'])
    print('median CPU: ephemeral %.2f s, long-running %.2f s: %+.2f s' % (
        ephemeral_cpu, running_cpu, ephemeral_cpu - running_cpu))


if __name__ == '__main__':
    main()
