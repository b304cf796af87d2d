"""Conductor throughput: deploy N nodes x S steps in one process, no HTTP.

What it measures, for each node count N:

* nodes/s and step transitions/s of the deploy phase alone (from the first
  ``do_node_deploy`` to the last node resting ``active``);
* how often ``do_node_deploy`` was refused with NoFreeConductorWorker (the
  submitter retries, as a client would);
* SQL statements and writes per node and per step during the deploy phase:
  the design says one write per transition and nothing per step that grows
  with the number of nodes, so these must stay flat as N grows;
* the step history's share of those statements (its INSERTs and the
  DELETEs that keep its bound): at most one per step transition, which
  ``--history on,off`` shows against a run without history (as pinned
  to release 0.5, from before it);
* deploys that failed (the run goes on; one error is shown);
* peak memory: ``ru_maxrss`` of the process (each run gets a fresh process)
  and, with ``--tracemalloc``, the peak of Python allocations while
  deploying (slower: off by default).

Each run uses a fresh SQLite database (WAL, the embedded default) in a
temporary directory, a started ConductorManager reached through the RPC API
in embedded mode, and nodes created, managed and provided through the
conductor the way a user would.  The nodes use ``bench-hardware``, a
hardware type defined here: its deploy interface offers S synchronous no-op
deploy steps and, in the ``async`` variant, one more step completed by the
fake agent (``[fake] agent_delay = 0``).  It is registered by replacing
``driver_factory._load`` for the names it uses; fine for a benchmark.

Usage::

    .venv/bin/python benchmarks/conductor_throughput.py \\
        --nodes 100,1000,5000 --steps 10 --workers 100 --variants sync,async \\
        --history on,off

``--profile DIR`` writes a cProfile of the deploy phase (every thread that
takes part) to ``DIR/<variant>-<N>.pstats`` and prints its top functions.
"""

import argparse
import concurrent.futures
import cProfile
import dataclasses
import functools
import io
import json
import logging
import multiprocessing
import os
import platform
import pstats
import resource
import sqlite3
import sys
import tempfile
import threading
import time
import tracemalloc
import types

import sqlalchemy as sa

from ironic_steps.common import context as context_mod
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import manager as manager_mod
from ironic_steps.conductor import rpcapi
from ironic_steps.conductor import step_history
from ironic_steps.conductor import workers
from ironic_steps.conf import CONF
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.drivers import base
from ironic_steps.drivers import driver_factory
from ironic_steps.drivers import hardware_type
from ironic_steps import fake_agent
from ironic_steps import objects

BENCH_TYPE = 'bench-hardware'
BENCH_INTERFACE = 'bench'
VARIANTS = ('sync', 'async')
_FAILED_STATES = (states.DEPLOYFAIL, states.CLEANFAIL, states.ERROR)


@dataclasses.dataclass(frozen=True)
class Settings:
    """One run: a variant at one node count."""

    nodes: int
    steps: int
    workers: int
    variant: str
    retry_interval: float
    timeout: float
    tracemalloc: bool
    profile_dir: str | None
    #: Whether step history (and progress) is written: off runs as if
    #: pinned to release 0.5, from before them.
    history: bool = True


# --- the benchmark hardware type ---------------------------------------------

def _sync_step():
    # A new function per step: the decorator records its mark on it.
    def step(self, task):
        """A no-op: measures what the conductor costs around a step."""
    return step


def _async_step(self, task):
    """Hand over to the fake agent, which heartbeats to resume the deploy."""
    fake_agent.running().expect_heartbeat(
        task.node.uuid, task.node.driver_internal_info['deploy_step_index'])
    return states.DEPLOYWAIT


def make_deploy_interface(sync_steps, with_async_step):
    """A deploy interface with ``sync_steps`` steps (+1 asynchronous).

    Priorities 10*S ... 10 for the synchronous steps; the asynchronous one
    sits in the middle at 5*S + 5, which no synchronous step can tie.
    """
    namespace = {'step_%03d' % i: base.deploy_step(
        priority=10 * (sync_steps - i))(_sync_step())
        for i in range(sync_steps)}
    if with_async_step:
        namespace['wait_for_agent'] = base.deploy_step(
            priority=5 * sync_steps + 5)(_async_step)
    return type('BenchDeploy', (base.DeployInterface,), namespace)


