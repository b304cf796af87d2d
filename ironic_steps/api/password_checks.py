"""HTTP basic credentials checked against the htpasswd file, at a bounded
cost.

bcrypt is slow on purpose (some 0.3 s per check at cost 12, on the request
thread), which made every wrong password a cheap way to stall the API and
told known users from unknown ones by the time of the answer.  Here:

* **a password the file vouched for is remembered** for ``[api]
  http_basic_cache_seconds``, keyed by the user, a digest of the password
  and the user's entry in the file, so a changed password or a removed
  user takes effect at the next request (the file is read again whenever
  it changes);
* **an unknown user costs what a known one does**: the password is checked
  against a stand-in hash of the file's own cost, so the time of a refusal
  does not tell whether the user exists;
* **a client that failed ``[api] http_basic_max_failures`` times** within
  ``[api] http_basic_failure_window`` seconds is answered 429 with
  ``Retry-After`` without any bcrypt, until its oldest failure leaves the
  window.  Credentials remembered as good still pass (an administrator is
  not locked out by someone guessing from the same address).

What a line of the file is, and what a check returns, are oslo.middleware's
(:func:`oslo_middleware.basic_auth.parse_entry`, ``auth_entry``).
"""

import collections
import hashlib
import os
import threading
import time

import bcrypt
from oslo_log import log
from oslo_middleware import basic_auth
import webob.exc

from ironic_steps.common import exception
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)

#: Clients whose failures are counted at once; the quietest are forgotten.
_MAX_CLIENTS = 10000
_MAX_REMEMBERED = 1024


class PasswordChecker:
    """Checks user names and passwords against one htpasswd file.

    :param clock: monotonic seconds (tests move it by hand).
    """

    def __init__(self, auth_file, clock=time.monotonic):
        self._file = auth_file
        self._clock = clock
        self._lock = threading.Lock()
        self._stamp = None
        self._entries = {}
        self._stand_ins = {}
        self._granted = {}
        self._failures = collections.OrderedDict()

    def check(self, username, password, client):
        """The WSGI environ values of the user, as oslo.middleware's
        ``auth_entry`` gives them.

        :param password: bytes, at most bcrypt's 72.
        :param client: the caller's address (failures are counted by it).
        :raises HTTPUnauthorized: for a wrong user or password.
        :raises TooManyFailedLogins: for a client over its failures.
        """
        entry = self._entry(username)
        key = self._key(username, password, entry)
        now = self._clock()
        with self._lock:
            granted = self._granted.get(key)
            if granted is not None and granted[0] > now:
                return dict(granted[1])
            self._refuse_if_over(client, now)
        try:
            if entry is None:
                # As long as a known user's check takes.
                bcrypt.checkpw(password, self._stand_in())
                LOG.info('User %s not found', username)
                raise webob.exc.HTTPUnauthorized()
            values = basic_auth.auth_entry(entry, password)
        except webob.exc.HTTPUnauthorized:
            self._failed(client)
            raise
        self._remember(key, values, now)
        return values

    def remembered(self, username, password):
        """Whether ``check`` would pass these credentials without bcrypt:
        the file vouched for them within ``http_basic_cache_seconds``.

        Cheap (a ``stat`` of the file and a digest): asked before a request
        is given a thread, so that only the ones that will run bcrypt wait
        for the threads kept for that (see :mod:`costly_requests`).
        """
        try:
            entry = self._entry(username)
        except webob.exc.HTTPBadRequest:
            return False
        key = self._key(username, password, entry)
        with self._lock:
            granted = self._granted.get(key)
        return granted is not None and granted[0] > self._clock()

    @staticmethod
    def _key(username, password, entry):
        # The entry too: a changed password or a removed user is a new key.
        return (username, hashlib.sha256(password).digest(), entry)

    # --- the file ---------------------------------------------------------

    def _entry(self, username):
        """The file's line for ``username``, or None."""
        try:
            status = os.stat(self._file)
        except OSError as exc:
            LOG.error('Problem reading auth file: %s', exc)
            raise webob.exc.HTTPBadRequest(detail='Problem reading auth file')
        stamp = (status.st_mtime_ns, status.st_size, status.st_ino)
        with self._lock:
            if stamp != self._stamp:
                self._entries = self._read()
                self._stamp = stamp
                self._granted.clear()
            return self._entries.get(username)

    def _read(self):
        entries = {}
        try:
            with open(self._file) as lines:
                for line in lines:
                    entry = line.strip()
                    if entry and ':' in entry:
                        entries.setdefault(entry.split(':', 1)[0], entry)
        except OSError as exc:
            LOG.error('Problem reading auth file: %s', exc)
            raise webob.exc.HTTPBadRequest(detail='Problem reading auth file')
        return entries

    def _stand_in(self):
        """A hash of nothing, at the cost of the file's hashes."""
        costs = [basic_auth.parse_entry(entry)[1][4:6]
                 for entry in self._entries.values()]
        cost = int(costs[0]) if costs and costs[0].isdigit() else 12
        with self._lock:
            stand_in = self._stand_ins.get(cost)
        if stand_in is None:
            stand_in = bcrypt.hashpw(os.urandom(16), bcrypt.gensalt(cost))
            with self._lock:
                self._stand_ins[cost] = stand_in
        return stand_in

    # --- what is remembered -----------------------------------------------

    def _remember(self, key, values, now):
        seconds = CONF.api.http_basic_cache_seconds
        if seconds <= 0:
            return
        with self._lock:
            if len(self._granted) >= _MAX_REMEMBERED:
                self._granted.clear()
            self._granted[key] = (now + seconds, dict(values))

    def _failed(self, client):
        if CONF.api.http_basic_max_failures <= 0:
            return
        with self._lock:
            times = self._failures.pop(client, None) or collections.deque()
            times.append(self._clock())
            while len(times) > CONF.api.http_basic_max_failures:
                times.popleft()
            self._failures[client] = times
            while len(self._failures) > _MAX_CLIENTS:
                self._failures.popitem(last=False)

    def _refuse_if_over(self, client, now):
        """Under ``self._lock``."""
        most = CONF.api.http_basic_max_failures
        times = self._failures.get(client)
        if most <= 0 or not times or len(times) < most:
            return
        window = CONF.api.http_basic_failure_window
        free_at = times[0] + window
        if free_at <= now:
            return
        raise exception.TooManyFailedLogins(
            failures=len(times), window=window,
            retry_after=max(1, int(free_at - now + 0.999)))
