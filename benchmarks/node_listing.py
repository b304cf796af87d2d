#!/usr/bin/env python3
"""Listing 1,000 nodes, ours vs Ironic 39: by microversion, and scoped.

Two modes, each one invocation that runs both systems (``--systems``) in
turn, ``--reps`` times interleaved, each run on a fresh service with a
fresh SQLite database, on loopback:

* ``versions`` (issue 23): both noauth (ours: ``compare_with_ironic.
  OurService``; Ironic 39: the anchor of ``/work/shared/bench``, default
  profile).  ``--nodes`` fake-hardware nodes are enrolled (the same body
  for each: a name, a driver_info with a password, properties, extra),
  then ``GET /v1/nodes/detail`` is timed ``--requests`` times at
  microversion 1.69 and as many at 1.115, the two interleaved on one
  keep-alive connection.
* ``keystone`` (issue 24): a real Keystone (``tests/functional/
  keystone.py``: the venv of ``tools/keystone-venv``, SQLite, loopback,
  stopped by its PID at the end) and both services with ``auth_strategy =
  keystone``, keystonemiddleware set up as our functional tests set it
  (``KeystoneServer.authtoken_options``) and ``[oslo_policy]
  enforce_scope`` and ``enforce_new_defaults`` on.  The system admin
  enrols the nodes, half owned by ``project-a`` and half by
  ``project-b``; then ``reader-a``, a reader of ``project-a`` with a
  project-scoped token, lists ``GET /v1/nodes`` and ``GET
  /v1/nodes/detail`` (1.115), interleaved; each answer must hold exactly
  project A's nodes.

Timed: one request, from sending it to its last byte, sequentially on one
connection; two untimed requests of each kind first (the first
validates the token with Keystone; its time is recorded apart as
``first_ms``).  Per kind: p50, p95, mean, min, max, the size of the
answer, the nodes in it, and the service's CPU per request (``/proc`` of
its PID and descendants).  One JSON line per (run, kind) goes to
``results/<date>-node-listing.jsonl``; a table and the ratios ours /
Ironic, per repetition and on medians, are printed.  Example::

    .venv/bin/python benchmarks/node_listing.py --mode versions --reps 2
    .venv/bin/python benchmarks/node_listing.py --mode keystone --reps 2
"""

import argparse
import datetime
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))   # tests.functional.keystone

import compare_with_ironic as cwi  # noqa: E402
import redfish_deploys as rd  # noqa: E402
import side_by_side  # noqa: E402
import template_deploys as td  # noqa: E402

MODES = ('versions', 'keystone')
LATEST = '1.115'
#: mode -> the (microversion, path) kinds of request timed.
KINDS = {'versions': (('1.69', '/v1/nodes/detail'),
                      (LATEST, '/v1/nodes/detail')),
         'keystone': ((LATEST, '/v1/nodes'),
                      (LATEST, '/v1/nodes/detail'))}
WARM_UP = 2
READER, READER_PROJECT, OTHER_PROJECT = 'reader-a', 'project-a', 'project-b'
SCOPED_POLICY = ('[oslo_policy]\nenforce_scope = true\n'
                 'enforce_new_defaults = true\n')


# --- the services ------------------------------------------------------------

class IronicLayered(cwi.IronicAnchor):
    """The Ironic 39 anchor with a configuration file layered on top
    (none: the anchor as it is)."""

    def __init__(self, args, extra_conf):
        super().__init__(args, tuned=False)
        self.extra_conf = extra_conf

    def _env(self):
        env = super()._env()
        if self.extra_conf:
            env['IRONIC_EXTRA_CONF'] = self.extra_conf
        return env


def keystone_conf(keystone, scratch, system):
    """The file that turns a service's auth to ``keystone``."""
    path = os.path.join(scratch, '%s-keystone.conf' % system)
    with open(path, 'w') as fh:
        # Ours scopes by project whatever the configuration (it has no
        # enforce_* options, and refuses unknown ones); Ironic by these.
        fh.write('[DEFAULT]\nauth_strategy = keystone\n'
                 + (SCOPED_POLICY if system != cwi.OURS else '')
                 + '[keystone_authtoken]\n' + ''.join(
                     '%s = %s\n' % item
                     for item in keystone.authtoken_options().items()))
    return path


def make_service(args, system, extra_conf):
    if system == cwi.OURS:
        return cwi.OurService(argparse.Namespace(**dict(
            vars(args), ironic_steps_extra_conf=extra_conf)))
    return IronicLayered(args, extra_conf)


