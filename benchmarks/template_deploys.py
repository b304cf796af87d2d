#!/usr/bin/env python3
"""What two more deploy steps cost, asked for by a template or by the caller.

ironic-steps alone over its REST API (1.69); each repetition runs every
variant once, in order, on a fresh ``compare_with_ironic.OurService``:

* ``plain``: fake-hardware's own deploy, 5 steps;
* ``deploy-steps``: the deploy request carries ``deploy_steps``, the two
  steps of ``workloads/raid-and-bios-deploy-steps.json`` (BIOS, RAID);
* ``template``: a deploy template ``CUSTOM_BENCH_RAID_BIOS`` of those two
  steps; every node has that trait and ``instance_info.traits`` names it.

Untimed setup: the template, N nodes made available, traits and
``instance_info``.  Timed as ``deploy_workload.py`` does: first deploy
request (C in flight) to the list poll that sees the last node ``active``,
with the server's CPU.  Steps per node: the plan of a node caught deploying,
else ``known``.  A failed or late node stops the benchmark (state kept);
every node must then show what the fake RAID and BIOS steps leave exactly
when asked for them.  Per extra step = (per node, variant - ``plain``) /
extra steps, on medians.  ``--statements``: one more untimed run per
variant, with ``workloads/log-sql.conf``, counting the SQL it logs.
JSON lines go to ``results/<date>-template-deploys.jsonl``.  Example::

    .venv/bin/python benchmarks/template_deploys.py --nodes 500 --reps 2
"""

import argparse
import datetime
import json
import os
import re
import statistics
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare_with_ironic as cwi  # noqa: E402

TEMPLATE = 'CUSTOM_BENCH_RAID_BIOS'
STEPS_FILE = os.path.join(HERE, 'workloads', 'raid-and-bios-deploy-steps.json')
SQL_CONF = os.path.join(HERE, 'workloads', 'log-sql.conf')
TIMEOUT = 600.0         # seconds a phase may wait for its nodes
VARIANTS = ('plain', 'deploy-steps', 'template')
PLAIN_STEPS = 5         # fake-hardware's deploy (drivers/modules/fake.py)
EVIDENCE = ('fake_raid_config', 'fake_bios_settings')   # left by the steps
HEADERS = {'Accept': 'application/json', 'Content-Type': 'application/json',
           'X-OpenStack-Ironic-API-Version': '1.69'}
# With connection_debug, SQLAlchemy logs the text of every statement run.
SQL_LINE = re.compile(r'INFO sqlalchemy\.engine\.Engine \[[^]]*\] '
                      r'(SELECT|INSERT|UPDATE|DELETE|PRAGMA|WITH)\b')


class RunFailed(Exception):
    """A run that gives no figures; the message says which node and why."""


class Api:
    """JSON over urllib; a node locked or a busy conductor is retried.

    ``version``: the microversion asked for; ``token``: a Keystone token
    sent as ``X-Auth-Token`` (none: the noauth service); ``timeout``:
    seconds to wait for an answer.
    """

    def __init__(self, endpoint, concurrency, version='1.69', token=None,
                 timeout=60):
        self.endpoint, self.concurrency = endpoint, concurrency
        self.timeout = timeout
        self.headers = dict(HEADERS, **{
            'X-OpenStack-Ironic-API-Version': version})
        if token is not None:
            self.headers['X-Auth-Token'] = token

    def __call__(self, method, path, body=None, retries=6):
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(retries + 1):
            req = urllib.request.Request(self.endpoint + path, data,
                                         self.headers,
                                         method=method)
            try:
                with urllib.request.urlopen(req,
                                            timeout=self.timeout) as resp:
                    raw = resp.read()
                return json.loads(raw) if raw else None
            except urllib.error.HTTPError as exc:
                text = exc.read().decode('utf-8', 'replace')[:500]
                if exc.code not in (409, 503) or attempt == retries:
                    raise RunFailed('%s %s -> %d: %s'
                                    % (method, path, exc.code, text)) from exc
            time.sleep(0.05 * 2 ** attempt)

    def each(self, fn, items):
        with ThreadPoolExecutor(self.concurrency) as pool:
            return list(pool.map(fn, items))

    def nodes(self, fields):
        path, found = '/v1/nodes?fields=%s&limit=1000' % fields, []
        while path:
            page = self('GET', path)
            found += page['nodes']
            nxt = urllib.parse.urlsplit(page.get('next') or '')
            path = nxt.path + '?' + nxt.query if nxt.path else None
        return found

    def wait_for(self, uuids, want):
        """Poll the node list until every node is ``want``; when seen."""
        pending, deadline = set(uuids), time.monotonic() + TIMEOUT
        while True:
            seen = self.nodes('uuid,provision_state,target_provision_state,'
                              'last_error')
            now = time.monotonic()
            for node in seen:
                if node['provision_state'] == want:
                    pending.discard(node['uuid'])
                elif node['uuid'] in pending and (
                        node['provision_state'].endswith(('failed', 'error'))
                        or (node['last_error']
                            and not node['target_provision_state'])):
                    raise RunFailed('node %(uuid)s ended %(provision_state)r:'
                                    ' %(last_error)s' % node)
            if not pending:
                return now
            if now > deadline:
                raise RunFailed('%d nodes not %r after %d s'
                                % (len(pending), want, TIMEOUT))
            time.sleep(0.25)    # as deploy_workload.py polls


