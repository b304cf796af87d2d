"""The live view of a run: where each node is, as it goes.

On a terminal, a table redrawn in place: a line of counts, then one line
per node still under way (node, state, step n/N and its name, seconds
since the node started), as many as the terminal has room for.  Anywhere
else (a pipe, a CI log), one line per node when it is first seen deploying
and when it settles, and a line of counts every ``every`` seconds: a log that
reads top to bottom.
"""

import shutil
import sys
import time

from ironic_steps.drivers import base

#: States a node rests in at the end of a run.
SETTLED = ('active', 'deploy failed', 'clean failed', 'error')
#: States of a deploy under way (running a step, or waiting for the agent).
DEPLOYING = ('deploying', 'wait call-back')


def _step(row):
    progress = (getattr(row, 'driver_internal_info', None) or {}).get(
        base.PROGRESS_KEY)
    if not progress or progress.get('number') is None:
        return ''
    return '%s/%s %s' % (progress['number'], progress.get('total', '?'),
                         progress.get('step') or '')


def counts(rows):
    found = {}
    for row in rows:
        found[row.provision_state] = found.get(row.provision_state, 0) + 1
    return ', '.join('%d %s' % (number, state)
                     for state, number in sorted(found.items()))


class Display:

    def __init__(self, total, stream=None, every=5.0, clock=time.monotonic):
        self.stream = stream or sys.stdout
        self.total = total
        self.every = every
        self.clock = clock
        self.live = self.stream.isatty()
        self._drawn = 0
        self._said = {}
        self._last_counts = None

    def update(self, rows, started, elapsed):
        """Show ``rows`` (nodes as read now); ``started``: node name ->
        when the run began working on it (monotonic)."""
        if self.live:
            self._redraw(rows, started, elapsed)
        else:
            self._log(rows, elapsed)

    def _redraw(self, rows, started, elapsed):
        size = shutil.get_terminal_size((100, 24))
        now = self.clock()
        lines = ['%6.1f s  %d nodes: %s' % (elapsed, self.total,
                                            counts(rows))]
        busy = [row for row in rows if row.provision_state not in SETTLED]
        room = max(1, size.lines - 3)
        for row in busy[:room]:
            since = started.get(row.name)
            lines.append('  %-24s %-16s %-40s %6s' % (
                (row.name or row.uuid)[:24], row.provision_state[:16],
                _step(row)[:40],
                '%.1fs' % (now - since) if since is not None else ''))
        if len(busy) > room:
            lines.append('  ... and %d more under way' % (len(busy) - room))
        out = []
        if self._drawn:
            out.append('\x1b[%dA' % self._drawn)
        out.extend('\x1b[2K' + line[:size.columns - 1] + '\n'
                   for line in lines)
        out.append('\x1b[J')
        self.stream.write(''.join(out))
        self.stream.flush()
        self._drawn = len(lines)

    def _log(self, rows, elapsed):
        for row in rows:
            state = row.provision_state
            said = self._said.get(row.name)
            if state in SETTLED and said != state:
                extra = (': %s' % row.last_error) if (
                    state != 'active' and row.last_error) else ''
                self._write('%s %s%s' % (row.name, state, extra))
                self._said[row.name] = state
            elif state in DEPLOYING and said is None:
                self._write('%s deploying' % row.name)
                self._said[row.name] = state
        if self._last_counts is None or (
                elapsed - self._last_counts >= self.every):
            self._write('%.1f s: %s' % (elapsed, counts(rows)))
            self._last_counts = elapsed

    def _write(self, line):
        self.stream.write(line + '\n')
        self.stream.flush()

    def finish(self, rows, elapsed):
        """The last view: the final counts, once."""
        if self.live:
            self._redraw(rows, {}, elapsed)
            return
        self._last_counts = elapsed   # said just below, not twice
        self._log(rows, elapsed)
        self._write('%.1f s: %s' % (elapsed, counts(rows)))
