#!/usr/bin/env python3
"""Servicing active redfish nodes with one BIOS step, ours vs Ironic 39.

N nodes (``--nodes``, default 100) of the ``redfish`` hardware type, each
a system of one Redfish emulator process (``tests/redfish_emulator``, the
same emulator ``redfish_deploys.py`` uses), are made ``active`` cheaply:
enrolled, managed and **adopted** (no deploy, no agent), untimed.  Then
each is serviced (API 1.108: ``target service`` with ``disable_ramdisk``)
with one step, ``bios.apply_configuration`` setting ``ProcTurboMode`` to
``Disabled``: the BMC takes the pending setting, the node reboots, and the
service polls until the BIOS shows it, then the node is ``active`` again.

Each repetition runs every system of ``--systems`` in turn, each on a
fresh emulator and a fresh service (SQLite):

* ``ironic-steps``: ``compare_with_ironic.OurService`` with the layered
  configuration of ``redfish_deploys.service_conf`` (``[conductor]
  step_poll_interval`` ``--step-poll-interval``, no power sync);
* ``ironic``: OpenStack Ironic 39 with ``ironic-redfish.conf`` (its BIOS
  apply status every ``firmware_update_status_interval`` = 1 s, no power
  sync), started and stopped by PID through the shared anchor scripts.

Timed: the first service request (``--concurrency`` in flight) to the list
poll that sees the last node resting: back in ``active`` with its
``provision_updated_at`` moved (so a node not yet picked up does not count
as done), or failed (counted, with its ``last_error``: Ironic on SQLite
fails some with "database is locked").  Measured in that window: Redfish
calls per node (the emulator's request counter, reset before the first
request), the service's CPU seconds (``/proc`` of the service's PID and
descendants) and the emulator's.  Afterwards the BMC of every node back in
``active`` must show the setting.  One JSON line per run goes to
``results/<date>-redfish-servicing.jsonl``; a table and the ratios ours /
Ironic, per repetition and on medians, are printed.  Example::

    .venv/bin/python benchmarks/redfish_servicing.py --nodes 100 --reps 2
"""

import argparse
import datetime
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare_with_ironic as cwi  # noqa: E402
import redfish_deploys as rd  # noqa: E402
import side_by_side  # noqa: E402
import template_deploys as td  # noqa: E402

SETTING = {'name': 'ProcTurboMode', 'value': 'Disabled'}
SERVICE_REQUEST = {
    'target': 'service', 'disable_ramdisk': True,
    'service_steps': [{'interface': 'bios', 'step': 'apply_configuration',
                       'args': {'settings': [SETTING]}}]}
#: Servicing without the agent's ramdisk (``disable_ramdisk``) is 1.108.
API_VERSION = '1.108'
TIMEOUT = 3600.0        # Ironic hashes the BMC password per Redfish access
#: Seconds a request may wait for its answer: Ironic's API answered a
#: manage request after more than 60 s while its conductor cached 100
#: nodes' BIOS settings.
ANSWER_TIMEOUT = 600


def make_active(api, bmcs, nodes, system):
    """N adopted redfish nodes: {uuid: (index, provision_updated_at)}."""
    uuids = [node['uuid'] for node in api.each(
        lambda i: api('POST', '/v1/nodes', {
            'driver': 'redfish', 'name': 'svc-%05d' % i,
            'driver_info': bmcs.driver_info(i, system),
            'instance_info': {'boot_iso': rd.BOOT_ISO}}),
        range(nodes))]
    for target, want in (('manage', 'manageable'), ('adopt', 'active')):
        api.each(lambda u: api('PUT', '/v1/nodes/%s/states/provision' % u,
                               {'target': target}), uuids)
        api.wait_for(uuids, want)
    return {node['uuid']: (int(node['name'].split('-')[1]),
                           node['provision_updated_at'])
            for node in api.nodes('uuid,name,provision_updated_at')}


def wait_serviced(api, before):
    """Poll the list until every node rests: back in ``active``, its
    provision state touched since ``before`` (a node not yet picked up
    is not done), or failed.  (When that was seen, {uuid: last_error} of
    the failed ones.)"""
    pending, failed = set(before), {}
    deadline = time.monotonic() + TIMEOUT
    while True:
        now = time.monotonic()
        for node in api.nodes('uuid,provision_state,target_provision_state,'
                              'provision_updated_at,last_error'):
            # A failed node keeps its target (Ironic's: active).
            if node['provision_state'].endswith('failed'):
                failed[node['uuid']] = node['last_error']
                pending.discard(node['uuid'])
            elif (node['provision_state'] == 'active'
                    and not node['target_provision_state']
                    and node['provision_updated_at']
                    != before[node['uuid']][1]):
                pending.discard(node['uuid'])
        if not pending:
            return now, failed
        if now > deadline:
            raise td.RunFailed('%d nodes not serviced after %d s'
                               % (len(pending), TIMEOUT))
        time.sleep(0.25)    # as deploy_workload.py polls


def check_bmcs(bmcs, indices):
    """The BMC of every node serviced shows the setting its step applied."""
    for index in indices:
        emulator, system_id = bmcs.of(index)
        shown = emulator.bios_attributes(system_id).get(SETTING['name'])
        if shown != SETTING['value']:
            raise td.RunFailed('system %s of %s: %s is %r' % (
                system_id, emulator.address, SETTING['name'], shown))


