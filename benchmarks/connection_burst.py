#!/usr/bin/env python3
"""Many clients connect to the API at the same instant: is each one served?

Opens ``--clients`` TCP connections to the API at once and sends one
``GET /v1/nodes`` (``Connection: close``) on each, then reads each answer
to its end.  Every connection ends in exactly one outcome:

* ``served``: an HTTP status line arrived (the status is counted too:
  200, or an explicit 503 when the server is full);
* ``refused``: the connect was refused (nothing listening, or a full
  backlog with ``tcp_abort_on_overflow``);
* ``reset``: the connection was reset (ECONNRESET / EPIPE) before a whole
  answer arrived: a silent drop, the outcome that must never happen;
* ``closed``: the server closed the connection without a word: as bad;
* ``timeout``: no answer within ``--timeout`` seconds.

Two client models (``--client``):

* ``sockets`` (default): one thread, non-blocking sockets, every connect
  started before the first answer is read, so that the connects really
  arrive together (threads would be spread out by the GIL);
* ``threads``: one thread per client with ``http.client``, released
  together by a barrier, as independent client processes would be.

By default the script serves the API itself: it starts the all-in-one
``ironic-steps`` (``--service all-in-one``) in a temporary directory, or
``ironic-steps-api`` (``--service api``; it then needs ``--database`` and
``--transport-url``, the conductors are not needed for a GET).  With
``--endpoint URL`` it drives an API that runs already.
``--max-connections N``, ``--backlog N`` and ``--api-workers N`` set those
``[api]`` options of the service it starts (to see what a client past the
limit gets, or what a short backlog does), ``--nofile N`` its file
descriptor limit (the default ``max_connections`` is half of it);
``--nodes N`` creates N nodes first, so that each GET lists them and the
server is busier.

Output: one line per repetition (``--reps``) with the outcomes and the
time from the connect to the whole answer of the served connections
(p50, p99, max, in ms), and with ``--out`` one JSON line per repetition.

Example::

    .venv/bin/python benchmarks/connection_burst.py --clients 50,200,1000 \\
        --reps 3
"""

import argparse
import collections
import http.client
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
sys.path.insert(0, os.path.dirname(HERE))   # tests.burst
from tests import burst  # noqa: E402

REQUEST = ('GET /v1/nodes HTTP/1.1\r\nHost: %s\r\n'
           'X-OpenStack-Ironic-API-Version: 1.44\r\n'
           'Connection: close\r\n\r\n')
OUTCOMES = burst.OUTCOMES


def log(message):
    print('[burst %s] %s' % (time.strftime('%H:%M:%S'), message),
          file=sys.stderr, flush=True)


# --- the service under test -------------------------------------------------

def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class Service:
    """``ironic-steps`` or ``ironic-steps-api`` in a temporary directory."""

    def __init__(self, args):
        self.args = args
        self.directory = tempfile.mkdtemp(prefix='ironic-steps-burst-')
        self.port = free_port()
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        self.process = None

    def _config(self):
        sections = {
            'DEFAULT': {'state_path': self.directory,
                        'log_file': os.path.join(self.directory,
                                                 'service.log')},
            'api': {'host_ip': '127.0.0.1', 'port': self.port},
        }
        for option in ('max_connections', 'backlog', 'api_workers'):
            if getattr(self.args, option):
                sections['api'][option] = getattr(self.args, option)
        if self.args.service == 'api':
            sections['DEFAULT'].update(rpc_transport='oslo',
                                       transport_url=self.args.transport_url)
            sections['database'] = {'connection': self.args.database}
        path = os.path.join(self.directory, 'service.conf')
        with open(path, 'w') as conf:
            for section, values in sections.items():
                conf.write('[%s]\n' % section)
                conf.writelines('%s = %s\n' % item for item in values.items())
        return path

    def start(self):
        command = ('ironic-steps' if self.args.service == 'all-in-one'
                   else 'ironic-steps-api')
        self.process = subprocess.Popen(
            [os.path.join(BIN, command), '--config-file', self._config()],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=self._limit_files if self.args.nofile else None)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit('%s exited with %s; see %s' % (
                    command, self.process.returncode, self.directory))
            try:
                urllib.request.urlopen(self.endpoint + '/v1', timeout=1)
                return
            except OSError:
                time.sleep(0.2)
        raise SystemExit('%s did not start' % command)

    def _limit_files(self):
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (self.args.nofile, self.args.nofile))

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        shutil.rmtree(self.directory, ignore_errors=True)


# --- the clients --------------------------------------------------------------

def burst_with_sockets(host, port, count, timeout):
    """Every connect started first, then each answer read to its end."""
    return burst.burst(host, port, count, (REQUEST % host).encode(), timeout)


