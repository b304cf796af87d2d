#!/usr/bin/env python3
"""The API behind candidate HTTP servers, with and without hostile clients.

For each repetition (``--reps``) and each model (``--models``), in that
order, a fresh all-in-one service is started in a child process
(``server_models.py --serve MODEL``): ironic-steps' real ``Service`` (a
fresh SQLite file in a temporary directory, the conductor in process),
whose API is served by the model's server on 127.0.0.1 and a free port.
Models:

* ``ours-1``, ``ours-4``: ``ironic_steps.api.server`` (whole requests
  read on an I/O thread; 1 = requests run on it, 4 = a pool of four), as
  the service ships it (``[api] api_workers`` 1 or 4);
* ``cheroot-1``, ``cheroot-4``: cheroot's ``wsgi.Server`` with that many
  threads, as the service used it before (default timeout 10 s);
* ``waitress-1``, ``waitress-4``: waitress (asyncore-style I/O thread
  that buffers whole requests, then a pool of that many threads).

This process then drives it with the standard library only (the client
in its own process, so its work is not the server's):

1. setup: ``--nodes`` nodes created with POST (not measured);
2. **quiet**: ``--gets`` sequential ``GET /v1/nodes/{uuid}`` on one
   keep-alive connection: p50, p99 (ms);
3. **throughput**: ``--concurrency`` threads, each with its own keep-alive
   connection, ``--gets`` GETs in all: GETs/s;
4. **hostile**: ten hostile connections are opened (4 trickle a request
   head one byte a second, 3 send a head announcing a 100-byte body and
   10 bytes of it, 3 send nothing), then for ``--hostile-seconds``
   sequential GETs on a fresh connection each with a 15 s client timeout
   (a timed-out GET counts 15 s): p50, p99 and max (ms), and how the
   server ended each hostile connection: seconds until it closed it and
   the status it answered (``-`` none; ``open`` if still open after
   ``--hostile-wait`` seconds).

Output: one table row per run and, with ``--out``, one JSON line per run.
The figures depend on the machine; compare runs made close together.

Example::

    .venv/bin/python benchmarks/server_models.py --reps 3 \\
        --models ours-1,ours-4,cheroot-1,cheroot-4,waitress-1,waitress-4
"""

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LOOPBACK = '127.0.0.1'
HEADERS = {'X-OpenStack-Ironic-API-Version': '1.44',
           'Content-Type': 'application/json'}
MODELS = ('ours-1', 'ours-4', 'cheroot-1', 'cheroot-4', 'waitress-1',
          'waitress-4')
GET_TIMEOUT = 15.0


def log(msg):
    print('[models %s] %s' % (time.strftime('%H:%M:%S'), msg),
          file=sys.stderr, flush=True)


# --- the child: one service, one model ---------------------------------------

def serve(model, state_dir):
    """Run the service with ``model`` serving its API; print the port."""
    sys.path.insert(0, REPO)
    from oslo_log import log as oslo_log

    from ironic_steps.api import app
    from ironic_steps.conf import CONF
    from ironic_steps import service

    kind, threads = model.rsplit('-', 1)
    threads = int(threads)
    conf = os.path.join(state_dir, 'ironic-steps.conf')
    with open(conf, 'w') as fh:
        fh.write('[DEFAULT]\nstate_path = %s\nlog_file = %s/log\n'
                 'use_stderr = false\n[api]\nhost_ip = %s\nport = 0\n'
                 'api_workers = %d\n[fake]\nagent_delay = 0\n'
                 % (state_dir, state_dir, LOOPBACK, threads))
    oslo_log.register_options(CONF)
    CONF(['--config-file', conf], project='ironic-steps')
    oslo_log.setup(CONF, 'ironic-steps')

    class ModelService(service.Service):
        def _start_api(self):
            if kind == 'ours':
                return super()._start_api()
            application = app.create_app()
            if kind == 'cheroot':
                from cheroot import wsgi
                self.server = wsgi.Server((LOOPBACK, 0), application,
                                          numthreads=threads)
                self.server.prepare()
                self._model_port = self.server.bind_addr[1]
                target = self.server.serve
            else:
                import waitress
                self.server = waitress.create_server(
                    application, host=LOOPBACK, port=0, threads=threads)
                self._model_port = self.server.effective_port
                target = self.server.run
            threading.Thread(target=target, daemon=True).start()

        @property
        def port(self):
            if kind == 'ours':
                return super().port
            return self._model_port

    running = ModelService()
    running.start()
    print(running.port, flush=True)
    sys.stdin.read()          # the parent closes it to stop us
    if kind == 'waitress':
        running.server.close()
        running.server = None
    running.stop()


