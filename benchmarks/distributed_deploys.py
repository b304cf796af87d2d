#!/usr/bin/env python3
"""Deploy rate of the distributed mode with 1, 2, 3 ... conductors, and
how long the nodes take to settle after a fault ends.

Real processes, as an operator runs them: ``ironic-steps-conductor`` x K
and one ``ironic-steps-api`` on a private PostgreSQL server and a private
RabbitMQ (the tests' fixtures, on 127.0.0.1, stopped by their PIDs).

``--mode rate``: for each rep and each K of ``--conductors`` (interleaved,
so a change in the machine's load falls on every K alike), a fresh
database, N fake nodes enrolled and made available through the API, then
deployed (``--clients`` threads sending the provision requests); measured
from the first request to the last node ``active``.  The CPU seconds each
kind of process spent in that window say where the time goes.

``--mode faults``: 3 conductors, N nodes deploying with slow steps and a
slow agent, then one fault mid-deploy; measured: from the fault's end (the
kill, the database or broker back) to the last node resting (``active``
or ``deploy failed``, unlocked).  Faults: ``kill`` (SIGKILL a conductor),
``database`` (PostgreSQL stopped ``--outage`` seconds), ``broker``
(RabbitMQ's app stopped ``--outage`` seconds).

    .venv/bin/python benchmarks/distributed_deploys.py --mode rate \\
        --nodes 300 --conductors 1,2,3 --reps 2
    .venv/bin/python benchmarks/distributed_deploys.py --mode faults \\
        --nodes 60 --faults kill,database,broker

One JSON line per run goes to ``--out``; a table to stdout.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import compare_with_ironic as cwi  # noqa: E402
from tests.functional import fixtures as functional  # noqa: E402
from tests.functional import rabbitmq  # noqa: E402
from tests import postgresql  # noqa: E402

SETTLED = ('active', 'deploy failed')


def log(message):
    print('[distributed %s] %s' % (time.strftime('%H:%M:%S'), message),
          file=sys.stderr, flush=True)


class Cluster:
    """K conductors and an API on a fresh database of ``database``."""

    def __init__(self, database, broker, conductors, fake_options, run):
        self.state_path = tempfile.mkdtemp(prefix='distributed-')
        url = database.url()
        functional.create_schema(self.state_path, url)
        self.services = functional.Services(self.state_path, {
            'DEFAULT': {'rpc_transport': 'oslo',
                        'transport_url': broker.url},
            'database': {'connection': url},
            'fake': fake_options,
            'conductor': {'heartbeat_interval': 1, 'heartbeat_timeout': 4,
                          'hash_ring_reset_interval': 1},
        })
        self.services.setUp()
        # Host names of their own: queues of an earlier run's conductors
        # may linger on the shared broker.
        self.hosts = ['run%d-conductor-%d' % (run, i)
                      for i in range(conductors)]
        started = self.services.start(
            *[('ironic-steps-conductor', host) for host in self.hosts],
            ('ironic-steps-api', 'run%d-api' % run))
        self.conductors = dict(zip(self.hosts, started))
        self.api_service = started[-1]
        self.api = functional.RestClient(self.api_service.endpoint)

    def states(self):
        """{uuid: (provision_state, reservation)} of every node."""
        _, answer = self.api.request(
            'GET', '/v1/nodes?fields=uuid,provision_state,reservation')
        return {node['uuid']: (node['provision_state'], node['reservation'])
                for node in answer['nodes']}

    def failures(self, node_uuids):
        """{why: how many} of the nodes that failed (their last_error,
        node UUIDs and times taken out, so alike reasons count as one)."""
        _, answer = self.api.request(
            'GET', '/v1/nodes?fields=uuid,provision_state,last_error')
        reasons = {}
        wanted = set(node_uuids)
        for node in answer['nodes']:
            if node['uuid'] in wanted and node['provision_state'] != 'active':
                why = re.sub(r'[0-9a-f-]{36}|\d[\d.:T-]*', '#',
                             node['last_error'] or 'none')
                reasons[why] = reasons.get(why, 0) + 1
        return reasons

    def stop(self):
        self.services.cleanUp()


def enrol(cluster, count, clients):
    node_uuids = [str(uuid.uuid4()) for _ in range(count)]
    chunks = [node_uuids[i::clients] for i in range(clients)]
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(cluster.api.enrol_available, chunks))
    return node_uuids


def deploy(cluster, node_uuids, clients):
    def one(node_uuid):
        cluster.api.request('PUT', '/v1/nodes/%s/states/provision'
                            % node_uuid, {'target': 'active'})
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, node_uuids))


def wait_settled(cluster, node_uuids, timeout, wanted=SETTLED):
    deadline = time.monotonic() + timeout
    while True:
        states = cluster.states()
        resting = [node_uuid for node_uuid in node_uuids
                   if states[node_uuid][0] in wanted
                   and not states[node_uuid][1]]
        if len(resting) == len(node_uuids):
            return time.monotonic(), states
        if time.monotonic() > deadline:
            raise RuntimeError('%d of %d nodes not settled after %s s'
                               % (len(node_uuids) - len(resting),
                                  len(node_uuids), timeout))
        time.sleep(0.05)


class CPU:
    """CPU seconds of the conductors, the API, PostgreSQL and RabbitMQ."""

    def __init__(self, cluster, database, broker):
        with open(os.path.join(database.data, 'postmaster.pid')) as pid:
            postmaster = int(pid.readline())
        self.roots = {'conductors': [service.process.pid for service
                                     in cluster.conductors.values()],
                      'api': [cluster.api_service.process.pid],
                      'postgresql': [postmaster],
                      'rabbitmq': [broker.server.pid]}

    def snapshot(self):
        return {kind: [cwi.cpu_snapshot(pid) for pid in pids]
                for kind, pids in self.roots.items()}

    @staticmethod
    def used(before, after):
        return {kind: round(sum(cwi.cpu_delta(b, a) for b, a
                                in zip(before[kind], after[kind])), 2)
                for kind in before}


def run_rate(args, database, broker, conductors, rep, run):
    cluster = Cluster(database, broker, conductors,
                      {'step_delay': 0, 'agent_delay': 0}, run)
    try:
        node_uuids = enrol(cluster, args.nodes, args.clients)
        cpu = CPU(cluster, database, broker)
        before = cpu.snapshot()
        own_before = time.process_time()
        load = os.getloadavg()[0]
        started = time.monotonic()
        deploy(cluster, node_uuids, args.clients)
        ended, states = wait_settled(cluster, node_uuids, args.timeout)
        seconds = ended - started
        used = CPU.used(before, cpu.snapshot())
        used['client'] = round(time.process_time() - own_before, 2)
        active = sum(1 for node_uuid in node_uuids
                     if states[node_uuid][0] == 'active')
        return {'mode': 'rate', 'conductors': conductors, 'rep': rep,
                'nodes': args.nodes, 'active': active,
                'deploy_s': round(seconds, 2),
                'nodes_per_s': round(args.nodes / seconds, 2),
                'cpu_s': used,
                'cpu_per_s': round(sum(used.values()) / seconds, 2),
                'loadavg_1m_at_start': load}
    finally:
        cluster.stop()


def run_fault(args, database, broker, fault, run):
    cluster = Cluster(database, broker, 3,
                      {'step_delay': 0.3, 'agent_delay': 2}, run)
    try:
        node_uuids = enrol(cluster, args.nodes, args.clients)
        deploy(cluster, node_uuids, args.clients)
        while not any(state in ('deploying', 'wait call-back')
                      for state, _ in cluster.states().values()):
            time.sleep(0.05)
        started = time.monotonic()
        if fault == 'kill':
            cluster.conductors[cluster.hosts[0]].kill()
        elif fault == 'database':
            database.stop()
            time.sleep(args.outage)
            database.start()
        elif fault == 'broker':
            broker.stop_app()
            time.sleep(args.outage)
            broker.start_app()
        fault_ended = time.monotonic()
        settled_at, states = wait_settled(cluster, node_uuids, args.timeout)
        outcomes = {}
        for node_uuid in node_uuids:
            outcomes[states[node_uuid][0]] = outcomes.get(
                states[node_uuid][0], 0) + 1
        return {'mode': 'faults', 'fault': fault, 'nodes': args.nodes,
                'outage_s': round(fault_ended - started, 2),
                'settled_after_s': round(settled_at - fault_ended, 2),
                'outcomes': outcomes,
                'failures': cluster.failures(node_uuids)}
    finally:
        cluster.stop()


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--mode', choices=('rate', 'faults'),
                        default='rate')
    parser.add_argument('--nodes', type=int, default=300)
    parser.add_argument('--conductors', default='1,2,3',
                        help='conductor counts, comma-separated (rate)')
    parser.add_argument('--faults', default='kill,database,broker')
    parser.add_argument('--outage', type=float, default=6.0,
                        help='seconds the database or broker is down')
    parser.add_argument('--reps', type=int, default=2)
    parser.add_argument('--clients', type=int, default=8)
    parser.add_argument('--timeout', type=float, default=600)
    parser.add_argument('--out', help='append JSON lines here')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if not (postgresql.available() and rabbitmq.available()):
        sys.exit('needs PostgreSQL and RabbitMQ (apt-get install postgresql '
                 'rabbitmq-server)')
    database = postgresql.PostgreSQLServer()
    broker = rabbitmq.RabbitMQServer()
    database.setUp()
    broker.setUp()
    code = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                          capture_output=True, text=True,
                          cwd=HERE).stdout.strip()
    results = []
    try:
        run = 0
        for rep in range(1, args.reps + 1):
            if args.mode == 'rate':
                cases = [int(k) for k in args.conductors.split(',')]
            else:
                cases = args.faults.split(',')
            for case in cases:
                run += 1
                log('rep %d: %s' % (rep, case))
                if args.mode == 'rate':
                    result = run_rate(args, database, broker, case, rep, run)
                else:
                    result = run_fault(args, database, broker, case, run)
                    result['rep'] = rep
                result.update(
                    git=code, cpus=os.cpu_count(),
                    date=datetime.datetime.now().isoformat(timespec='seconds'))
                log(json.dumps(result))
                results.append(result)
                if args.out:
                    with open(args.out, 'a') as out:
                        out.write(json.dumps(result) + '\n')
    finally:
        broker.cleanUp()
        database.cleanUp()
    for result in results:
        if result['mode'] == 'rate':
            print('%(conductors)d conductors rep %(rep)d: %(nodes_per_s)7.2f '
                  'nodes/s  cpu/s %(cpu_per_s)4.2f  %(cpu_s)s' % result)
        else:
            print('%(fault)-8s rep %(rep)d: settled %(settled_after_s)5.2f s '
                  'after the fault ended  %(outcomes)s' % result)


if __name__ == '__main__':
    main()