def burst_with_threads(host, port, count, timeout):
    """One http.client per thread, all released at once."""
    barrier = threading.Barrier(count)
    results = [None] * count

    def one(index):
        barrier.wait()
        started = time.monotonic()
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
        outcome, status = 'served', None
        try:
            connection.request('GET', '/v1/nodes', headers={
                'X-OpenStack-Ironic-API-Version': '1.44',
                'Connection': 'close'})
            response = connection.getresponse()
            response.read()
            status = response.status
        except ConnectionRefusedError:
            outcome = 'refused'
        except (ConnectionResetError, BrokenPipeError):
            outcome = 'reset'
        except http.client.RemoteDisconnected:
            outcome = 'closed'
        except socket.timeout:
            outcome = 'timeout'
        finally:
            connection.close()
        results[index] = (outcome, status, time.monotonic() - started)

    threads = [threading.Thread(target=one, args=(index,))
               for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def create_nodes(endpoint, count):
    for number in range(count):
        request = urllib.request.Request(
            endpoint + '/v1/nodes', method='POST',
            data=json.dumps({'driver': 'fake-hardware',
                             'name': 'burst-%d' % number}).encode(),
            headers={'Content-Type': 'application/json',
                     'X-OpenStack-Ironic-API-Version': '1.44'})
        urllib.request.urlopen(request, timeout=30).read()


# --- a run ----------------------------------------------------------------------

def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run_once(endpoint, count, client_model, timeout):
    parts = urllib.parse.urlsplit(endpoint)
    if client_model == 'sockets':
        results = burst_with_sockets(parts.hostname, parts.port, count,
                                     timeout)
    else:
        results = burst_with_threads(parts.hostname, parts.port, count,
                                     timeout)
    outcomes = collections.Counter(outcome for outcome, _, _ in results)
    statuses = collections.Counter(status for outcome, status, _ in results
                                   if outcome == 'served')
    times = [elapsed * 1000 for outcome, _, elapsed in results
             if outcome == 'served']
    return {
        'clients': count, 'client': client_model,
        'outcomes': {name: outcomes.get(name, 0) for name in OUTCOMES},
        'statuses': {str(code): n for code, n in sorted(statuses.items())},
        'p50_ms': percentile(times, 0.50), 'p99_ms': percentile(times, 0.99),
        'max_ms': max(times) if times else None,
        'mean_ms': statistics.fmean(times) if times else None,
    }


def _row(result):
    def ms(value):
        return '%8.1f' % value if value is not None else '       -'
    return '%-8s %7d  %s  %-18s %s %s %s' % (
        result['client'], result['clients'],
        ' '.join('%7d' % result['outcomes'][name] for name in OUTCOMES),
        ','.join('%s:%d' % item for item in result['statuses'].items()),
        ms(result['p50_ms']), ms(result['p99_ms']), ms(result['max_ms']))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--clients', default='50',
                        help='Comma-separated burst sizes (default 50).')
    parser.add_argument('--reps', type=int, default=1)
    parser.add_argument('--client', choices=('sockets', 'threads'),
                        default='sockets')
    parser.add_argument('--timeout', type=float, default=30.0,
                        help='Seconds a client waits for its whole answer.')
    parser.add_argument('--endpoint', help='An API that runs already.')
    parser.add_argument('--service', choices=('all-in-one', 'api'),
                        default='all-in-one')
    parser.add_argument('--database', help='[database] connection '
                                           '(--service api).')
    parser.add_argument('--transport-url', help='--service api.')
    parser.add_argument('--max-connections', type=int,
                        help='[api] max_connections of the started service.')
    parser.add_argument('--api-workers', type=int,
                        help='[api] api_workers of the started service.')
    parser.add_argument('--backlog', type=int,
                        help='[api] backlog of the started service.')
    parser.add_argument('--nofile', type=int,
                        help='File descriptor limit (ulimit -n) of the '
                             'started service; the default [api] '
                             'max_connections is half of it.')
    parser.add_argument('--nodes', type=int, default=0,
                        help='Nodes to create first, so that each GET '
                             'lists them (a slower request).')
    parser.add_argument('--out', help='Append one JSON line per run here.')
    args = parser.parse_args()
    if args.service == 'api' and not args.endpoint and not (
            args.database and args.transport_url):
        parser.error('--service api needs --database and --transport-url')

    service = None
    endpoint = args.endpoint
    if endpoint is None:
        service = Service(args)
        service.start()
        endpoint = service.endpoint
        log('%s serving on %s' % (args.service, endpoint))
    create_nodes(endpoint, args.nodes)
    print('%-8s %7s  %s  %-18s %8s %8s %8s' % (
        'client', 'clients', ' '.join('%7s' % name for name in OUTCOMES),
        'statuses', 'p50 ms', 'p99 ms', 'max ms'))
    try:
        for count in (int(n) for n in args.clients.split(',')):
            for _ in range(args.reps):
                result = run_once(endpoint, count, args.client, args.timeout)
                result.update(service=args.service if service else endpoint,
                              max_connections=args.max_connections,
                              backlog=args.backlog, nodes=args.nodes,
                              nofile=args.nofile,
                              api_workers=args.api_workers,
                              measured_at=time.strftime(
                                  '%Y-%m-%dT%H:%M:%SZ', time.gmtime()))
                print(_row(result), flush=True)
                if args.out:
                    with open(args.out, 'a') as out:
                        out.write(json.dumps(result) + '\n')
                time.sleep(0.5)
    finally:
        if service is not None:
            service.stop()


if __name__ == '__main__':
    main()