class BenchPower(base.PowerInterface):
    """Power that answers at once; no steps of its own."""

    def get_power_state(self, task):
        return task.node.power_state or states.POWER_OFF

    def set_power_state(self, task, power_state):
        task.node.power_state = power_state


class BenchHardware(hardware_type.AbstractHardwareType):
    supported_interfaces = types.MappingProxyType({
        'deploy': (BENCH_INTERFACE,),
        'power': (BENCH_INTERFACE,),
    })


def register_bench_driver(deploy_cls):
    """Make the driver factory load the bench classes for their names."""
    classes = {
        (driver_factory.HARDWARE_TYPES_NAMESPACE, BENCH_TYPE): BenchHardware,
        (driver_factory.INTERFACES_NAMESPACE % 'deploy', BENCH_INTERFACE):
            deploy_cls,
        (driver_factory.INTERFACES_NAMESPACE % 'power', BENCH_INTERFACE):
            BenchPower,
    }
    entry_point_load = driver_factory._load

    def load(namespace, name):
        cls = classes.get((namespace, name))
        return cls() if cls else entry_point_load(namespace, name)

    driver_factory._load = load
    driver_factory._cached.cache_clear()
    # Not an installed entry point: the conductor would serve nothing.
    driver_factory.enabled_hardware_types = lambda: [BENCH_TYPE]


# --- measuring ---------------------------------------------------------------

class StatementCounter:
    """Counts SQL statements, writes and explicit transactions while active.

    A multi-statement SQLite transaction opens with an explicit ``BEGIN``,
    counted as a transaction, not as a statement.  Lone statements (node
    reads, locks, transitions) run without one.  The database API hands
    its BEGINs to the driver's connection, past SQLAlchemy's events: they
    are counted from SQLite's own trace of each connection lent out.
    """

    _WRITES = ('INSERT', 'UPDATE', 'DELETE')
    _HISTORY_TABLE = 'node_step_history'

    def __init__(self):
        self.statements = 0
        self.writes = 0
        self.transactions = 0
        self.history = 0
        self.active = False
        self._lock = threading.Lock()
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._on_statement)
        sa.event.listen(sa.pool.Pool, 'checkout', self._trace_driver)

    def _trace_driver(self, dbapi_connection, *_):
        if hasattr(dbapi_connection, 'set_trace_callback'):   # SQLite
            dbapi_connection.set_trace_callback(self._on_driver_statement)

    def _on_driver_statement(self, statement):
        if self.active and statement == 'BEGIN':
            with self._lock:
                self.transactions += 1

    def _on_statement(self, conn, cursor, statement, *args):
        if self.active and statement != 'BEGIN':
            with self._lock:
                self.statements += 1
                if statement.lstrip().upper().startswith(self._WRITES):
                    self.writes += 1
                if self._HISTORY_TABLE in statement:
                    self.history += 1


class ThreadProfiles:
    """One cProfile per thread (cProfile sees only its own thread)."""

    def __init__(self):
        self._local = threading.local()
        self._profiles = []
        self._lock = threading.Lock()

    def wrap(self, fn):
        @functools.wraps(fn)
        def profiled(*args, **kwargs):
            profile = getattr(self._local, 'profile', None)
            if profile is None:
                profile = self._local.profile = cProfile.Profile()
                with self._lock:
                    self._profiles.append(profile)
            profile.enable()
            try:
                return fn(*args, **kwargs)
            finally:
                profile.disable()
        return profiled

    def install(self):
        """Profile the worker threads and the fake agent's senders."""
        workers.WorkerPool._run = self.wrap(workers.WorkerPool._run)
        fake_agent.FakeAgent._heartbeat = self.wrap(
            fake_agent.FakeAgent._heartbeat)

    def report(self, path, top=25):
        stats = pstats.Stats(self._profiles[0])
        for profile in self._profiles[1:]:
            stats.add(profile)
        stats.dump_stats(path)
        out = io.StringIO()
        stats.stream = out
        stats.sort_stats('cumulative').print_stats(top)
        stats.sort_stats('tottime').print_stats(top)
        return out.getvalue()