class Child:
    def __init__(self, model):
        self.model = model
        self.state_dir = tempfile.mkdtemp(prefix='server-models-')
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), '--serve', model,
             '--state-dir', self.state_dir],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.strip():
            raise RuntimeError('%s did not start; see %s'
                               % (model, self.state_dir))
        self.port = int(line)

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.state_dir, ignore_errors=True)


# --- the driver ----------------------------------------------------------------

def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def create_nodes(port, count):
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=60)
    uuids = []
    for number in range(count):
        conn.request('POST', '/v1/nodes', headers=HEADERS, body=json.dumps(
            {'driver': 'fake-hardware', 'name': 'bench-%d' % number}))
        response = conn.getresponse()
        uuids.append(json.loads(response.read())['uuid'])
    conn.close()
    return uuids


def timed_gets(port, uuids, count, conn=None, deadline=None):
    """Latencies (s) of sequential GETs; a failed one counts GET_TIMEOUT."""
    own = conn is None
    latencies = []
    for number in range(count):
        if deadline is not None and time.monotonic() > deadline:
            break
        if own:
            conn = http.client.HTTPConnection(LOOPBACK, port,
                                              timeout=GET_TIMEOUT)
        started = time.perf_counter()
        try:
            conn.request('GET', '/v1/nodes/%s' % uuids[number % len(uuids)],
                         headers=HEADERS)
            response = conn.getresponse()
            response.read()
            ok = response.status == 200
        except OSError:
            ok = False
        latencies.append(time.perf_counter() - started if ok
                         else GET_TIMEOUT)
        if own:
            conn.close()
    return latencies