def setup(api, variant, nodes, steps):
    """The nodes, available, with what the variant asks of them."""
    if variant == 'template':
        api('POST', '/v1/deploy_templates', {'name': TEMPLATE, 'steps': steps})
    uuids = [node['uuid'] for node in api.each(
        lambda i: api('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                            'name': 'tmpl-%06d' % i}),
        range(nodes))]
    for target, want in (('manage', 'manageable'), ('provide', 'available')):
        api.each(lambda u: api('PUT', '/v1/nodes/%s/states/provision' % u,
                               {'target': target}), uuids)
        api.wait_for(uuids, want)
    if variant == 'template':
        patch = [{'op': 'add', 'path': '/instance_info/traits',
                  'value': [TEMPLATE]}]
        api.each(lambda u: (api('PUT', '/v1/nodes/%s/traits/%s'
                                % (u, TEMPLATE)),
                            api('PATCH', '/v1/nodes/%s' % u, patch)), uuids)
    return uuids


def deploy(api, pid, uuids, body):
    """The timed phase: (seconds, server CPU s, one node's plan or [])."""
    plan, lock = [], threading.Lock()

    def one(uuid):
        api('PUT', '/v1/nodes/%s/states/provision' % uuid, body)
        if not plan and lock.acquire(blocking=False):
            try:    # the plan is kept only while the node deploys
                info = api('GET', '/v1/nodes/%s?fields=driver_internal_info'
                           % uuid)['driver_internal_info']
                plan.extend('%(interface)s.%(step)s' % step
                            for step in info.get('deploy_steps') or ())
            finally:
                lock.release()

    cpu0, t0 = cwi.cpu_snapshot(pid), time.monotonic()
    api.each(one, uuids)
    seconds = api.wait_for(uuids, 'active') - t0
    return seconds, cwi.cpu_delta(cpu0, cwi.cpu_snapshot(pid)), plan


def check_evidence(api, extra):
    """Every node ran the RAID and BIOS steps exactly if it was asked to."""
    for node in api.nodes('uuid,driver_internal_info'):
        ran = [key in node['driver_internal_info'] for key in EVIDENCE]
        if ran != [extra] * len(EVIDENCE):
            raise RunFailed('node %s: %s in driver_internal_info: %s'
                            % (node['uuid'], EVIDENCE, ran))


def count_sql(log_path, start, end):
    """(statements, writes) the service logged between two file offsets."""
    with open(log_path, 'rb') as fh:
        fh.seek(start)
        text = fh.read(end - start).decode('utf-8', 'replace')
    verbs = [m.group(1) for m in SQL_LINE.finditer(text)]
    return len(verbs), sum(v in ('INSERT', 'UPDATE', 'DELETE') for v in verbs)


def run_one(args, variant, rep, steps, counting):
    cwi.log('%s rep %s: starting, N=%d' % (variant, rep, args.nodes))
    service = cwi.OurService(argparse.Namespace(**dict(
        vars(args), ironic_steps_extra_conf=counting and SQL_CONF)))
    code, load, result = cwi.git_state(), os.getloadavg()[0], None
    try:
        service.start()
        time.sleep(3)   # let the service settle, as the other benchmarks do
        api = Api(service.endpoint, args.concurrency)
        t0 = time.monotonic()
        uuids = setup(api, variant, args.nodes, steps)
        setup_s, log0 = time.monotonic() - t0, os.path.getsize(
            service.log_path)
        body = dict({'target': 'active'}, **(
            {'deploy_steps': steps} if variant == 'deploy-steps' else {}))
        seconds, cpu, plan = deploy(api, service.pid, uuids, body)
        log1 = os.path.getsize(service.log_path)
        check_evidence(api, variant != 'plain')
        result = {
            'benchmark': 'template-deploys', 'variant': variant, 'rep': rep,
            'counting_sql': counting, 'nodes': args.nodes,
            'concurrency': args.concurrency, 'setup_s': round(setup_s, 2),
            'deploy_s': round(seconds, 3),
            'nodes_per_s': round(args.nodes / seconds, 1),
            'steps_per_node': len(plan) or PLAIN_STEPS + (
                0 if variant == 'plain' else len(steps)),
            'steps_source': 'plan' if plan else 'known', 'plan': plan,
            'server_cpu_s': round(cpu, 2), 'loadavg_1m_at_start': load,
            'date': datetime.datetime.now().isoformat(timespec='seconds'),
            'git': code, 'machine': args.machine}
        if counting:
            stmts, writes = count_sql(service.log_path, log0, log1)
            result.update(statements_per_node=round(stmts / args.nodes, 2),
                          writes_per_node=round(writes / args.nodes, 2))
    finally:
        service.stop()
        service.cleanup(keep=result is None)
        if result is None:
            cwi.log('%s rep %s failed; state kept in %s'
                    % (variant, rep, service.state_dir))
    cwi.log('%(variant)s: deploy %(deploy_s).2f s, %(nodes_per_s).1f nodes/s'
            ', %(steps_per_node)d steps (%(steps_source)s), CPU '
            '%(server_cpu_s).1f s' % result)
    return result


def summarise(results, nodes):
    """Medians per variant (rep "median"), and the cost of an extra step."""
    rows = {}
    for variant in VARIANTS:
        runs = [r for r in results
                if r['variant'] == variant and not r['counting_sql']]
        counted = [r for r in results
                   if r['variant'] == variant and r['counting_sql']]
        if runs:
            rows[variant] = dict(
                {key: round(statistics.median(r[key] for r in runs), 3)
                 for key in ('deploy_s', 'nodes_per_s', 'steps_per_node',
                             'server_cpu_s')}, variant=variant, rep='median')
            rows[variant].update((k, v) for r in counted for k, v in r.items()
                                 if k.endswith('_per_node') and 'step' not in k)
    plain = rows.get('plain')
    for row in rows.values():
        extra = plain and row['steps_per_node'] - plain['steps_per_node']
        for key, out in (('deploy_s', 'ms_per_extra_step'),
                         ('server_cpu_s', 'cpu_ms_per_extra_step')):
            row[out] = (round(1000 * (row[key] - plain[key]) / nodes / extra,
                              3) if extra else None)
    return list(rows.values())


def print_table(rows):
    cols = ('variant', 'rep', 'deploy_s', 'nodes_per_s', 'steps_per_node',
            'server_cpu_s', 'ms_per_extra_step', 'cpu_ms_per_extra_step',
            'statements_per_node', 'writes_per_node')
    print('| ' + ' | '.join(cols) + ' |\n|' + '---|' * len(cols))
    for row in rows:
        print('| ' + ' | '.join('-' if row.get(c) is None else '%.4g' % row[c]
                                if isinstance(row[c], float) else str(row[c])
                                for c in cols) + ' |')


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nodes', type=int, default=500)
    ap.add_argument('--concurrency', type=int, default=8)
    ap.add_argument('--reps', type=int, default=2, help='interleaved')
    ap.add_argument('--statements', action='store_true',
                    help='one more untimed run per variant counting SQL')
    ap.add_argument('--out', default=os.path.join(
        HERE, 'results', '%s-template-deploys.jsonl'
        % datetime.date.today().isoformat()))
    args = ap.parse_args(argv)
    if min(args.nodes, args.reps, args.concurrency) < 1:
        ap.error('--nodes, --reps and --concurrency must be at least 1')
    # what OurService and machine_info read; no Ironic is involved here
    args.workers_pool_size, args.start_timeout = None, 90.0
    venv_bin = os.path.join(cwi.REPO, '.venv', 'bin')
    args.ironic_steps = os.path.join(venv_bin, 'ironic-steps')
    args.ironic_steps_python = os.path.join(venv_bin, 'python')
    args.ironic_venv = os.devnull
    return args


def main(argv=None):
    args = parse_args(argv)
    with open(STEPS_FILE) as fh:
        steps = json.load(fh)
    args.machine = cwi.machine_info(args)
    args.machine.pop('python_ironic', None)
    runs = [(v, rep, False) for rep in range(1, args.reps + 1)
            for v in VARIANTS]
    runs += [(v, 'sql', True) for v in VARIANTS if args.statements]
    results = []
    for variant, rep, counting in runs:
        results.append(run_one(args, variant, rep, steps, counting))
        with open(args.out, 'a') as fh:
            fh.write(json.dumps(results[-1]) + '\n')
    summary = summarise(results, args.nodes)
    with open(args.out, 'a') as fh:
        fh.write(json.dumps({'benchmark': 'template-deploys', 'nodes':
                             args.nodes, 'summary': summary,
                             'date': results[-1]['date']}) + '\n')
    print('\nN = %d, concurrency %d; "median" rows: of the timed runs, '
          'per extra step = (variant - plain) per node / extra steps'
          % (args.nodes, args.concurrency))
    print_table(results + summary)
    print('\nJSON lines appended to %s' % args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