class NodeStates:
    """Reads node states with plain sqlite3: not counted, not in the way."""

    def __init__(self, db_path):
        self._path = db_path

    def resting(self):
        """{provision_state: count} of the nodes whose lock is free."""
        with sqlite3.connect(self._path) as db:
            return dict(db.execute(
                'SELECT provision_state, count(*) FROM nodes '
                'WHERE reservation IS NULL GROUP BY provision_state'))

    def an_error(self):
        """(uuid, state, last_error) of one node with an error, or None."""
        with sqlite3.connect(self._path) as db:
            return db.execute('SELECT uuid, provision_state, last_error '
                              'FROM nodes WHERE last_error IS NOT NULL '
                              'LIMIT 1').fetchone()

    def wait_until_all(self, state, count, timeout, allow_failures=False,
                       poll=0.05):
        """Wait until ``count`` nodes rest in ``state`` (or failed).

        :param allow_failures: count failed nodes as settled instead of
            raising at the first one.
        :returns: how many nodes failed.
        """
        deadline = time.monotonic() + timeout
        while True:
            resting = self.resting()
            failed = sum(resting.get(s, 0) for s in _FAILED_STATES)
            if failed and not allow_failures:
                raise RuntimeError('Nodes failed: %s; e.g. %s'
                                   % (resting, self.an_error()))
            if resting.get(state, 0) + failed == count:
                return failed
            if time.monotonic() > deadline:
                raise RuntimeError('Not all %d nodes %s after %ss: %s'
                                   % (count, state, timeout, resting))
            time.sleep(poll)


# --- one run -----------------------------------------------------------------

def configure(settings, state_dir):
    """Options, logging and a fresh migrated database; its file path."""
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger().setLevel(logging.WARNING)
    CONF([], project='ironic-steps', default_config_files=[])
    CONF.set_override('host', 'bench-conductor')
    CONF.set_override('state_path', state_dir)
    CONF.set_override('enabled_hardware_types', [BENCH_TYPE])
    CONF.set_override('workers_pool_size', settings.workers,
                      group='conductor')
    CONF.set_override('agent_delay', 0, group='fake')
    if not settings.history:
        # As pinned to 0.5, before history and progress; a real pin would
        # also refuse the bench hardware type, which no release lists.
        step_history.enabled = lambda: False
    db_path = os.path.join(state_dir, 'ironic-steps.sqlite')
    sqlalchemy_api.configure(connection='sqlite:///%s' % db_path)
    migration.upgrade()
    return db_path


def submit_all(uuids, call, retry_interval):
    """``call(uuid)`` for every node, retrying while no worker is free.

    :returns: how many calls were refused with NoFreeConductorWorker.
    """
    refused = 0
    for uuid in uuids:
        while True:
            try:
                call(uuid)
                break
            except exception.NoFreeConductorWorker:
                refused += 1
                time.sleep(retry_interval)
    return refused


def prepare_nodes(api, context, settings, node_states):
    """Create nodes and bring them to ``available`` like a user would."""
    uuids = [api.create_node(context, objects.Node(
        context, driver=BENCH_TYPE)).uuid for _ in range(settings.nodes)]
    for action, state in (('manage', states.MANAGEABLE),
                          ('provide', states.AVAILABLE)):
        submit_all(uuids, functools.partial(
            api.do_provisioning_action, context, action=action),
            settings.retry_interval)
        node_states.wait_until_all(state, settings.nodes, settings.timeout)
    return uuids