# --- the nodes ----------------------------------------------------------------

def node_body(index, owner):
    body = {'driver': 'fake-hardware', 'name': 'list-%05d' % index,
            'driver_info': {'ipmi_address': '10.0.%d.%d' % divmod(index, 256),
                            'ipmi_username': 'admin',
                            'ipmi_password': 'bmc-secret-%d' % index},
            'properties': {'cpus': 32, 'memory_mb': 131072, 'local_gb': 960,
                           'cpu_arch': 'x86_64'},
            'extra': {'rack': 'r%02d' % (index % 40), 'slot': index % 40}}
    if owner:
        body['owner'] = owner
    return body


def enrol(api, nodes, owners):
    """``nodes`` nodes; node i is owned by ``owners[i % len(owners)]``."""
    api.each(lambda i: api('POST', '/v1/nodes',
                           node_body(i, owners[i % len(owners)])),
             range(nodes))


# --- timing -------------------------------------------------------------------

class Lister:
    """Sequential GETs on one keep-alive connection."""

    def __init__(self, endpoint, token=None):
        url = urllib.parse.urlsplit(endpoint)
        self.conn = http.client.HTTPConnection(url.hostname, url.port,
                                               timeout=120)
        self.token = token

    def get(self, version, path):
        """(seconds, status, body bytes) of one request."""
        headers = {'Accept': 'application/json',
                   'X-OpenStack-Ironic-API-Version': version}
        if self.token:
            headers['X-Auth-Token'] = self.token
        t0 = time.perf_counter()
        self.conn.request('GET', path, headers=headers)
        resp = self.conn.getresponse()
        data = resp.read()
        return time.perf_counter() - t0, resp.status, data

    def close(self):
        self.conn.close()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def time_kinds(lister, kinds, requests, check, pid):
    """{kind: figures}: the kinds timed interleaved, ``requests`` each."""
    first, samples, cpu = {}, {kind: [] for kind in kinds}, {}
    answers = {}
    for kind in kinds:
        for attempt in range(WARM_UP):
            seconds, status, data = lister.get(*kind)
            if status != 200:
                raise td.RunFailed('GET %s at %s -> %d: %s' % (
                    kind[1], kind[0], status, data[:300]))
            first.setdefault(kind, seconds)
        answers[kind] = data
        check(kind, json.loads(data)['nodes'])
    for round_ in range(requests):
        # Alternate which kind goes first, so neither always follows the
        # other.
        for kind in (kinds if round_ % 2 == 0 else kinds[::-1]):
            before = cwi.cpu_snapshot(pid)
            seconds, status, data = lister.get(*kind)
            cpu[kind] = cpu.get(kind, 0.0) + cwi.cpu_delta(
                before, cwi.cpu_snapshot(pid))
            if status != 200 or len(data) != len(answers[kind]):
                raise td.RunFailed('GET %s at %s -> %d, %d bytes (first '
                                   'answer: %d)' % (kind[1], kind[0], status,
                                                    len(data),
                                                    len(answers[kind])))
            samples[kind].append(seconds)
    figures = {}
    for kind, times in samples.items():
        ms = [1000 * t for t in times]
        figures[kind] = {
            'version': kind[0], 'path': kind[1], 'requests': len(ms),
            'p50_ms': round(statistics.median(ms), 2),
            'p95_ms': round(percentile(ms, 0.95), 2),
            'mean_ms': round(statistics.mean(ms), 2),
            'min_ms': round(min(ms), 2), 'max_ms': round(max(ms), 2),
            'first_ms': round(1000 * first[kind], 2),
            'bytes': len(answers[kind]),
            'nodes_returned': len(json.loads(answers[kind])['nodes']),
            'server_cpu_ms_per_request': round(
                1000 * cpu[kind] / len(ms), 2)}
    return figures


# --- one run ------------------------------------------------------------------

class Keystone:
    """What the ``keystone`` mode needs of the real Keystone."""

    def __init__(self, server):
        self.server = server
        self.projects = {name: server.project_id(name)
                         for name in (READER_PROJECT, OTHER_PROJECT)}

    def admin_token(self):
        return self.server.token('admin', system=True)

    def reader_token(self):
        return self.server.token(READER, project=READER_PROJECT)


