"""Saying once that something we depend on is out, and once that it is back.

During an outage of the database or the message broker every request and
every periodic task fails the same way; a log line (or a traceback) for
each would bury the one fact an operator needs: when it started, what the
error was, and when it ended.  What is logged of an error never shows a
password (:func:`redact`): errors may quote the URL of the database or of
the broker.
"""

import re
import threading
import time

from oslo_log import log
from oslo_utils import strutils

LOG = log.getLogger(__name__)

#: ``scheme://user:password@host``: the password goes (up to the last
#: ``@``, in case it holds one).
_URL_PASSWORD = re.compile(r'(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)\S*@')


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
    background link (or the exception's name, if it says nothing), and
    without passwords."""
    text = str(getattr(exc, 'inner_exception', None) or exc).strip()
    return redact(text.splitlines()[0]) if text else type(exc).__name__


def redact(text):
    """``text`` without the passwords of URLs or of ``password=`` pairs."""
    return strutils.mask_password(_URL_PASSWORD.sub(r'\1***@', text))


#: The database, as this process sees it.
DATABASE = Outage('the database')
#: The message broker, as this process's conductor calls see it.
BROKER = Outage('the message broker')
