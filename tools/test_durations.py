"""How long each test takes, kept in the tree so a fresh clone's first run
is balanced over stestr's workers.

stestr splits the tests between workers by their durations in its
repository (``.stestr/times.dbm``); a clean clone has none and splits by
count, which left one CI worker four minutes behind the other.

    test_durations.py save   # after a full run: tools/test-durations.csv
    test_durations.py seed   # a subunit stream of them, for `stestr load`
"""

import csv
import datetime
import io
import os
import subprocess
import sys

import subunit
import testtools

HERE = os.path.dirname(os.path.abspath(__file__))
DURATIONS = os.path.join(HERE, 'test-durations.csv')
STESTR = os.path.join(os.path.dirname(sys.executable), 'stestr')


class _Durations(testtools.StreamResult):

    def __init__(self):
        super().__init__()
        self.started = {}
        self.seconds = {}

    def status(self, test_id=None, test_status=None, timestamp=None, **_):
        if test_id is None or timestamp is None:
            return
        if test_status == 'inprogress':
            self.started[test_id] = timestamp
        elif test_status == 'success' and test_id in self.started:
            self.seconds[test_id] = (
                timestamp - self.started.pop(test_id)).total_seconds()


def save():
    """Write the durations of the last run's passed tests."""
    stream = subprocess.run([STESTR, 'last', '--subunit'], check=True,
                            capture_output=True).stdout
    durations = _Durations()
    subunit.ByteStreamToStreamResult(
        io.BytesIO(stream), non_subunit_name='stdout').run(durations)
    with open(DURATIONS, 'w', newline='') as out:
        writer = csv.writer(out, lineterminator='\n')
        for test_id, seconds in sorted(durations.seconds.items()):
            writer.writerow([test_id, '%.2f' % seconds])
    print('%d durations in %s' % (len(durations.seconds), DURATIONS))


def seed():
    """A subunit stream in which each test took its saved duration."""
    out = subunit.StreamResultToBytes(sys.stdout.buffer)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    with open(DURATIONS, newline='') as durations:
        for test_id, seconds in csv.reader(durations):
            out.status(test_id=test_id, test_status='inprogress',
                       timestamp=start)
            out.status(test_id=test_id, test_status='success',
                       timestamp=start + datetime.timedelta(
                           seconds=float(seconds)))


if __name__ == '__main__':
    {'save': save, 'seed': seed}[sys.argv[1]]()
