"""Saying once that something we depend on is out, and once that it is back.

During an outage of the database or the message broker every request and
every periodic task fails the same way; a log line (or a traceback) for
each would bury the one fact an operator needs: when it started, what the
error was, and when it ended.
"""

import threading
import time

from oslo_log import log

LOG = log.getLogger(__name__)


class Outage:
    """The state of one dependency (``what``: "the database")."""

    def __init__(self, what, clock=time.monotonic):
        self.what = what
        self._clock = clock
        self._lock = threading.Lock()
        self._since = None

    def reset(self):
        """Forget any outage (tests)."""
        with self._lock:
            self._since = None

    @property
    def ongoing(self):
        return self._since is not None

    def failed(self, exc):
        """A call to it failed as an outage does; logged if it is new."""
        with self._lock:
            if self._since is not None:
                return
            self._since = self._clock()
        LOG.warning('%s is unreachable: %s; saying so once until it is '
                    'back', self.what.capitalize(), gist(exc))

    def succeeded(self):
        """A call to it worked; if it was out, say it is back."""
        if self._since is None:   # the usual case, without the lock
            return
        with self._lock:
            if self._since is None:
                return
            lasted, self._since = self._clock() - self._since, None
        LOG.info('%s is reachable again after %.1f seconds',
                 self.what.capitalize(), lasted)


def gist(exc):
    """The first line of an error from a driver, without SQLAlchemy's
    background link (or the exception's name, if it says nothing)."""
    text = str(getattr(exc, 'inner_exception', None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


#: The database, as this process sees it.
DATABASE = Outage('the database')
