"""Runs of ironic-steps and Ironic 39 in turn, and their ratios.

What the side-by-side benchmarks that measure one run per system and
repetition share (``redfish_servicing.py``, ``node_listing.py``): the
``--systems``, ``--reps`` and ``--out`` options, the loop that runs each
repetition's systems one after the other (Ironic's API port is fixed, so
never two at once) and appends every run's JSON lines, and the ratios ours
/ Ironic per repetition and on their medians.
"""

import contextlib
import datetime
import json
import os
import statistics
import time

import compare_with_ironic as cwi

SYSTEMS = (cwi.OURS, 'ironic')
HERE = os.path.dirname(os.path.abspath(__file__))


def add_options(ap, results_name):
    """``--systems``, ``--reps`` and ``--out`` (default
    ``results/<date>-<results_name>.jsonl``)."""
    ap.add_argument('--systems', default=','.join(SYSTEMS),
                    help='comma-separated, run in this order in each '
                         'repetition: %s' % ', '.join(SYSTEMS))
    ap.add_argument('--reps', type=int, default=2,
                    help='repetitions, interleaved (default 2)')
    ap.add_argument('--out', default=os.path.join(
        HERE, 'results', '%s-%s.jsonl' % (datetime.date.today().isoformat(),
                                          results_name)))


def check_options(ap, args):
    """``args.systems`` as a list; a bad one is the parser's error."""
    args.systems = [s for s in args.systems.split(',') if s]
    if not args.systems or set(args.systems) - set(SYSTEMS):
        ap.error('--systems is among %s' % ', '.join(SYSTEMS))
    if args.reps < 1:
        ap.error('--reps must be at least 1')


@contextlib.contextmanager
def running(service, what):
    """``service`` started and given 3 s to settle, as the other
    benchmarks do; stopped however the run ends, its state directory kept
    (and named) when the run raised."""
    ended = False
    try:
        service.start()
        time.sleep(3)
        yield service
        ended = True
    finally:
        service.stop()
        service.cleanup(keep=not ended)
        if not ended:
            cwi.log('%s failed; state kept in %s'
                    % (what, service.state_dir))


def run_all(args, run_one):
    """``run_one(system, rep)`` -> [rows], for each repetition and system
    in turn; each run's rows appended to ``args.out`` as it ends."""
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    rows = []
    for rep in range(1, args.reps + 1):
        for system in args.systems:
            run_rows = run_one(system, rep)
            rows += run_rows
            with open(args.out, 'a') as fh:
                fh.writelines(json.dumps(row) + '\n' for row in run_rows)
    return rows


def print_table(rows, columns):
    print('| ' + ' | '.join(columns) + ' |\n|' + '---|' * len(columns))
    for row in rows:
        print('| ' + ' | '.join(str(row.get(c, '-')) for c in columns)
              + ' |')


def print_ratios(rows, same, ratios):
    """Ours / Ironic's for each field of ``ratios``, per repetition and as
    the median of the repetitions, between rows equal in ``same``."""
    def key(row, system):
        return (system,) + tuple(row[field] for field in same)

    by = {key(row, row['system']) + (row['rep'],): row for row in rows}
    pairs = {}
    for row in rows:
        theirs = by.get(key(row, 'ironic') + (row['rep'],))
        if row['system'] == cwi.OURS and theirs:
            pairs.setdefault(key(row, '')[1:], []).append((row, theirs))
    if not pairs:
        return
    print('\nironic-steps / ironic:')
    for kind, runs in sorted(pairs.items()):
        label = ' '.join(str(part) for part in kind)
        for ours, theirs in runs:
            print('  %s rep %d: %s' % (label, ours['rep'], ', '.join(
                '%s %.3f' % (k, ours[k] / theirs[k]) for k in ratios
                if theirs[k])))
        print('  %s, medians of %d pairs: %s' % (label, len(runs), ', '.join(
            '%s %.3f' % (k, statistics.median(
                o[k] / t[k] for o, t in runs if t[k])) for k in ratios)))