def run_one(args, system, rep, scratch, keystone=None):
    cwi.log('%s %s rep %d: starting, N=%d' % (args.mode, system, rep,
                                              args.nodes))
    extra = (keystone_conf(keystone.server, scratch, system)
             if keystone else None)
    code, load, rows = cwi.git_state(), os.getloadavg()[0], []
    with side_by_side.running(make_service(args, system, extra),
                              '%s rep %d' % (system, rep)) as service:
        if keystone:
            admin = td.Api(service.endpoint, args.concurrency, LATEST,
                           keystone.admin_token())
            owners = [keystone.projects[READER_PROJECT],
                      keystone.projects[OTHER_PROJECT]]
            token, mine = keystone.reader_token(), owners[0]
            want = args.nodes - args.nodes // 2
        else:
            admin = td.Api(service.endpoint, args.concurrency, LATEST)
            owners, token, mine, want = [None], None, None, args.nodes
        t0 = time.monotonic()
        enrol(admin, args.nodes, owners)
        setup_s = time.monotonic() - t0

        def check(kind, nodes):
            if len(nodes) != want:
                raise td.RunFailed('%s at %s listed %d nodes, not %d' % (
                    kind[1], kind[0], len(nodes), want))
            if mine and kind[1].endswith('/detail') and any(
                    n.get('owner') != mine for n in nodes):
                raise td.RunFailed('%s listed a node of another project'
                                   % kind[1])

        lister = Lister(service.endpoint, token)
        try:
            figures = time_kinds(lister, KINDS[args.mode], args.requests,
                                 check, service.pid)
        finally:
            lister.close()
        for kind in KINDS[args.mode]:
            rows.append(dict({
                'benchmark': 'node-listing', 'mode': args.mode,
                'system': system, 'rep': rep, 'nodes': args.nodes,
                'caller': ('%s (%s, project scope)' % (READER, READER_PROJECT)
                           if keystone else 'noauth'),
                'setup_s': round(setup_s, 2),
                'loadavg_1m_at_start': load,
                'date': datetime.datetime.now().isoformat(timespec='seconds'),
                'git': code, 'machine': args.machine}, **figures[kind]))
    for row in rows:
        cwi.log('%(system)s %(path)s at %(version)s: p50 %(p50_ms)s ms, p95 '
                '%(p95_ms)s ms, %(nodes_returned)d nodes' % row)
    return rows


# --- report -------------------------------------------------------------------

COLUMNS = ('system', 'rep', 'path', 'version', 'nodes_returned', 'bytes',
           'p50_ms', 'p95_ms', 'first_ms', 'server_cpu_ms_per_request',
           'loadavg_1m_at_start')
RATIOS = ('p50_ms', 'p95_ms', 'server_cpu_ms_per_request')


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--mode', choices=MODES, default='versions',
                    help='versions: noauth, /detail at 1.69 and 1.115; '
                         'keystone: a project-scoped reader lists, with a '
                         'real Keystone (default versions)')
    ap.add_argument('--nodes', type=int, default=1000,
                    help='nodes enrolled (default 1000; at most [api] '
                         'max_limit, 1000, so one page holds them all)')
    ap.add_argument('--requests', type=int, default=20,
                    help='timed requests of each kind (default 20)')
    ap.add_argument('--concurrency', type=int, default=8,
                    help='node creations in flight (default 8)')
    side_by_side.add_options(ap, 'node-listing')
    args = ap.parse_args(argv)
    side_by_side.check_options(ap, args)
    if not 2 <= args.nodes <= 1000:
        ap.error('--nodes is from 2 to 1000 (one page of the list)')
    if min(args.requests, args.concurrency) < 1:
        ap.error('--requests and --concurrency must be at least 1')
    return rd.with_service_paths(args)


def main(argv=None):
    args = parse_args(argv)
    args.machine = cwi.machine_info(args)
    with tempfile.TemporaryDirectory(prefix='node-listing-') as scratch:
        server = None
        if args.mode == 'keystone':
            from tests.functional import keystone as keystone_fixture
            if not keystone_fixture.available():
                sys.exit('no Keystone: run tools/keystone-venv first')
            server = keystone_fixture.KeystoneServer()
            server.setUp()
        try:
            keystone = Keystone(server) if server else None
            rows = side_by_side.run_all(args, lambda system, rep: run_one(
                args, system, rep, scratch, keystone))
        finally:
            if server:
                server.cleanUp()
    side_by_side.print_table(rows, COLUMNS)
    side_by_side.print_ratios(rows, ('path', 'version'), RATIOS)
    print('\nJSON lines appended to %s' % args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