def deploy_nodes(api, context, uuids, settings, node_states, counter):
    """Deploy every node and wait until all are active; the measurements."""
    submit = functools.partial(api.do_node_deploy, context)
    profiles = None
    if settings.profile_dir:
        profiles = ThreadProfiles()
        profiles.install()
        submit = profiles.wrap(submit)
    if settings.tracemalloc:
        tracemalloc.start()
    counter.active = True
    started, cpu_started = time.perf_counter(), time.process_time()
    refused = submit_all(uuids, submit, settings.retry_interval)
    submitted = time.perf_counter()
    # A failed deploy is a finding, not a reason to lose the figures.
    failed = node_states.wait_until_all(states.ACTIVE, settings.nodes,
                                        settings.timeout,
                                        allow_failures=True)
    finished, cpu_finished = time.perf_counter(), time.process_time()
    counter.active = False
    measured = {'deploy_s': finished - started,
                'submit_s': submitted - started,
                # CPU seconds of every thread per second: 1.0 = one core.
                'cpu_cores': ((cpu_finished - cpu_started)
                              / (finished - started)),
                'refused': refused,
                'failed': failed}
    if failed:
        measured['an_error'] = node_states.an_error()
    if settings.tracemalloc:
        measured['tracemalloc_peak_mib'] = (
            tracemalloc.get_traced_memory()[1] / 2 ** 20)
        tracemalloc.stop()
    if profiles:
        os.makedirs(settings.profile_dir, exist_ok=True)
        path = os.path.join(settings.profile_dir, '%s-%d.pstats' % (
            settings.variant, settings.nodes))
        print(profiles.report(path), file=sys.stderr)
    return measured


