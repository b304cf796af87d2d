#!/usr/bin/env python3
"""Redfish deploys with a BIOS + RAID template, against emulated BMCs.

N nodes of the ``redfish`` hardware type, each a system of the Redfish
emulator (``tests/redfish_emulator``: one process, or ``--emulators K``
processes sharing the systems), deployed by ironic-steps alone over its
REST API (1.69) on a fresh ``compare_with_ironic.OurService`` (fresh
SQLite state directory).  Each repetition runs every variant once:

* ``plain``: the ``ramdisk`` deploy (``instance_info.boot_iso``, an http
  URL, inserted as virtual media, boot once from CD, power on);
* ``template``: the same plus a deploy template ``CUSTOM_BENCH_REDFISH``:
  ``bios.apply_configuration`` with 2 settings and
  ``raid.apply_configuration`` building one RAID1 and one RAID0 volume.
  Both steps are polled by the conductor's ``StepPoller``.

Untimed setup: template, nodes enrolled, managed, provided, traits.  Timed:
first deploy request (C in flight) to the list poll that sees the last node
``active``, with the service's and the emulators' CPU.  BMC calls: the
emulator's own request counter (``tests/redfish_emulator/counters.py``,
``GET /emulator/requests``), reset before the first deploy request and
read when the last node is active, so each call made by the deploy phase,
and nothing else, is counted (``[conductor] sync_power_state_interval`` is
0 so the power sync adds none).  Afterwards every node must show what it
was asked for on its BMC (BIOS attributes, both volumes; the ISO inserted).

``--systems ironic-steps,ironic``: each node count and variant runs on
ironic-steps, then on OpenStack Ironic 39 (``~/ironic-anchor/venv``,
``ironic-redfish.conf``, started and stopped by PID through
``/work/shared/bench/start_ironic_anchor.sh``), each on fresh emulators;
the template's steps then run before ``deploy.deploy`` on both (see
``STEPS_BEFORE_DEPLOY``) and the ratios are printed.  benchmarks/README.md, "Ironic
39's redfish against the same emulator", says what else differs.

``--poller``: the poller's own cost, in-process (the way
``conductor_throughput.py`` runs a conductor): a started ConductorManager
on a fresh SQLite file, ``--poller-nodes`` redfish nodes deployed with the
template against an emulator whose volumes take an hour, so every node
waits on its RAID step; then ``--poller-runs`` calls of ``StepPoller.run``
(the periodic task's body; its own period set to an hour so it never fires
by itself), each followed by waiting for its checks to end.  Per run: the
process's CPU time, SQL statements (a SQLAlchemy event), the emulator's
requests and CPU; divided by the checks run (``_check`` calls, counted by
wrapping that bound method of the one poller: fine for a benchmark).  A
second pass on an emulator with ``--volume-seconds`` runs the poller every
``--step-poll-interval`` until all nodes are active: how many runs and
checks a node needed, and CPU and SQL per check including the flow work a
finished check goes on with.  JSON lines to
``results/<date>-redfish-deploys.jsonl``.  Example::

    .venv/bin/python benchmarks/redfish_deploys.py --nodes 100 --poller
"""

import argparse
import datetime
import functools
import json
import math
import os
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))   # tests.redfish_emulator

import compare_with_ironic as cwi  # noqa: E402
import template_deploys as td  # noqa: E402
from tests.redfish_emulator import RedfishEmulator  # noqa: E402

TEMPLATE = 'CUSTOM_BENCH_REDFISH'
BOOT_ISO = 'http://127.0.0.1:9/images/bench.iso'
BIOS_SETTINGS = [{'name': 'ProcTurboMode', 'value': 'Disabled'},
                 {'name': 'SriovEnable', 'value': 'Enabled'}]
RAID_LAYOUT = {'logical_disks': [
    {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True,
     'volume_name': 'root'},
    {'size_gb': 200, 'raid_level': '0', 'volume_name': 'scratch'}]}
STEPS = [{'interface': 'bios', 'step': 'apply_configuration', 'priority': 95,
          'args': {'settings': BIOS_SETTINGS}},
         {'interface': 'raid', 'step': 'apply_configuration', 'priority': 90,
          'args': {'raid_config': RAID_LAYOUT}}]
