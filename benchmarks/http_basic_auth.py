#!/usr/bin/env python3
"""What wrong passwords cost everyone else, with ``auth_strategy =
http_basic``.

Starts the all-in-one ``ironic-steps`` (as ``connection_burst.py`` does)
with an htpasswd file of two users hashed at bcrypt cost ``--cost``
(Apache's default is 5, many sites use 10-12), then measures:

* ``idle``: ``--gets`` GET /v1/nodes of the administrator, one after the
  other: p50 and p99 in ms;
* ``attacked``: the same while ``--attackers`` threads send GETs with a
  wrong password for the other (known) user as fast as they are answered;
  also what the attackers got (401, 429, ...) and how many.  With
  ``--spread``, the failure limit is off during the attack, as for an
  attack spread over more addresses than it has failures: every wrong
  password costs its bcrypt check;
* ``enumeration``: with the failure limit off, the median time of a wrong
  password for an unknown user and for a known one (``--probes`` each):
  equal times do not tell whether a user exists.

``PYTHONPATH`` picks the code under test (a worktree of another commit
runs it "before").  One JSON line per run goes to ``--out``.

Example::

    .venv/bin/python benchmarks/http_basic_auth.py --out results.jsonl
    PYTHONPATH=/tmp/before .venv/bin/python benchmarks/http_basic_auth.py \\
        --label before --old-code --out results.jsonl
"""

import argparse
import base64
import collections
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import bcrypt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import connection_burst  # noqa: E402

USERS = {'alice': 'alice-password', 'rita': 'rita-password'}


def _header(user, password):
    token = base64.b64encode(('%s:%s' % (user, password)).encode())
    return {'Authorization': 'Basic ' + token.decode(),
            'X-OpenStack-Ironic-API-Version': '1.44'}


class AuthService(connection_burst.Service):
    """The all-in-one with http_basic and the given [api] options."""

    def __init__(self, cost, api_options):
        super().__init__(argparse.Namespace(
            service='all-in-one', max_connections=None, backlog=None,
            api_workers=None, nofile=None))
        self.cost = cost
        self.api_options = api_options

    def _config(self):
        path = super()._config()
        users = os.path.join(self.directory, 'htpasswd')
        with open(users, 'w') as out:
            for user, password in USERS.items():
                out.write('%s:%s\n' % (user, bcrypt.hashpw(
                    password.encode(), bcrypt.gensalt(self.cost)).decode()))
        with open(path, 'a') as conf:
            conf.write('[DEFAULT]\nauth_strategy = http_basic\n[api]\n'
                       'http_basic_auth_user_file = %s\n' % users)
            conf.writelines('%s = %s\n' % item
                            for item in self.api_options.items())
        return path

    def start(self):
        super().start()
        # Wait until the API answers an authenticated request.
        self.get(_header('alice', USERS['alice']))

    def get(self, headers):
        """(status, seconds) of one GET /v1/nodes on a new connection."""
        connection = http.client.HTTPConnection('127.0.0.1', self.port,
                                                timeout=60)
        started = time.monotonic()
        try:
            connection.request('GET', '/v1/nodes', headers=headers)
            response = connection.getresponse()
            response.read()
            return response.status, time.monotonic() - started
        finally:
            connection.close()


def _percentiles(seconds):
    ms = sorted(s * 1000 for s in seconds)
    return {'p50_ms': round(statistics.median(ms), 2),
            'p99_ms': round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 2)}


def admin_gets(service, count):
    admin = _header('alice', USERS['alice'])
    times = []
    for _ in range(count):
        status, seconds = service.get(admin)
        if status != 200:
            raise SystemExit('the administrator got %s' % status)
        times.append(seconds)
    return _percentiles(times)


def attacked(service, attackers, count):
    stop = threading.Event()
    answers = collections.Counter()
    lock = threading.Lock()

    def attack():
        wrong = _header('rita', 'not-' + USERS['rita'])
        while not stop.is_set():
            status, _seconds = service.get(wrong)
            with lock:
                answers[status] += 1

    threads = [threading.Thread(target=attack, daemon=True)
               for _ in range(attackers)]
    for thread in threads:
        thread.start()
    time.sleep(1)   # the attack under way
    try:
        measured = admin_gets(service, count)
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    return dict(measured, attacker_answers=dict(answers))


def enumeration(service, probes):
    def median_ms(user):
        return round(statistics.median(
            service.get(_header(user, 'wrong'))[1] * 1000
            for _ in range(probes)), 2)
    return {'unknown_user_ms': median_ms('nobody'),
            'known_user_ms': median_ms('rita')}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cost', type=int, default=12)
    parser.add_argument('--gets', type=int, default=100)
    parser.add_argument('--attackers', type=int, default=12)
    parser.add_argument('--probes', type=int, default=10)
    parser.add_argument('--label', default='')
    parser.add_argument('--old-code', action='store_true',
                        help='the code under test predates the '
                             'http_basic_* options: do not set them')
    parser.add_argument('--spread', action='store_true',
                        help='no failure limit during the attack (as if '
                             'it came from many addresses)')
    parser.add_argument('--out')
    args = parser.parse_args()
    code = subprocess.run(
        [sys.executable, '-c', 'import ironic_steps; '
         'print(ironic_steps.__file__)'], capture_output=True, cwd=os.sep,
        text=True).stdout.strip()
    result = {'label': args.label, 'code': code, 'cost': args.cost,
              'attackers': args.attackers, 'spread': args.spread}
    service = AuthService(args.cost, {'http_basic_max_failures': 0}
                          if args.spread else {})
    service.start()
    try:
        result['idle'] = admin_gets(service, args.gets)
        result['attacked'] = attacked(service, args.attackers, args.gets)
    finally:
        service.stop()
    # Without the failure limit (where the code has one), so that every
    # probe is checked.
    service = AuthService(args.cost, {} if args.old_code
                          else {'http_basic_max_failures': 0})
    service.start()
    try:
        result['enumeration'] = enumeration(service, args.probes)
    finally:
        service.stop()
    line = json.dumps(result, sort_keys=True)
    print(line)
    if args.out:
        with open(args.out, 'a') as out:
            out.write(line + '\n')


if __name__ == '__main__':
    main()
