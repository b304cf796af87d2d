"""Which thread runs a whole request, for :class:`server.Server`.

The server's I/O thread reads requests; this module owns the threads it
hands some of them to, and the choice (see :mod:`server`, point 2):

* with more than one request thread, a pool of that many runs every
  request;
* with one, the I/O thread runs each request itself, except the ones
  ``long_requests(method, path)`` picks (pages of records:
  :mod:`lanes`), which run one after another on a lane thread;
* whatever the thread count, the requests ``costly_requests(method, path,
  header)`` picks (a bcrypt check: :func:`auth.costly_requests`) run on
  ``costly_threads`` of their own, holding up only each other.

Each queue holds at most one request per connection (a connection sends
its next request only once the previous one is answered), so the server's
connection cap bounds them all.

While the lane runs a request, the interpreter changes threads every
millisecond (:data:`LANE_SWITCH_INTERVAL`) instead of every five: the
I/O thread, waiting for the interpreter while a page of 1,000 ports is
built, gets it back sooner (a node GET beside such pages: 22 ms at 5 ms,
8 ms at 1 ms; ``benchmarks/HISTORY.md``, "port-heavy").  Only then:
process-wide, every forced switch between busy threads costs a hand-over,
and conductor workers and the I/O thread then spent about 6% more CPU per
deploy.
"""

import contextlib
import queue
import sys
import threading

from oslo_log import log

LOG = log.getLogger(__name__)

#: Seconds a thread runs before another waiting for the interpreter may,
#: while the lane runs a request.
LANE_SWITCH_INTERVAL = 0.001


class _QuickSwitches:
    """The process's switch interval, shortened while any lane runs a
    request (the interval is process-wide; a process may serve more than
    one API, as tests do) and set back when none does."""

    def __init__(self):
        self._lock = threading.Lock()
        self._running = 0
        self._usual = None

    def __enter__(self):
        with self._lock:
            if not self._running:
                self._usual = sys.getswitchinterval()
                sys.setswitchinterval(min(self._usual,
                                          LANE_SWITCH_INTERVAL))
            self._running += 1

    def __exit__(self, *exc_info):
        with self._lock:
            self._running -= 1
            if not self._running:
                sys.setswitchinterval(self._usual)


_QUICK_SWITCHES = _QuickSwitches()


class RequestThreads:
    """The request threads of one server.

    :param run: ``run(conn, request)``, what a thread does with a request.
    :param ran: ``ran(conn)``, called on that thread once ``run`` returned
        or raised (the server hands the connection back to its I/O
        thread).
    """

    def __init__(self, run, ran, threads=1, long_requests=None,
                 costly_requests=None, costly_threads=2):
        self._run = run
        self._ran = ran
        self.threads = threads
        self.long_requests = long_requests if threads == 1 else None
        self.costly_requests = costly_requests
        self.costly_threads = costly_threads
        self._started = []
        self._pool = self._lane = self._costly = None

    @property
    def multithread(self):
        """Whether requests may run on more than one thread (WSGI's
        ``wsgi.multithread``)."""
        return (self.threads > 1 or self.long_requests is not None
                or self.costly_requests is not None)

    def start(self):
        if self.threads > 1:
            self._pool = self._start(self.threads, 'api-request')
        elif self.long_requests is not None:
            self._lane = self._start(1, 'api-lane', quick_switches=True)
        if self.costly_requests is not None:
            self._costly = self._start(self.costly_threads, 'api-costly')

    def stop(self):
        """Let each thread finish the request it runs, then end it."""
        for _, jobs in self._started:
            jobs.put(None)
        for thread, _ in self._started:
            thread.join()

    def queue_for(self, method, path, header):
        """The queue of the threads that run this request; None: the I/O
        thread runs it."""
        if self._costly is not None and self.costly_requests(
                method, path, header):
            return self._costly
        if self._pool is None and self._lane is not None and (
                self.long_requests(method, path)):
            return self._lane
        return self._pool

    def _start(self, count, name, quick_switches=False):
        jobs = queue.SimpleQueue()
        for number in range(count):
            thread = threading.Thread(target=self._work,
                                      args=(jobs, quick_switches),
                                      daemon=True,
                                      name='%s-%d' % (name, number))
            self._started.append((thread, jobs))
            thread.start()
        return jobs

    def _work(self, jobs, quick_switches):
        switches = (_QUICK_SWITCHES if quick_switches
                    else contextlib.nullcontext())
        while True:
            item = jobs.get()
            if item is None:
                return
            conn, request = item
            try:
                with switches:
                    self._run(conn, request)
            except Exception:
                LOG.exception('Unexpected error running a request')
                conn.out, conn.close_after = None, True
            finally:
                self._ran(conn)