VARIANTS = ('plain', 'template')
WAITING_FOR_RAID = 'check_volumes'
SYSTEMS = (cwi.OURS, 'ironic')
IRONIC_CONF = os.path.join(HERE, 'ironic-redfish.conf')
# Ironic boots "the agent" from this ISO whenever a BIOS or RAID step
# reboots the node; the emulator only records the URL, like BOOT_ISO.
AGENT_ISO = 'http://127.0.0.1:9/images/agent.iso'
# Side by side, both systems set BIOS and build RAID before deploy.deploy
# (priority 100) boots the image: after it, Ironic's reboots for these
# steps would leave the agent ISO in the drive of an active node.
STEPS_BEFORE_DEPLOY = (150, 140)


# --- emulators ----------------------------------------------------------------

class Bmcs:
    """K emulator processes holding N systems; node i is system i of them."""

    def __init__(self, nodes, count, volume_seconds, power_delay):
        per = math.ceil(nodes / count)
        self.emulators = [RedfishEmulator(
            systems=per, power_delay=power_delay,
            volume_seconds=volume_seconds) for _ in range(count)]
        self.nodes = nodes

    def __enter__(self):
        for emulator in self.emulators:
            emulator.setUp()
        return self

    def __exit__(self, *exc):
        for emulator in self.emulators:
            emulator.cleanUp()

    def of(self, index):
        """(emulator, system id) of node ``index``."""
        emulator = self.emulators[index % len(self.emulators)]
        return emulator, emulator.system_ids[index // len(self.emulators)]

    def driver_info(self, index, system=cwi.OURS):
        emulator, system_id = self.of(index)
        if system == cwi.OURS:
            return {'redfish_address': emulator.address,
                    'redfish_system_id': system_id}
        # Ironic takes the system's path, and an ISO for its agent boots.
        return {'redfish_address': emulator.address,
                'redfish_system_id': '/redfish/v1/Systems/' + system_id,
                'deploy_iso': AGENT_ISO}

    def cpu(self):
        return {e.process.pid: cwi.cpu_snapshot(e.process.pid)
                for e in self.emulators}

    @staticmethod
    def cpu_since(before, after):
        return sum(cwi.cpu_delta(before[pid], after[pid]) for pid in before)

    def reset_counts(self):
        for emulator in self.emulators:
            emulator.reset_request_counts()

    def counts(self):
        """Requests served since the reset, summed over the emulators."""
        total = {'total': 0, 'by_method': {}, 'by_route': {}}
        for emulator in self.emulators:
            counts = emulator.request_counts()
            total['total'] += counts['total']
            for key in ('by_method', 'by_route'):
                for name, n in counts[key].items():
                    total[key][name] = total[key].get(name, 0) + n
        return total

    def check(self, index, templated):
        """What node ``index``'s BMC shows is what its deploy asked for."""
        emulator, system_id = self.of(index)
        media = emulator.virtual_media(system_id)
        problems = []
        if media['Image'] != BOOT_ISO or not media['Inserted']:
            problems.append('virtual media %r' % media)
        if emulator.power_state(system_id) != 'On':
            problems.append('powered off')
        if templated:
            attributes = emulator.bios_attributes(system_id)
            for setting in BIOS_SETTINGS:
                if attributes.get(setting['name']) != setting['value']:
                    problems.append('BIOS %(name)s' % setting)
            volumes = sorted((v['Name'], v['RAIDType'])
                             for v in emulator.volumes(system_id))
            if volumes != [('root', 'RAID1'), ('scratch', 'RAID0')]:
                problems.append('volumes %r' % volumes)
        if problems:
            raise td.RunFailed('system %s of %s: %s' % (
                system_id, emulator.address, '; '.join(problems)))


def per_node(counts, nodes):
    return {'bmc_calls_per_node': round(counts['total'] / nodes, 2),
            'bmc_calls_per_node_by_method': {
                m: round(n / nodes, 2)
                for m, n in sorted(counts['by_method'].items())},
            'bmc_calls_per_node_by_route': {
                r: round(n / nodes, 2)
                for r, n in sorted(counts['by_route'].items())}}


# --- the REST run -------------------------------------------------------------

def service_conf(args, state_dir):
    """Layered on OurService's configuration."""
    path = os.path.join(state_dir, 'redfish-bench.conf')
    with open(path, 'w') as fh:
        fh.write('[conductor]\nstep_poll_interval = %s\n'
                 'sync_power_state_interval = 0\n'
                 '[redfish]\npower_state_poll_interval = %s\n'
                 % (args.step_poll_interval, args.power_poll_interval))
    return path


def template_steps(system, side_by_side):
    """The template's steps as ``system`` is given them."""
    steps = [dict(step) for step in STEPS]
    if side_by_side:
        for step, priority in zip(steps, STEPS_BEFORE_DEPLOY):
            step['priority'] = priority
    if system != cwi.OURS:
        # Ironic's deploy step builds only the root volume by default.
        steps[1]['args'] = dict(steps[1]['args'], create_nonroot_volumes=True)
    return steps


def setup(api, bmcs, variant, nodes, system=cwi.OURS, side_by_side=False):
    if variant == 'template':
        api('POST', '/v1/deploy_templates', {
            'name': TEMPLATE, 'steps': template_steps(system, side_by_side)})
    ironic = system != cwi.OURS
    uuids = [node['uuid'] for node in api.each(
        lambda i: api('POST', '/v1/nodes', dict({
            'driver': 'redfish', 'name': 'rf-%05d' % i,
            'deploy_interface': 'ramdisk',
            'driver_info': bmcs.driver_info(i, system),
            'instance_info': dict({'boot_iso': BOOT_ISO}, **(
                {'traits': [TEMPLATE]} if variant == 'template' else {}))},
            # Provide without cleaning: it would wait for an agent.
            **({'automated_clean': False} if ironic else {}))),
        range(nodes))]
    for target, want in (('manage', 'manageable'), ('provide', 'available')):
        api.each(lambda u: api('PUT', '/v1/nodes/%s/states/provision' % u,
                               {'target': target}), uuids)
        api.wait_for(uuids, want)
    if variant == 'template':
        # Ironic answers two trait PUTs at once with 500 "database is
        # locked" (SQLite, even in WAL mode): one at a time there.
        td.Api(api.endpoint, 1 if ironic else api.concurrency).each(
            lambda u: api('PUT', '/v1/nodes/%s/traits/%s' % (u, TEMPLATE)),
            uuids)
    if ironic:
        # Only a node whose cleaning is on "needs an agent ramdisk", and
        # only then does Ironic's boot interface read deploy_iso, which
        # the reboots of its BIOS and RAID deploy steps need
        # (deploy_utils.needs_agent_ramdisk, redfish boot
        # _parse_driver_info): without this they fail with "Unable to find
        # kernel, ramdisk for building ISO, or explicit ISO".
        api.each(lambda u: api('PATCH', '/v1/nodes/%s' % u, [{
            'op': 'replace', 'path': '/automated_clean', 'value': True}]),
            uuids)
    return uuids


class IronicRedfish(cwi.IronicAnchor):
    """OpenStack Ironic 39 with ironic-redfish.conf, through the shared
    start/stop scripts (fresh SQLite, stopped by the PID they started)."""

    def __init__(self, args):
        super().__init__(args, tuned=False)

    def _env(self):
        # WAL as Ironic means to set it (its listener does not fire with
        # SQLAlchemy 2.1, see /work/shared/bench/README.md); in rollback
        # mode concurrent trait PUTs answer 500 "database is locked".
        return dict(super()._env(), IRONIC_CONF=IRONIC_CONF,
                    IRONIC_SQLITE_WAL='1')


def make_service(args, system, scratch):
    if system == cwi.OURS:
        return cwi.OurService(argparse.Namespace(**dict(
            vars(args), ironic_steps_extra_conf=service_conf(args,
                                                             scratch))))
    return IronicRedfish(args)


def run_one(args, variant, rep, scratch, system=cwi.OURS):
    side_by_side = len(args.systems) > 1
    cwi.log('%s %s rep %s: starting, N=%d on %d emulator(s)'
            % (system, variant, rep, args.nodes, args.emulators))
    with Bmcs(args.nodes, args.emulators, args.volume_seconds,
              args.power_delay) as bmcs:
        service = make_service(args, system, scratch)
        code, load, result = cwi.git_state(), os.getloadavg()[0], None
        try:
            service.start()
            time.sleep(3)   # let the service settle, as the others do
            api = td.Api(service.endpoint, args.concurrency)
            t0 = time.monotonic()
            setup(api, bmcs, variant, args.nodes, system, side_by_side)
            setup_s = time.monotonic() - t0
            uuids = [n['uuid'] for n in sorted(
                api.nodes('uuid,name'), key=lambda n: n['name'])]
            bmcs.reset_counts()
            bmc_cpu0 = bmcs.cpu()
            seconds, cpu, plan = td.deploy(api, service.pid, uuids,
                                           {'target': 'active'})
            bmc_cpu = bmcs.cpu_since(bmc_cpu0, bmcs.cpu())
            counts = bmcs.counts()
            for index in range(args.nodes):
                bmcs.check(index, variant == 'template')
            result = dict({
                'benchmark': 'redfish-deploys', 'system': system,
                'variant': variant, 'steps_before_deploy': side_by_side,
                'rep': rep, 'nodes': args.nodes,
                'emulators': args.emulators,
                'concurrency': args.concurrency,
                'volume_seconds': args.volume_seconds,
                'power_delay': args.power_delay,
                'step_poll_interval': args.step_poll_interval,
                'power_state_poll_interval': args.power_poll_interval,
                'setup_s': round(setup_s, 2), 'deploy_s': round(seconds, 3),
                'nodes_per_s': round(args.nodes / seconds, 2),
                'plan': plan, 'server_cpu_s': round(cpu, 2),
                'emulator_cpu_s': round(bmc_cpu, 2),
                'bmc_calls': counts['total'],
                'loadavg_1m_at_start': load,
                'date': datetime.datetime.now().isoformat(timespec='seconds'),
                'git': code, 'machine': args.machine},
                **per_node(counts, args.nodes))
        finally:
            service.stop()
            service.cleanup(keep=result is None)
            if result is None:
                cwi.log('%s rep %s failed; state kept in %s'
                        % (variant, rep, service.state_dir))
    cwi.log('%(system)s %(variant)s: deploy %(deploy_s).2f s, '
            '%(nodes_per_s).2f nodes/s, %(bmc_calls_per_node).1f BMC '
            'calls/node, CPU service %(server_cpu_s).1f s, emulator '
            '%(emulator_cpu_s).1f s' % result)
    return result


# --- the poller, in-process ---------------------------------------------------

class Conductor:
    """A started ConductorManager on a fresh SQLite file (as in
    conductor_throughput.py), its poller's checks counted."""

    def __init__(self, state_dir, batch_size, power_poll_interval,
                 step_poll_interval):
        import logging

        from ironic_steps.common import context as context_mod
        from ironic_steps.conductor import manager as manager_mod
        from ironic_steps.conductor import rpcapi
        from ironic_steps.conf import CONF
        from ironic_steps.db import migration
        from ironic_steps.db.sqlalchemy import api as sqlalchemy_api

        logging.basicConfig(level=logging.WARNING)
        # The emulator has no SessionService; sushy says so per session.
        logging.getLogger('sushy').setLevel(logging.ERROR)
        CONF([], project='ironic-steps', default_config_files=[])
        CONF.set_override('host', 'bench-conductor')
        CONF.set_override('state_path', state_dir)
        CONF.set_override('step_poll_interval', 3600, group='conductor')
        CONF.set_override('step_poll_batch_size', batch_size,
                          group='conductor')
        CONF.set_override('sync_power_state_interval', 0, group='conductor')
        CONF.set_override('power_state_poll_interval', power_poll_interval,
                          group='redfish')
        sqlalchemy_api.configure(connection='sqlite:///%s' % os.path.join(
            state_dir, 'ironic-steps.sqlite'))
        migration.upgrade()
        self.context = context_mod.get_admin_context()
        self.manager = manager_mod.ConductorManager()
        self.manager.start(self.context)
        rpcapi.set_local_manager(self.manager)
        self.rpc = rpcapi.ConductorAPI()
        self._rpcapi = rpcapi
        # The periodic look was scheduled an hour apart (never, here); the
        # benchmark looks itself, with this interval between checks.
        CONF.set_override('step_poll_interval', step_poll_interval,
                          group='conductor')
        self.poller = self.manager._poller
        self.checks = 0
        self._lock = threading.Lock()
        check = self.poller._check

        @functools.wraps(check)
        def counted(task):
            with self._lock:
                self.checks += 1
            return check(task)
        self.poller._check = counted

    def stop(self):
        self.manager.stop()
        self._rpcapi.set_local_manager(None)

    def nodes(self):
        from ironic_steps import objects
        return objects.Node.list_fields(
            self.context, ('uuid', 'provision_state', 'driver_internal_info',
                           'last_error', 'reservation'))

    def wait(self, done, timeout=600, what='nodes'):
        deadline = time.monotonic() + timeout
        while True:
            rows = self.nodes()
            failed = [r for r in rows if r.provision_state.endswith('failed')]
            if failed:
                raise td.RunFailed('node %s %s: %s' % (
                    failed[0].uuid, failed[0].provision_state,
                    failed[0].last_error))
            if all(done(r) for r in rows):
                return rows
            if time.monotonic() > deadline:
                raise td.RunFailed('%s not ready after %d s' % (what,
                                                                timeout))
            time.sleep(0.05)

    def prepare(self, bmcs, nodes):
        """N redfish nodes, available, with the template; deploys sent."""
        from ironic_steps.common import states
        from ironic_steps import objects
        objects.DeployTemplate(self.context, name=TEMPLATE,
                               steps=STEPS).create()
        uuids = []
        for index in range(nodes):
            node = self.rpc.create_node(self.context, objects.Node(
                self.context, driver='redfish', deploy_interface='ramdisk',
                driver_info=bmcs.driver_info(index),
                instance_info={'boot_iso': BOOT_ISO, 'traits': [TEMPLATE]}))
            uuids.append(node.uuid)
        for action, state in (('manage', states.MANAGEABLE),
                              ('provide', states.AVAILABLE)):
            for uuid in uuids:
                self.rpc.do_provisioning_action(self.context, uuid, action)
            self.wait(lambda r, s=state: r.provision_state == s
                      and not r.reservation, what=state)
        for uuid in uuids:
            node = objects.Node.get(self.context, uuid)
            node.set_traits([TEMPLATE])
        for uuid in uuids:
            self.rpc.do_node_deploy(self.context, uuid)
        return uuids

    def one_run(self, counter, bmcs, leap=False):
        """One StepPoller.run and its checks: (cpu s, statements, checks,
        BMC calls, BMC cpu s).  ``leap``: an interval has passed, so every
        waiting node is due."""
        if leap:
            clock = self.poller.clock
            offset = getattr(clock, 'offset', 0.0) + 3600

            def leaped():
                return time.monotonic() + offset
            leaped.offset = offset
            self.poller.clock = leaped
        checks0 = self.checks
        bmcs.reset_counts()
        bmc_cpu0 = bmcs.cpu()
        counter.active, statements0 = True, counter.statements
        cpu0 = time.process_time()
        self.poller.run(self.context)
        while self.poller.running():
            time.sleep(0.001)
        cpu = time.process_time() - cpu0
        counter.active = False
        return (cpu, counter.statements - statements0,
                self.checks - checks0, bmcs.counts()['total'],
                bmcs.cpu_since(bmc_cpu0, bmcs.cpu()))


def waiting_on(row, method):
    """Whether a node row waits, unlocked, for the poll of ``method``."""
    from ironic_steps.drivers import base
    polling = (row.driver_internal_info or {}).get(base.POLLING_KEY) or {}
    return polling.get('method') == method and not row.reservation


def poller_cost(args):
    """Both passes of ``--poller``; one JSON line each."""
    import conductor_throughput as ct

    counter = ct.StatementCounter()
    results = []
    for phase in ('steady', 'to-active'):
        volume_seconds = (3600 if phase == 'steady' else args.volume_seconds)
        cwi.log('poller %s: %d nodes, volumes take %s s'
                % (phase, args.poller_nodes, volume_seconds))
        with tempfile.TemporaryDirectory(prefix='rf-poller-') as tmp, \
                Bmcs(args.poller_nodes, 1, volume_seconds,
                     args.power_delay) as bmcs:
            conductor = Conductor(tmp, args.poller_batch_size,
                                  args.power_poll_interval,
                                  args.step_poll_interval)
            try:
                conductor.prepare(bmcs, args.poller_nodes)
                if phase == 'steady':
                    results.append(steady(args, conductor, counter, bmcs))
                else:
                    results.append(to_active(args, conductor, counter, bmcs))
            finally:
                conductor.stop()
    return results


def steady(args, conductor, counter, bmcs):
    """Every node waits on its first volume; each check says not yet."""
    deadline = time.monotonic() + 600
    while not all(waiting_on(r, WAITING_FOR_RAID)
                  for r in conductor.nodes()):
        conductor.poller.run(conductor.context)   # the BIOS checks
        while conductor.poller.running():
            time.sleep(0.01)
        if time.monotonic() > deadline:
            raise td.RunFailed('nodes never all waited on their volumes')
        time.sleep(0.05)
    runs = [conductor.one_run(counter, bmcs, leap=True)
            for _ in range(args.poller_runs)]
    checks = sum(r[2] for r in runs)
    return {
        'benchmark': 'redfish-deploys', 'variant': 'poller-steady',
        'nodes_waiting': args.poller_nodes,
        'batch_size': args.poller_batch_size, 'runs': len(runs),
        'checks': checks,
        'checks_per_run': round(checks / len(runs), 1),
        'cpu_ms_per_check': round(1000 * sum(r[0] for r in runs) / checks, 2),
        'cpu_ms_per_run_median': round(1000 * statistics.median(
            r[0] for r in runs), 1),
        'statements_per_check': round(sum(r[1] for r in runs) / checks, 2),
        'bmc_calls_per_check': round(sum(r[3] for r in runs) / checks, 2),
        'emulator_cpu_ms_per_check': round(
            1000 * sum(r[4] for r in runs) / checks, 2),
        'date': datetime.datetime.now().isoformat(timespec='seconds'),
        'git': cwi.git_state(), 'machine': args.machine}


def to_active(args, conductor, counter, bmcs):
    """The poller's looks, spaced as the service spaces them, until all
    are active (the BIOS checks included)."""
    from ironic_steps.conductor import step_polling
    spacing = step_polling.look_spacing()
    runs, deadline = [], time.monotonic() + 900
    t0 = time.monotonic()
    while not all(r.provision_state == 'active' and not r.reservation
                  for r in conductor.nodes()):
        started = time.monotonic()
        runs.append(conductor.one_run(counter, bmcs))
        if time.monotonic() > deadline:
            raise td.RunFailed('nodes not active after 900 s')
        time.sleep(max(0.0, spacing - (time.monotonic() - started)))
    seconds = time.monotonic() - t0
    for index in range(args.poller_nodes):
        bmcs.check(index, True)
    checks = sum(r[2] for r in runs)
    useful = [r for r in runs if r[2]]
    return {
        'benchmark': 'redfish-deploys', 'variant': 'poller-to-active',
        'nodes': args.poller_nodes, 'batch_size': args.poller_batch_size,
        'volume_seconds': args.volume_seconds,
        'step_poll_interval': args.step_poll_interval,
        'seconds': round(seconds, 2), 'runs': len(runs),
        'runs_with_checks': len(useful), 'checks': checks,
        'checks_per_node': round(checks / args.poller_nodes, 2),
        'cpu_ms_per_check': round(1000 * sum(r[0] for r in runs) / checks, 2),
        'statements_per_check': round(sum(r[1] for r in runs) / checks, 2),
        'bmc_calls_per_check': round(sum(r[3] for r in runs) / checks, 2),
        'date': datetime.datetime.now().isoformat(timespec='seconds'),
        'git': cwi.git_state(), 'machine': args.machine}


# --- main -------------------------------------------------------------------

def print_table(rows):
    cols = ('system', 'variant', 'rep', 'nodes', 'deploy_s', 'nodes_per_s',
            'bmc_calls_per_node', 'server_cpu_s', 'emulator_cpu_s')
    print('| ' + ' | '.join(cols) + ' |\n|' + '---|' * len(cols))
    for row in rows:
        print('| ' + ' | '.join(str(row.get(c, '-')) for c in cols) + ' |')


def print_ratios(rows):
    """Ours over Ironic's, per variant, size and repetition."""
    runs = {(r['system'], r['variant'], r['nodes'], r['rep']): r
            for r in rows}
    keys = ('nodes_per_s', 'bmc_calls_per_node', 'server_cpu_s',
            'emulator_cpu_s')
    for (system, variant, nodes, rep), ours in sorted(runs.items()):
        theirs = runs.get(('ironic', variant, nodes, rep))
        if system != cwi.OURS or theirs is None:
            continue
        print('%s N=%d rep %d, ironic-steps / ironic: %s' % (
            variant, nodes, rep, ', '.join(
                '%s %.2f' % (k, ours[k] / theirs[k]) for k in keys
                if theirs[k])))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nodes', default='100',
                    help='node counts, comma-separated (20,100)')
    ap.add_argument('--systems', default=cwi.OURS,
                    help='%s, comma-separated; with both, each size runs '
                         'on each in turn and the template sets BIOS and '
                         'RAID before the deploy step' % ', '.join(SYSTEMS))
    ap.add_argument('--emulators', type=int, default=1,
                    help='emulator processes sharing the systems')
    ap.add_argument('--concurrency', type=int, default=8)
    ap.add_argument('--reps', type=int, default=1)
    ap.add_argument('--variants', default=','.join(VARIANTS))
    ap.add_argument('--volume-seconds', type=float, default=1.0,
                    help="the emulator's time to build a volume")
    ap.add_argument('--power-delay', type=float, default=0.0,
                    help="the emulator's delay before a power change shows")
    ap.add_argument('--step-poll-interval', type=float, default=1.0,
                    help='[conductor] step_poll_interval of the service '
                         '(its default is 10)')
    ap.add_argument('--power-poll-interval', type=float, default=0.1,
                    help='[redfish] power_state_poll_interval (default 1)')
    ap.add_argument('--poller', action='store_true',
                    help='measure the poller in-process too')
    ap.add_argument('--poller-only', action='store_true')
    ap.add_argument('--poller-nodes', type=int, default=100)
    ap.add_argument('--poller-runs', type=int, default=10)
    ap.add_argument('--poller-batch-size', type=int, default=20,
                    help='[conductor] step_poll_batch_size (default 20)')
    ap.add_argument('--out', default=os.path.join(
        HERE, 'results', '%s-redfish-deploys.jsonl'
        % datetime.date.today().isoformat()))
    args = ap.parse_args(argv)
    args.variants = [v for v in args.variants.split(',') if v]
    if set(args.variants) - set(VARIANTS):
        ap.error('--variants is among %s' % ', '.join(VARIANTS))
    args.systems = [s for s in args.systems.split(',') if s]
    if not args.systems or set(args.systems) - set(SYSTEMS):
        ap.error('--systems is among %s' % ', '.join(SYSTEMS))
    try:
        args.node_counts = [int(n) for n in args.nodes.split(',')]
    except ValueError:
        ap.error('--nodes takes counts separated by commas')
    args.nodes = args.node_counts[0]
    if min(args.node_counts + [args.reps, args.concurrency,
                               args.emulators]) < 1:
        ap.error('--nodes, --reps, --concurrency and --emulators must be '
                 'at least 1')
    return with_service_paths(args)