def throughput(port, uuids, total, concurrency):
    per_thread = total // concurrency
    threads = [threading.Thread(target=timed_gets, args=(
        port, uuids, per_thread, http.client.HTTPConnection(
            LOOPBACK, port, timeout=GET_TIMEOUT)))
        for _ in range(concurrency)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return per_thread * concurrency / (time.perf_counter() - started)


def hostile(port, kind, outcome, wait):
    """One hostile connection; records (kind, seconds, status) at its end."""
    sock = socket.create_connection((LOOPBACK, port))
    sock.settimeout(0.2)
    opened = time.monotonic()
    head = b'GET /v1/nodes HTTP/1.1\r\nHost: x\r\nX-Padding: ' + b'a' * 200
    if kind == 'half-sent':
        sock.sendall(b'POST /v1/nodes HTTP/1.1\r\nHost: x\r\n'
                     b'Content-Type: application/json\r\n'
                     b'Content-Length: 100\r\n\r\n{"driver":')
    received, sent = b'', 0
    while time.monotonic() - opened < wait:
        if kind == 'trickle' and sent < len(head):
            try:
                sock.send(head[sent:sent + 1])
                sent += 1
            except OSError:
                break
        try:
            data = sock.recv(4096)
            if not data:
                break
            received += data
        except socket.timeout:
            pass
        except OSError:
            break
        if kind == 'trickle':
            time.sleep(0.8)
    else:
        outcome.append((kind, None, 'open'))
        sock.close()
        return
    status = received.split(b' ', 2)[1].decode() if received else '-'
    outcome.append((kind, time.monotonic() - opened, status))
    sock.close()


def hostile_phase(port, uuids, seconds, wait):
    outcome = []
    kinds = ['trickle'] * 4 + ['half-sent'] * 3 + ['silent'] * 3
    threads = [threading.Thread(target=hostile, args=(port, kind, outcome,
                                                      wait))
               for kind in kinds]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    latencies = timed_gets(port, uuids, 10 ** 6,
                           deadline=time.monotonic() + seconds)
    for thread in threads:
        thread.join()
    return latencies, sorted(outcome, key=str)


def run(args, model, rep):
    child = Child(model)
    try:
        uuids = create_nodes(child.port, args.nodes)
        quiet = timed_gets(child.port, uuids, args.gets,
                           conn=http.client.HTTPConnection(
                               LOOPBACK, child.port, timeout=GET_TIMEOUT))
        rate = throughput(child.port, uuids, args.gets, args.concurrency)
        under_attack, outcome = hostile_phase(
            child.port, uuids, args.hostile_seconds, args.hostile_wait)
    finally:
        child.stop()
    ms = 1000.0
    return {
        'model': model, 'rep': rep, 'nodes': args.nodes,
        'quiet_p50_ms': statistics.median(quiet) * ms,
        'quiet_p99_ms': percentile(quiet, 0.99) * ms,
        'gets_per_s': rate,
        'hostile_gets': len(under_attack),
        'hostile_p50_ms': statistics.median(under_attack) * ms,
        'hostile_p99_ms': percentile(under_attack, 0.99) * ms,
        'hostile_max_ms': max(under_attack) * ms,
        'hostile_closed': [
            [kind, None if seconds is None else round(seconds, 1), status]
            for kind, seconds, status in outcome],
    }


def closed_summary(outcome):
    """``trickle 10.3s 408 x4`` style: kind, median seconds, statuses."""
    parts = []
    for kind in ('trickle', 'half-sent', 'silent'):
        rows = [row for row in outcome if row[0] == kind]
        seconds = [row[1] for row in rows if row[1] is not None]
        statuses = sorted({row[2] for row in rows})
        parts.append('%s %s %s' % (
            kind, '%.1fs' % statistics.median(seconds) if seconds else '-',
            '/'.join(statuses)))
    return '; '.join(parts)


def print_row(result):
    print('%-10s %3d %8.2f %8.2f %8.0f %6d %9.2f %9.2f %9.0f  %s' % (
        result['model'], result['rep'], result['quiet_p50_ms'],
        result['quiet_p99_ms'], result['gets_per_s'],
        result['hostile_gets'], result['hostile_p50_ms'],
        result['hostile_p99_ms'], result['hostile_max_ms'],
        closed_summary(result['hostile_closed'])), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--models', default=','.join(MODELS))
    parser.add_argument('--reps', type=int, default=1)
    parser.add_argument('--nodes', type=int, default=200)
    parser.add_argument('--gets', type=int, default=2000)
    parser.add_argument('--concurrency', type=int, default=8)
    parser.add_argument('--hostile-seconds', type=float, default=12.0)
    parser.add_argument('--hostile-wait', type=float, default=25.0)
    parser.add_argument('--out')
    parser.add_argument('--serve', help=argparse.SUPPRESS)
    parser.add_argument('--state-dir', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.state_dir)
        return 0
    print('%-10s %3s %8s %8s %8s %6s %9s %9s %9s  %s' % (
        'model', 'rep', 'p50 ms', 'p99 ms', 'GETs/s', 'GETs', 'hp50 ms',
        'hp99 ms', 'hmax ms', 'hostile connections: closed after, status'))
    for rep in range(1, args.reps + 1):
        for model in args.models.split(','):
            log('%s, repetition %d' % (model, rep))
            result = run(args, model, rep)
            print_row(result)
            if args.out:
                with open(args.out, 'a') as fh:
                    fh.write(json.dumps(dict(
                        result, when=time.strftime('%Y-%m-%dT%H:%M:%S'))
                    ) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