def failure_summary(failed):
    """{reason: nodes}: each failed node's last_error, its node UUID and
    the step's arguments taken out so that like failures count as one."""
    reasons = {}
    for uuid, error in failed.items():
        reason = re.sub(r'\{.*\}', '{step}', error or '')
        reason = reason.replace(uuid, '{node}')
        reason = re.sub(r' at 0x[0-9a-f]+', '', reason)
        reasons[reason] = reasons.get(reason, 0) + 1
    return reasons


def run_one(args, system, rep, scratch):
    cwi.log('%s rep %d: starting, N=%d' % (system, rep, args.nodes))
    with rd.Bmcs(args.nodes, 1, volume_seconds=1,
                 power_delay=args.power_delay) as bmcs:
        code, load = cwi.git_state(), os.getloadavg()[0]
        with side_by_side.running(rd.make_service(args, system, scratch),
                                  '%s rep %d' % (system, rep)) as service:
            api = td.Api(service.endpoint, args.concurrency,
                         version=API_VERSION, timeout=ANSWER_TIMEOUT)
            t0 = time.monotonic()
            # Ironic answers concurrent manage requests 500 "database is
            # locked" (SQLite, even in WAL mode): one at a time there.
            before = make_active(
                api if system == cwi.OURS else td.Api(
                    service.endpoint, 1, version=API_VERSION,
                    timeout=ANSWER_TIMEOUT),
                bmcs, args.nodes, system)
            setup_s = time.monotonic() - t0
            bmcs.reset_counts()
            bmc_cpu0, cpu0 = bmcs.cpu(), cwi.cpu_snapshot(service.pid)
            t0 = time.monotonic()
            api.each(lambda u: api('PUT', '/v1/nodes/%s/states/provision'
                                   % u, SERVICE_REQUEST), sorted(before))
            sent_s = time.monotonic() - t0
            rested, failed = wait_serviced(api, before)
            seconds = rested - t0
            cpu = cwi.cpu_delta(cpu0, cwi.cpu_snapshot(service.pid))
            bmc_cpu = bmcs.cpu_since(bmc_cpu0, bmcs.cpu())
            counts = bmcs.counts()
            check_bmcs(bmcs, [index for uuid, (index, _) in before.items()
                              if uuid not in failed])
            serviced = args.nodes - len(failed)
            result = dict({
                'benchmark': 'redfish-servicing', 'system': system,
                'rep': rep, 'nodes': args.nodes,
                'concurrency': args.concurrency,
                'step_poll_interval': args.step_poll_interval,
                'power_delay': args.power_delay,
                'setup_s': round(setup_s, 2),
                'requests_sent_s': round(sent_s, 2),
                'service_s': round(seconds, 2),
                'nodes_serviced': serviced, 'nodes_failed': len(failed),
                'failures': failure_summary(failed),
                'nodes_per_s': round(serviced / seconds, 3),
                'server_cpu_s': round(cpu, 2),
                'server_cpu_s_per_node': round(cpu / args.nodes, 3),
                'emulator_cpu_s': round(bmc_cpu, 2),
                'bmc_calls': counts['total'],
                'loadavg_1m_at_start': load,
                'date': datetime.datetime.now().isoformat(timespec='seconds'),
                'git': code, 'machine': args.machine},
                **rd.per_node(counts, args.nodes))
    cwi.log('%(system)s: all resting after %(service_s).1f s, '
            '%(nodes_failed)d failed, %(bmc_calls_per_node).1f BMC '
            'calls/node, service CPU %(server_cpu_s).1f s' % result)
    return result


COLUMNS = ('system', 'rep', 'nodes', 'nodes_failed', 'service_s',
           'nodes_per_s', 'bmc_calls_per_node', 'server_cpu_s',
           'server_cpu_s_per_node', 'emulator_cpu_s', 'loadavg_1m_at_start')
RATIOS = ('service_s', 'bmc_calls_per_node', 'server_cpu_s')


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nodes', type=int, default=100,
                    help='active redfish nodes to service (default 100)')
    ap.add_argument('--concurrency', type=int, default=8,
                    help='service requests in flight (default 8)')
    ap.add_argument('--step-poll-interval', type=float, default=1.0,
                    help="ironic-steps' [conductor] step_poll_interval "
                         "(default 1, as Ironic's BIOS check here)")
    ap.add_argument('--power-delay', type=float, default=0.0,
                    help="the emulator's delay before a power change shows")
    side_by_side.add_options(ap, 'redfish-servicing')
    args = ap.parse_args(argv)
    side_by_side.check_options(ap, args)
    if min(args.nodes, args.concurrency) < 1:
        ap.error('--nodes and --concurrency must be at least 1')
    # What rd.make_service reads: [redfish] power_state_poll_interval.
    args.power_poll_interval = 0.1
    return rd.with_service_paths(args)


def main(argv=None):
    args = parse_args(argv)
    args.machine = cwi.machine_info(args)
    with tempfile.TemporaryDirectory(prefix='rf-servicing-') as scratch:
        rows = side_by_side.run_all(args, lambda system, rep: [
            run_one(args, system, rep, scratch)])
    side_by_side.print_table(rows, COLUMNS)
    side_by_side.print_ratios(rows, ('nodes',), RATIOS)
    print('\nJSON lines appended to %s' % args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
