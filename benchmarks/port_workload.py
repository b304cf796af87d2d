#!/usr/bin/env python3
"""The shared deploy workload, port-heavy: each node enrolled with ports,
and the GETs spread over nodes and ports.

``deploy_workload.py`` (the shared bench directory, ``--bench-dir`` or
``$BENCH_DIR``) does everything as usual, with two changes:

* enroll: after each node's POST, ``--ports-per-node`` (default 2) ports
  are created for it (``POST /v1/ports``, locally administered MAC
  addresses unique to the run); ``enroll_s`` and ``enroll_req_*`` include
  them, ``ports`` counts those created;
* gets: the ``--gets`` requests go round-robin to ``GET /v1/nodes/{uuid}``,
  ``GET /v1/ports?detail=True`` and ``GET /v1/nodes/{uuid}/ports``; besides
  the overall ``get_*`` figures each kind has its own ``get_node_*``,
  ``get_ports_detail_*`` and ``get_node_ports_*`` percentiles.

Standard library only, like the workload it wraps.  Every other argument
is the workload's own, e.g.::

    python3 benchmarks/port_workload.py --endpoint http://127.0.0.1:6385 \\
        --nodes 100 --concurrency 8 --gets 1000

``compare_with_ironic.py --port-heavy`` runs it on every system.
"""

import importlib.util
import os
import sys
import threading
import time

DEFAULT_BENCH_DIR = os.environ.get('BENCH_DIR', '/work/shared/bench')
#: GET kinds, in round-robin order: (result prefix, path for a node UUID).
GET_KINDS = (
    ('get_node', '/v1/nodes/{uuid}'),
    ('get_ports_detail', '/v1/ports?detail=True'),
    ('get_node_ports', '/v1/nodes/{uuid}/ports'),
)


def _pop_option(argv, name, default):
    """``argv`` without ``name VALUE`` (or ``name=VALUE``), and the value."""
    rest, value, i = [], default, 0
    while i < len(argv):
        if argv[i] == name and i + 1 < len(argv):
            value, i = argv[i + 1], i + 2
            continue
        if argv[i].startswith(name + '='):
            value = argv[i].split('=', 1)[1]
        else:
            rest.append(argv[i])
        i += 1
    return rest, value


def load_workload(bench_dir):
    path = os.path.join(bench_dir, 'deploy_workload.py')
    spec = importlib.util.spec_from_file_location('deploy_workload', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mac_for(run_tag, node_index, port_index):
    """A locally administered MAC, unique per run, node and port."""
    value = (run_tag << 24) | (node_index << 4) | port_index
    octets = [0x02] + [(value >> shift) & 0xff for shift in (32, 24, 16, 8, 0)]
    return ':'.join('%02x' % octet for octet in octets)


def port_run_class(workload, ports_per_node):
    class PortRun(workload.Run):

        def enroll(self):
            t0 = time.monotonic()
            nodes, _, lats = super().enroll()
            tag = int(self.args.name_prefix.encode().hex()[-4:], 16)
            created = []

            def one(item):
                index, node = item
                for port in range(ports_per_node):
                    body = {'node_uuid': node['uuid'],
                            'address': mac_for(tag, index, port)}
                    try:
                        _, _, lat = self.client.request(
                            'POST', '/v1/ports', body, ok=(201,))
                        created.append(lat)
                    except workload.ApiError as exc:
                        self.fail(node['uuid'], 'enroll_ports', str(exc))

            self.pool_map(one, list(enumerate(nodes)),
                          self.args.concurrency)
            self.ports_created = len(created)
            return nodes, time.monotonic() - t0, lats + created

        def gets(self, uuids):
            if self.args.gets <= 0 or not uuids:
                return {'gets': 0}
            by_kind = {prefix: [] for prefix, _ in GET_KINDS}
            errors = [0]
            lock = threading.Lock()

            def one(i):
                prefix, template = GET_KINDS[i % len(GET_KINDS)]
                uuid = uuids[(i // len(GET_KINDS)) % len(uuids)]
                path = template.format(uuid=uuid)
                try:
                    _, _, lat = self.client.request('GET', path,
                                                    retry_status=())
                    with lock:
                        by_kind[prefix].append(lat)
                except workload.ApiError as exc:
                    with lock:
                        errors[0] += 1
                        if len(self.errors) < workload.MAX_ERROR_SAMPLES:
                            self.errors.append('get %s: %s' % (path, exc))

            workers = self.args.get_concurrency or self.args.concurrency
            t0 = time.monotonic()
            self.pool_map(one, range(self.args.gets), workers)
            elapsed = time.monotonic() - t0
            every = [lat for lats in by_kind.values() for lat in lats]
            out = {'gets': self.args.gets, 'get_concurrency': workers,
                   'get_errors': errors[0],
                   'gets_per_s': round(len(every) / elapsed, 2)
                   if elapsed > 0 else None,
                   'ports': getattr(self, 'ports_created', 0),
                   'ports_per_node': ports_per_node}
            out.update(workload.latency_stats('get', every))
            for prefix, lats in by_kind.items():
                out.update(workload.latency_stats(prefix, lats))
            return out

    return PortRun


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, bench_dir = _pop_option(argv, '--bench-dir', DEFAULT_BENCH_DIR)
    argv, ports = _pop_option(argv, '--ports-per-node', '2')
    workload = load_workload(bench_dir)
    workload.Run = port_run_class(workload, int(ports))
    return workload.main(argv)


if __name__ == '__main__':
    sys.exit(main())