def run_one(settings):
    """Set up, deploy and measure one run; returns the result dict."""
    with tempfile.TemporaryDirectory(prefix='ironic-steps-bench-') as tmp:
        db_path = configure(settings, tmp)
        register_bench_driver(make_deploy_interface(
            settings.steps, settings.variant == 'async'))
        counter = StatementCounter()
        context = context_mod.get_admin_context()
        manager = manager_mod.ConductorManager()
        manager.start(context)
        fake_agent.start()
        rpcapi.set_local_manager(manager)
        api = rpcapi.ConductorAPI()
        node_states = NodeStates(db_path)
        try:
            setup_started = time.perf_counter()
            uuids = prepare_nodes(api, context, settings, node_states)
            setup_s = time.perf_counter() - setup_started
            measured = deploy_nodes(api, context, uuids, settings,
                                    node_states, counter)
        finally:
            # Stopping also stops the fake agent, whose last heartbeats
            # still need the manager.
            manager.stop(feeders=(fake_agent.stop,))
            rpcapi.set_local_manager(None)
    steps_per_node = settings.steps + (settings.variant == 'async')
    transitions = settings.nodes * steps_per_node
    deploy_s = measured.pop('deploy_s')
    return {
        'variant': settings.variant,
        'history': 'on' if settings.history else 'off',
        'nodes': settings.nodes,
        'steps_per_node': steps_per_node,
        'workers': settings.workers,
        'setup_s': round(setup_s, 2),
        'deploy_s': round(deploy_s, 2),
        'nodes_per_s': round(settings.nodes / deploy_s, 1),
        'step_transitions_per_s': round(transitions / deploy_s, 1),
        'statements_per_node': round(counter.statements / settings.nodes, 2),
        'statements_per_step': round(counter.statements / transitions, 2),
        'history_statements_per_step': round(
            counter.history / transitions, 2),
        'writes_per_node': round(counter.writes / settings.nodes, 2),
        'writes_per_step': round(counter.writes / transitions, 2),
        'transactions_per_node': round(
            counter.transactions / settings.nodes, 2),
        # Linux reports ru_maxrss in KiB.
        'max_rss_mib': round(resource.getrusage(
            resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        **{k: round(v, 2) if isinstance(v, float) else v
           for k, v in measured.items()},
    }


def run_isolated(settings):
    """``run_one`` in a fresh process: own peak RSS, own global state."""
    spawn = multiprocessing.get_context('spawn')
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=spawn) as executor:
        return executor.submit(run_one, settings).result()


# --- command line ------------------------------------------------------------

COLUMNS = (('variant', '%-7s'), ('history', '%-3s'), ('nodes', '%6d'),
           ('steps_per_node', '%5d'),
           ('setup_s', '%8.1f'), ('deploy_s', '%8.1f'),
           ('nodes_per_s', '%8.1f'), ('step_transitions_per_s', '%10.1f'),
           ('refused', '%8d'), ('failed', '%6d'),
           ('statements_per_node', '%9.1f'),
           ('statements_per_step', '%9.2f'),
           ('history_statements_per_step', '%9.2f'),
           ('writes_per_node', '%8.1f'), ('writes_per_step', '%8.2f'),
           ('transactions_per_node', '%9.1f'), ('cpu_cores', '%4.2f'),
           ('max_rss_mib', '%8.1f'))
HEADERS = ('variant', 'history', 'nodes', 'steps', 'setup s', 'deploy s',
           'nodes/s', 'steps/s', 'refused', 'failed', 'stmt/node',
           'stmt/step', 'hist/step',
           'wr/node', 'wr/step', 'begin/node', 'cpu', 'rss MiB')


def format_table(results):
    """The results as a fixed-width table, one row per run."""
    rows = [HEADERS] + [tuple(fmt % result[key] for key, fmt in COLUMNS)
                        for result in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADERS))]
    lines = [' '.join(cell.rjust(width) for cell, width in zip(row, widths))
             for row in rows]
    for r in results:
        if r.get('an_error'):
            lines.append('%s/%d: %d deploys failed, e.g. %s' % (
                r['variant'], r['nodes'], r['failed'], r['an_error']))
    if any('tracemalloc_peak_mib' in r for r in results):
        lines.append('tracemalloc peak while deploying (MiB): ' + ', '.join(
            '%s/%d: %.1f' % (r['variant'], r['nodes'],
                             r['tracemalloc_peak_mib'])
            for r in results if 'tracemalloc_peak_mib' in r))
    return '\n'.join(lines)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', default='100,1000,5000',
                        help='Comma-separated node counts (default: '
                             '%(default)s).')
    parser.add_argument('--steps', type=int, default=10,
                        help='Synchronous deploy steps per node (default: '
                             '%(default)s).')
    parser.add_argument('--workers', type=int,
                        default=CONF.conductor.workers_pool_size,
                        help='[conductor] workers_pool_size (default: '
                             '%(default)s, the configuration default).')
    parser.add_argument('--variants', default='sync,async',
                        help='sync: only synchronous steps; async: plus one '
                             'step the fake agent completes (default: '
                             '%(default)s).')
    parser.add_argument('--history', default='on',
                        help='Comma-separated: on (step history written) '
                             'and/or off (as pinned to 0.5, before it); '
                             'default: %(default)s.')
    parser.add_argument('--retry-interval', type=float, default=0.005,
                        help='Seconds to wait after NoFreeConductorWorker '
                             '(default: %(default)s).')
    parser.add_argument('--timeout', type=float, default=1800,
                        help='Seconds each phase may take (default: '
                             '%(default)s).')
    parser.add_argument('--tracemalloc', action='store_true',
                        help='Also report the tracemalloc peak while '
                             'deploying (slows the run down).')
    parser.add_argument('--profile', metavar='DIR',
                        help='cProfile the deploy phase into DIR.')
    parser.add_argument('--in-process', action='store_true',
                        help='Run everything in this process (peak RSS is '
                             'then cumulative across runs).')
    args = parser.parse_args(argv)
    variants = args.variants.split(',')
    histories = args.history.split(',')
    if set(histories) - {'on', 'off'}:
        parser.error('--history takes on and/or off, got %s'
                     % args.history)
    unknown = set(variants) - set(VARIANTS)
    if unknown or args.steps < 1 or args.workers < 1:
        parser.error('--variants takes %s (got %s); --steps and --workers '
                     'must be positive' % (', '.join(VARIANTS),
                                           ', '.join(sorted(unknown))))
    return (args, [int(n) for n in args.nodes.split(',')], variants,
            [history == 'on' for history in histories])


def main(argv=None):
    args, node_counts, variants, histories = parse_args(argv)
    run = run_one if args.in_process else run_isolated
    print('# ironic-steps conductor throughput: %d CPUs, Python %s, %s'
          % (os.cpu_count(), platform.python_version(),
             time.strftime('%Y-%m-%d')), flush=True)
    results = []
    for nodes in node_counts:
        for variant in variants:
            for history in histories:
                result = run(Settings(
                    nodes=nodes, steps=args.steps, workers=args.workers,
                    variant=variant, retry_interval=args.retry_interval,
                    timeout=args.timeout, tracemalloc=args.tracemalloc,
                    profile_dir=args.profile, history=history))
                results.append(result)
                print(json.dumps(result, sort_keys=True), flush=True)
    print(format_table(results))


if __name__ == '__main__':
    main()
