"""The service's CPU per deploy and per node GET, over its REST API.

Where the side-by-side (``compare_with_ironic.py``) gives rates and
latencies, which move with how much of the machine each system gets, this
gives what each operation costs the service: the CPU seconds (user and
system, from ``/proc``) the all-in-one process spent during the deploy
phase of ``deploy_workload.py``'s workload, per node deployed, and during
a burst of ``GET /v1/nodes/{uuid}``, per GET.  The client is the same
standard-library one (``deploy_workload.py``'s, concurrency 8); each
repetition starts a fresh service on a fresh SQLite file.

On a shared virtual machine a run's CPU per operation still moves with
what the host does (a tenth, at times a fifth): compare commits
interleaved, over several repetitions, and read medians.

Usage::

    python3 benchmarks/service_cpu.py --nodes 500 --gets 2000 --reps 3 \\
        --out benchmarks/results/<date>-service-cpu.jsonl
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import types
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_with_ironic as compare  # noqa: E402


def _workload_module(bench_dir):
    sys.path.insert(0, bench_dir)
    import deploy_workload
    return deploy_workload


def _code_commit():
    """The commit of the code the service runs: the checkout first on
    ``PYTHONPATH`` that holds ``ironic_steps``, else this one."""
    for entry in os.environ.get('PYTHONPATH', '').split(os.pathsep):
        if entry and os.path.isdir(os.path.join(entry, 'ironic_steps')):
            found = subprocess.run(
                ('git', '-C', entry, 'rev-parse', '--short', 'HEAD'),
                capture_output=True, text=True, timeout=30)
            return found.stdout.strip() or None
    return compare.git_state()['commit']


def _cpu_seconds(pid):
    """User and system CPU seconds the service has used (its own)."""
    own, _reaped = compare.cpu_snapshot(pid)[pid]
    return own


def _start_profile(args, pid, rep, phase):
    """py-spy over one phase (deploy, get), in raw collapsed stacks: the
    thread holding the GIL (what a deploy costs), or with ``--py-spy-waits``
    every thread, waiting or not, named (where requests wait)."""
    if not args.py_spy:
        return None, None
    os.makedirs(args.py_spy_dir, exist_ok=True)
    path = os.path.join(args.py_spy_dir, '%s-N%d-rep%d.txt'
                        % (phase, args.nodes, rep))
    proc = subprocess.Popen(
        [args.py_spy, 'record', '--pid', str(pid), '--format', 'raw',
         '--rate', str(args.py_spy_rate), '--output', path, '--nonblocking']
        + (['--idle', '--threads'] if args.py_spy_waits else ['--gil']),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, path


def one_run(args, workload, rep):
    service = compare.OurService(types.SimpleNamespace(
        workers_pool_size=None, ironic_steps=args.ironic_steps,
        ironic_steps_extra_conf=args.extra_conf, start_timeout=90))
    pid = service.start()
    try:
        options = workload.build_parser().parse_args(
            ['--endpoint', service.endpoint, '--nodes', str(args.nodes),
             '--gets', str(args.gets), '--quiet'])
        options.node_extra = {}
        options.name_prefix = 'cpu-%s' % uuid.uuid4().hex[:8]
        options.resource_class = options.name_prefix
        client = workload.Client(
            service.endpoint,
            {'Accept': 'application/json',
             'X-OpenStack-Ironic-API-Version': 'latest'}, 60, 5)
        run = workload.Run(options, client)
        nodes, _, _ = run.enroll()
        uuids = [node['uuid'] for node in nodes]
        for target, want, origin in (('manage', 'manageable', 'enroll'),
                                     ('provide', 'available', 'manageable')):
            accepted, started, _, _ = run.provision(target, uuids, target)
            run.wait_for(target, accepted, want, origin, started)
        time.sleep(1)   # the last transitions' work done

        spy, spy_path = _start_profile(args, pid, rep, 'deploy')
        before = _cpu_seconds(pid)
        accepted, started, _, _ = run.provision('deploy', uuids, 'active')
        done_at, _, active = run.wait_for('deploy', accepted, 'active',
                                          'available', started)
        deploy_cpu = _cpu_seconds(pid) - before
        compare.stop_py_spy(spy)
        time.sleep(1)

        get_spy, get_spy_path = _start_profile(args, pid, rep, 'get')
        before, client_before = _cpu_seconds(pid), time.process_time()
        gets = run.gets(active)
        get_cpu = _cpu_seconds(pid) - before
        client_cpu = time.process_time() - client_before
        compare.stop_py_spy(get_spy)
        return {
            'nodes': args.nodes, 'active': len(active),
            'deploy_s': round(done_at - started, 3),
            'nodes_per_s': round(len(active) / (done_at - started), 1),
            'cpu_ms_per_deploy': round(1000 * deploy_cpu / len(active), 2),
            'gets': args.gets, 'get_errors': gets.get('get_errors'),
            'get_p50_ms': gets.get('get_p50_ms'),
            'cpu_ms_per_get': round(1000 * get_cpu / args.gets, 3),
            'client_cpu_ms_per_get': round(1000 * client_cpu / args.gets, 3),
            'failures': len(run.failures),
            **({'py_spy_raw': [spy_path, get_spy_path]} if spy_path
               else {}),
        }
    finally:
        service.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--nodes', type=int, default=500)
    parser.add_argument('--gets', type=int, default=2000)
    parser.add_argument('--reps', type=int, default=3)
    parser.add_argument('--bench-dir', default=compare.DEFAULT_BENCH_DIR,
                        help='holds deploy_workload.py')
    parser.add_argument('--ironic-steps', default=os.path.join(
        compare.REPO, '.venv', 'bin', 'ironic-steps'))
    parser.add_argument('--extra-conf', default=None, metavar='FILE',
                        help='a configuration file read after the '
                             "benchmark's own (to compare settings)")
    parser.add_argument('--py-spy', default=None, metavar='PATH',
                        help='py-spy binary: profile the deploy and GET '
                             'phases'
                             ' (slows the service; not for figures)')
    parser.add_argument('--py-spy-rate', type=int, default=250,
                        help='py-spy samples per second (default 250)')
    parser.add_argument('--py-spy-waits', action='store_true',
                        help='sample every thread, idle ones too')
    parser.add_argument('--py-spy-dir', default=os.path.join(
        compare.tempfile.gettempdir(), 'service-cpu-py-spy'))
    parser.add_argument('--out', default=None,
                        help='append one JSON line per run to this file')
    args = parser.parse_args()
    workload = _workload_module(args.bench_dir)
    commit = _code_commit()
    results = []
    for rep in range(1, args.reps + 1):
        result = dict(one_run(args, workload, rep), rep=rep, commit=commit)
        results.append(result)
        print(json.dumps(result), flush=True)
        if args.out:
            with open(args.out, 'a') as out:
                out.write(json.dumps(result) + '\n')
    print('medians over %d runs: %.2f ms CPU per deploy, %.3f ms CPU per '
          'GET, GET p50 %.2f ms' % (
              len(results),
              statistics.median(r['cpu_ms_per_deploy'] for r in results),
              statistics.median(r['cpu_ms_per_get'] for r in results),
              statistics.median(r['get_p50_ms'] for r in results)))


if __name__ == '__main__':
    main()
