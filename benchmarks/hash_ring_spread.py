#!/usr/bin/env python3
"""How evenly the hash ring spreads nodes over conductors, and what moves.

For each partition exponent (each conductor takes 2 ** exponent places on
the ring; 5 is tooz's default and what releases before 0.5 use) and each
seed, the conductors' hostnames and the node UUIDs are drawn from that
seed (seed 0 names them ``conductor-1`` ...), the ring is built as the
services build it (:func:`ironic_steps.conductor.hash_ring.build_ring`)
and every UUID placed.  Reported per run:

* nodes per conductor: min, max, population stddev, and the worst
  conductor's distance from a fair share (percent);
* ring share: the worst conductor's distance from a fair share of
  ``--share-keys`` further keys (percent): the ring's own unevenness,
  without the sampling noise of a few nodes;
* moved when a conductor dies: nodes placed elsewhere once the last
  conductor leaves the ring, and how many of those were *not* on it (a
  consistent ring moves none of them);
* build ms (one ring of all the conductors) and lookup us per node.

The summary adds a ``uniform`` row: the same nodes dealt to the
conductors by their own hash modulo the count, a perfectly even split in
expectation, which shows the unevenness that a few random UUIDs have
anyway (the floor no ring can beat).

Pure computation: no database, no service.  JSON lines go to
``results/<date>-hash-ring-spread.jsonl``.  Example::

    .venv/bin/python benchmarks/hash_ring_spread.py \\
        --conductors 3 --nodes 1000 --seeds 5 --exponents 5,8,10,12
"""

import argparse
import collections
import datetime
import hashlib
import json
import os
import random
import statistics
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from ironic_steps.conductor import hash_ring  # noqa: E402


def hostnames(count, seed):
    if seed == 0:
        return ['conductor-%d' % index for index in range(1, count + 1)]
    rng = random.Random('hosts-%d' % seed)
    return ['cond-%06x.example.com' % rng.getrandbits(24)
            for _ in range(count)]


def node_uuids(count, seed):
    rng = random.Random(seed)
    return [str(uuid.UUID(int=rng.getrandbits(128), version=4))
            for _ in range(count)]


def off_fair_share(counts, hosts, total):
    fair = total / len(hosts)
    return 100.0 * max(abs(counts[host] - fair) / fair for host in hosts)


def uniform_split(conductors, nodes, seed):
    """(min, max, stddev, off fair %) of the nodes dealt by hash."""
    hosts = hostnames(conductors, seed)
    counts = collections.Counter(
        hosts[int(hashlib.md5(u.encode()).hexdigest(), 16) % conductors]
        for u in node_uuids(nodes, seed))
    per_host = [counts[host] for host in hosts]
    return (min(per_host), max(per_host), statistics.pstdev(per_host),
            off_fair_share(counts, hosts, nodes))


def place(ring, keys):
    return [hash_ring.host_on(ring, key) for key in keys]


def run(conductors, nodes, exponent, seed, share_keys):
    hosts = hostnames(conductors, seed)
    uuids = node_uuids(nodes, seed)
    partitions = 2 ** exponent
    started = time.perf_counter()
    ring = hash_ring.build_ring(hosts, partitions)
    build_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    owners = place(ring, uuids)
    lookup_us = (time.perf_counter() - started) * 1e6 / nodes
    counts = collections.Counter(owners)
    per_host = [counts[host] for host in hosts]
    shares = collections.Counter(place(ring, node_uuids(
        share_keys, 'share-%d' % seed)))
    survivors = hash_ring.build_ring(hosts[:-1], partitions)
    after = place(survivors, uuids)
    moved = [before != now for before, now in zip(owners, after)]
    return {
        'conductors': conductors, 'nodes': nodes, 'exponent': exponent,
        'partitions': partitions, 'seed': seed, 'hosts': hosts,
        'per_conductor': per_host, 'min': min(per_host),
        'max': max(per_host),
        'stddev': round(statistics.pstdev(per_host), 1),
        'off_fair_pct': round(off_fair_share(counts, hosts, nodes), 1),
        'ring_share_off_fair_pct': round(
            off_fair_share(shares, hosts, share_keys), 1),
        'moved_when_one_dies': sum(moved),
        'moved_not_from_the_dead': sum(
            1 for was, did_move in zip(owners, moved)
            if did_move and was != hosts[-1]),
        'share_keys': share_keys,
        'build_ms': round(build_ms, 2), 'lookup_us': round(lookup_us, 1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--conductors', type=int, default=3)
    parser.add_argument('--nodes', type=int, default=1000)
    parser.add_argument('--seeds', type=int, default=5,
                        help='runs per exponent, seeds 0 .. N-1')
    parser.add_argument('--exponents', default='5,8,10,12')
    parser.add_argument('--share-keys', type=int, default=100000)
    parser.add_argument('--results', default=os.path.join(HERE, 'results'))
    args = parser.parse_args()
    exponents = [int(value) for value in args.exponents.split(',')]
    path = os.path.join(args.results, '%s-hash-ring-spread.jsonl'
                        % datetime.date.today().isoformat())
    os.makedirs(args.results, exist_ok=True)
    print('| exp | seed | nodes per conductor | min | max | stddev '
          '| off fair % | ring share off % | moved when one dies '
          '| of others | build ms | lookup us |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|')
    summary = collections.defaultdict(list)
    with open(path, 'a') as out:
        for exponent in exponents:
            for seed in range(args.seeds):
                result = run(args.conductors, args.nodes, exponent, seed,
                             args.share_keys)
                out.write(json.dumps(result) + '\n')
                summary[exponent].append(result)
                print('| %(exponent)d | %(seed)d | %(spread)s | %(min)d '
                      '| %(max)d | %(stddev).1f | %(off_fair_pct).1f '
                      '| %(ring_share_off_fair_pct).1f '
                      '| %(moved_when_one_dies)d '
                      '| %(moved_not_from_the_dead)d | %(build_ms).2f '
                      '| %(lookup_us).1f |' % dict(
                          result, spread='/'.join(
                              str(n) for n in result['per_conductor'])))
    print()
    print('| exp | worst min | worst max | median stddev '
          '| worst off fair % | worst ring share off % |')
    print('|---|---|---|---|---|---|')
    for exponent, results in summary.items():
        print('| %d | %d | %d | %.1f | %.1f | %.1f |' % (
            exponent, min(r['min'] for r in results),
            max(r['max'] for r in results),
            statistics.median(r['stddev'] for r in results),
            max(r['off_fair_pct'] for r in results),
            max(r['ring_share_off_fair_pct'] for r in results)))
    uniform = [uniform_split(args.conductors, args.nodes, seed)
               for seed in range(args.seeds)]
    print('| uniform | %d | %d | %.1f | %.1f | - |' % (
        min(u[0] for u in uniform), max(u[1] for u in uniform),
        statistics.median(u[2] for u in uniform),
        max(u[3] for u in uniform)))
    print('\nraw lines: %s' % path)


if __name__ == '__main__':
    main()