def with_service_paths(args):
    """``args`` with what ``make_service``'s two systems read besides the
    command line: the shipped pool size, where ironic-steps and Ironic 39
    are, and a state directory of Ironic's own."""
    args.workers_pool_size, args.start_timeout = None, 90.0
    venv_bin = os.path.join(cwi.REPO, '.venv', 'bin')
    args.ironic_steps = os.path.join(venv_bin, 'ironic-steps')
    args.ironic_steps_python = os.path.join(venv_bin, 'python')
    args.ironic_steps_extra_conf = None
    args.ironic_venv = os.path.expanduser('~/ironic-anchor/venv')
    args.bench_dir = cwi.DEFAULT_BENCH_DIR
    args.ironic_state_dir = tempfile.mkdtemp(prefix='rf-bench-ironic-')
    return args


def main(argv=None):
    args = parse_args(argv)
    args.machine = cwi.machine_info(args)
    if 'ironic' not in args.systems:
        args.machine.pop('python_ironic', None)
    results = []

    def keep(result):
        results.append(result)
        with open(args.out, 'a') as fh:
            fh.write(json.dumps(result) + '\n')

    if not args.poller_only:
        with tempfile.TemporaryDirectory(prefix='rf-bench-') as scratch:
            for rep in range(1, args.reps + 1):
                for nodes in args.node_counts:
                    for variant in args.variants:
                        for system in args.systems:
                            keep(run_one(argparse.Namespace(**dict(
                                vars(args), nodes=nodes)),
                                variant, rep, scratch, system))
    if args.poller or args.poller_only:
        for result in poller_cost(args):
            keep(result)
    print_table([r for r in results if 'deploy_s' in r])
    print_ratios([r for r in results if 'deploy_s' in r])
    for result in results:
        if result['variant'].startswith('poller'):
            print(json.dumps(result))
    print('\nJSON lines appended to %s' % args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
