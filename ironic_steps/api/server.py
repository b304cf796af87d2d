"""The API's HTTP server: a request runs only once it has arrived whole.

::

    server = Server(application, '127.0.0.1', 6385, threads=1, timeout=10,
                    max_body=1024 * 1024)
    server.prepare()                     # bind and listen: port known
    threading.Thread(target=server.serve).start()
    server.stop()                        # running requests finish first

1. **One I/O thread owns every socket.**  It accepts connections and reads
   what each client sends into that connection's buffer, without ever
   blocking on one client, until :class:`http_request.RequestReader` says
   a whole request (head and body) is there, within its limits.
2. **A whole request runs on a request thread.**  With ``threads=1`` (the
   all-in-one service) that is the I/O thread itself: no hand-over between
   threads, which on a busy interpreter costs more than the request;
   pages of records, bcrypt checks, and every request with more threads
   go to threads of their own (:mod:`request_threads`).  The response is
   sent without blocking; whatever the client does not take at once is
   sent by the I/O thread as the client reads it.
3. **Every client has deadlines** (``timeout``, ``[api] client_timeout``):
   a request must arrive whole within it of its first byte (else 408 and
   the connection is closed), a response must be taken within it, and an
   idle keep-alive connection is closed after it.
4. **Every client that connects is answered.**  The listen backlog is the
   kernel's limit (``net.core.somaxconn``) unless ``backlog`` says
   otherwise, and each readiness of the listener accepts everything
   pending, so a burst of connections waits in the kernel's queue, not in
   SYN retransmissions.  Past ``max_connections`` the idle connection that
   has waited longest (no request under way) is answered 503 and closed to
   make room; with none idle, the new client is answered 503 itself.  The
   503 carries ``Retry-After``, and every connection the server ends after
   an answer is drained before it is closed, so no client ever sees a
   reset instead of its answer.

5. **TLS, if given a context** (:func:`tls_context`; ``[api]
   enable_ssl_api``): each accepted connection is wrapped by the stdlib
   ``ssl`` module and its handshake driven by the I/O thread like any
   other read or write, so a client that stalls its handshake holds no
   more than one that stalls its request, and is closed after the same
   ``timeout``.  A client that does not speak TLS is closed.

So a client that sends slowly, sends half a request or sends nothing holds
a buffer and a file descriptor for a bounded time, never a thread, and
every other client is served meanwhile.  What the server answers itself
(refused framing, limits, timeouts: see :mod:`http_request`) is in
Ironic's JSON error format and closes the connection.  This module knows
nothing of the API: it serves any WSGI application (PEP 3333), each
request's body in ``wsgi.input`` with ``CONTENT_LENGTH`` set.
"""

import collections
import errno
import selectors
import socket
import ssl
import threading
import time

from oslo_log import log

from ironic_steps.api import connections
from ironic_steps.api import errors
from ironic_steps.api import http_request
from ironic_steps.api import request_threads
from ironic_steps.api import wsgi_exchange

LOG = log.getLogger(__name__)

_RECV_SIZE = 65536
#: How long a refused client may go on sending before the socket closes:
#: closing with unread bytes would reset the connection and could destroy
#: the error answer before the client reads it.
_LINGER = 2.0
#: How often deadlines are looked at, in seconds.
_CHECK_EVERY = 0.25
#: Connections accepted per readiness of the listener before the others'
#: events are looked at; the listener stays ready while more are pending.
_ACCEPT_BATCH = 64


class Server:
    """A WSGI server for ``application`` on ``host``:``port``; over TLS
    with ``tls``, an ``ssl.SSLContext`` (see :func:`connections.tls_context`)."""

    def __init__(self, application, host, port, threads=1, timeout=10,
                 max_body=1024 * 1024, max_connections=None, backlog=None,
                 retry_after=5, long_requests=None, tls=None,
                 costly_requests=None, costly_threads=2):
        self.application = application
        self.tls = tls
        self.url_scheme = 'http' if tls is None else 'https'
        self.host = host
        self.requested_port = port
        self.timeout = timeout
        self.max_body = max_body
        self.max_connections = max_connections or connections.default_max_connections()
        self.backlog = backlog or connections.default_backlog()
        self.retry_after = retry_after
        self._listener = None
        self._lingering = 0
        self._full_since = None
        self._refused = 0
        self._accept_paused = False
        self.port = None
        self._selector = None
        self._connections = {}
        self._stopping = False
        self._stopped = threading.Event()
        self._date = wsgi_exchange.DateHeader()
        self._request_threads = request_threads.RequestThreads(
            self._run, self._ran, threads=threads,
            long_requests=long_requests, costly_requests=costly_requests,
            costly_threads=costly_threads)
        self._done = collections.deque()
        self._wake_r = self._wake_w = None

    @property
    def threads(self):
        return self._request_threads.threads

    @property
    def long_requests(self):
        """What runs on the lane (one request thread only), or None."""
        return self._request_threads.long_requests

    # --- life cycle -------------------------------------------------------

    def prepare(self):
        """Bind and listen, so that :attr:`bind_addr` is known."""
        family, kind, proto, _, address = socket.getaddrinfo(
            self.host, self.requested_port, type=socket.SOCK_STREAM,
            flags=socket.AI_PASSIVE)[0]
        listener = socket.socket(family, kind, proto)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(self.backlog)
        listener.setblocking(False)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._selector = selectors.DefaultSelector()
        self._selector.register(listener, selectors.EVENT_READ, None)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ,
                                self._wake_r)

    @property
    def bind_addr(self):
        return self._listener.getsockname()[:2]

    def serve(self):
        """Serve until :meth:`stop`; run it on a thread of its own."""
        self._request_threads.start()
        try:
            self._loop()
        finally:
            self._request_threads.stop()
            for conn in list(self._connections.values()):
                self._close(conn)
            self._selector.close()
            self._wake_r.close()
            self._wake_w.close()
            self._stopped.set()

    def stop(self, timeout=30):
        """Stop accepting; let running requests finish; close everything."""
        self._stopping = True
        self._wake()
        self._stopped.wait(timeout)

    # --- the I/O loop -----------------------------------------------------

    def _loop(self):
        next_check = time.monotonic() + _CHECK_EVERY
        stop_by = None
        while True:
            if self._stopping:
                if stop_by is None:
                    stop_by = time.monotonic() + self.timeout
                    self._stop_listening()
                if self._quiet() or time.monotonic() > stop_by:
                    return
            for key, events in self._selector.select(_CHECK_EVERY):
                self._on_event(key, events)
            now = time.monotonic()
            if now >= next_check:
                next_check = now + _CHECK_EVERY
                self._expire(now)

    def _on_event(self, key, events):
        if key.data is None:
            self._accept()
        elif key.data is self._wake_r:
            self._handed_back()
        else:
            conn = key.data
            try:
                if conn.handshaking:
                    if self._handshake(conn):
                        self._on_readable(conn)
                    return
                if events & selectors.EVENT_READ:
                    self._on_readable(conn)
                if events & selectors.EVENT_WRITE and conn.out is not None:
                    self._send(conn)
                    self._sent(conn)
            except Exception:
                # The loop serves everyone: a bug on one connection ends
                # that connection, not the server.
                LOG.exception('Unexpected error on the connection from %s',
                              conn.address)
                self._close(conn)

    def _stop_listening(self):
        if not self._accept_paused:
            self._selector.unregister(self._listener)
        self._listener.close()
        for conn in list(self._connections.values()):
            if conn.state in (connections.READING, connections.LINGERING):
                self._close(conn)

    def _quiet(self):
        return not any(conn.state in (connections.RUNNING, connections.WRITING)
                       for conn in self._connections.values())

    def _watch(self, conn, events):
        if events == conn.events:
            return
        if not events:
            self._selector.unregister(conn.sock)
        elif not conn.events:
            self._selector.register(conn.sock, events, conn)
        else:
            self._selector.modify(conn.sock, events, conn)
        conn.events = events

    def _accept(self):
        for _ in range(_ACCEPT_BATCH):
            try:
                sock, address = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                self._pause_accepting(exc)
                return
            sock.setblocking(False)
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tls is not None:
                try:
                    sock = self.tls.wrap_socket(
                        sock, server_side=True,
                        do_handshake_on_connect=False)
                except OSError:
                    sock.close()   # gone already
                    continue
            conn = connections.Connection(sock, address, self.max_body,
                                          time.monotonic(), self.timeout)
            self._connections[sock.fileno()] = conn
            self._watch(conn, selectors.EVENT_READ)
            self._keep_within_limit(conn)

    def _handshake(self, conn):
        """Drive the TLS handshake of ``conn`` as far as it goes without
        blocking; whether it is done."""
        try:
            conn.sock.do_handshake()
        except ssl.SSLWantReadError:
            self._watch(conn, selectors.EVENT_READ)
            return False
        except ssl.SSLWantWriteError:
            self._watch(conn, selectors.EVENT_WRITE)
            return False
        except OSError as exc:   # ssl.SSLError included: not TLS, or gone
            LOG.debug('No TLS handshake with %s: %s', conn.address, exc)
            self._close(conn)
            return False
        conn.handshaking = False
        self._watch(conn, selectors.EVENT_READ)
        return True

    def _pause_accepting(self, exc):
        """Out of file descriptors (or kernel memory): clients wait in the
        backlog, not refused, until the next deadline check."""
        if exc.errno not in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS,
                             errno.ENOMEM):
            LOG.warning('Cannot accept a connection: %s', exc)
            return
        LOG.warning('Cannot accept a connection (%s) with %d open; new '
                    'clients wait in the backlog meanwhile.', exc,
                    len(self._connections))
        self._selector.unregister(self._listener)
        self._accept_paused = True

    def _resume_accepting(self):
        if self._accept_paused and not self._stopping:
            self._selector.register(self._listener, selectors.EVENT_READ,
                                    None)
            self._accept_paused = False

    def _keep_within_limit(self, newcomer):
        open_now = len(self._connections) - self._lingering
        if open_now <= self.max_connections:
            if self._full_since is not None:
                LOG.info('Below %d connections again after %.1f s; %d '
                         'clients were answered 503 meanwhile.',
                         self.max_connections,
                         time.monotonic() - self._full_since, self._refused)
                self._full_since, self._refused = None, 0
            return
        if self._full_since is None:
            self._full_since = time.monotonic()
            LOG.warning('%d connections open, the limit ([api] '
                        'max_connections): idle ones are closed to make '
                        'room, and with none idle new clients are answered '
                        '503. Logged once until below the limit again.',
                        open_now)
        self._refused += 1
        idle = self._longest_idle(exclude=newcomer)
        limit = ('the server is at its limit of %d connections ([api] '
                 'max_connections); retry in %d seconds.'
                 % (self.max_connections, self.retry_after))
        if idle is not None:
            self._refuse(idle, 'This idle connection is closed to make '
                               'room for another: ' + limit)
        else:
            self._refuse(newcomer, 'Every connection has a request under '
                                   'way: ' + limit)

    def _longest_idle(self, exclude):
        """The connection idle the longest, keep-alive ones first; None if
        every one has a request under way or on its way in."""
        candidates = [conn for conn in self._connections.values()
                      if conn is not exclude and conn.state == connections.READING
                      and not conn.started]
        candidates.sort(key=lambda conn: (not conn.answered, conn.since))
        for conn in candidates:
            if not self._has_pending_bytes(conn):
                return conn
        return None

    @staticmethod
    def _has_pending_bytes(conn):
        """Whether the client sent what the server has not read yet (or
        closed its side): then it is not idle."""
        try:
            connections.peek(conn.sock)
        except connections.NOT_NOW:
            return False
        except OSError:
            return True   # broken: its next readiness closes it
        return True       # bytes, or the client's end of sending

    def _refuse(self, conn, message):
        if conn.handshaking:
            # Nothing can be said before the handshake: closed at once.
            self._close(conn)
            return
        self._answer_error(conn, http_request.HTTPError(503, message),
                           ('Retry-After: %d\r\n' % self.retry_after))

    def _on_readable(self, conn):
        try:
            data = conn.sock.recv(_RECV_SIZE)
            # TLS: a record read whole may leave more decrypted, which no
            # readiness of the socket would announce.
            while data and self.tls is not None and conn.sock.pending():
                data += conn.sock.recv(_RECV_SIZE)
        except connections.NOT_NOW:
            return
        except OSError:
            self._close(conn)
            return
        if not data:
            self._close(conn)
            return
        if conn.state != connections.READING:
            return   # lingering: what comes now is thrown away
        if not conn.started:
            conn.started = True
            conn.deadline = time.monotonic() + self.timeout
        conn.buffer += data
        self._advance(conn)

    def _advance(self, conn):
        """Run the requests the buffer holds whole, one after the other.

        A loop, not recursion: a client may pipeline thousands of requests
        in one packet.
        """
        while conn.state == connections.READING and conn.buffer:
            try:
                request = conn.reader.feed(conn.buffer)
                if request is None:
                    if conn.reader.wants_continue():
                        self._send_interim(
                            conn, b'HTTP/1.1 100 Continue\r\n\r\n')
                    return
            except http_request.HTTPError as exc:
                self._answer_error(conn, exc)
                return
            conn.state = connections.RUNNING
            conn.since = time.monotonic()
            jobs = self._request_threads.queue_for(
                request.method, request.target.partition('?')[0],
                request.header)
            if jobs is not None:
                self._watch(conn, 0)
                jobs.put((conn, request))
                return
            self._run(conn, request)
            self._after_run(conn, advance=False)

    def _handed_back(self):
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        while self._done:
            conn = self._done.popleft()
            if conn.sock.fileno() in self._connections:
                self._after_run(conn)

    def _after_run(self, conn, advance=True):
        """On the I/O thread, once a request ran: send, then read on."""
        now = time.monotonic()
        conn.since = now
        if conn.out is not None:
            conn.state = connections.WRITING
            conn.deadline = now + self.timeout
            self._watch(conn, selectors.EVENT_WRITE)
            return
        self._sent(conn, advance)

    def _sent(self, conn, advance=True):
        """What follows a response: more of it, closing, or the next one."""
        if conn.out is not None:
            return
        if conn.close_after:
            self._linger(conn)
            return
        now = time.monotonic()
        conn.state = connections.READING
        conn.since = now
        conn.answered = True
        conn.started = bool(conn.buffer)
        conn.deadline = now + self.timeout
        self._watch(conn, selectors.EVENT_READ)
        if advance:
            self._advance(conn)

    def _linger(self, conn):
        if self._stopping:
            self._close(conn)
            return
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._close(conn)
            return
        conn.state = connections.LINGERING
        self._lingering += 1
        conn.deadline = time.monotonic() + _LINGER
        self._watch(conn, selectors.EVENT_READ)

    def _expire(self, now):
        self._resume_accepting()
        for conn in list(self._connections.values()):
            if conn.state == connections.RUNNING or now < conn.deadline:
                continue
            if conn.state == connections.READING and conn.started:
                self._answer_error(conn, http_request.HTTPError(
                    408, 'The request did not arrive whole within %d '
                         'seconds ([api] client_timeout).' % self.timeout))
            elif conn.state == connections.READING and self._has_pending_bytes(conn):
                # A request arrived since the last look: closing now would
                # reset it unread.  It is read at the next readiness.
                conn.deadline = now + self.timeout
            else:
                # Idle, or not taking its response, or done lingering.
                self._close(conn)

    def _close(self, conn):
        fileno = conn.sock.fileno()
        if fileno < 0:
            return
        if conn.events:
            self._selector.unregister(conn.sock)
            conn.events = 0
        if conn.state == connections.LINGERING:
            self._lingering -= 1
        self._connections.pop(fileno, None)
        conn.sock.close()

    # --- sending ----------------------------------------------------------

    def _send(self, conn):
        """Send what the socket takes now; on any thread."""
        try:
            sent = conn.sock.send(conn.out)
        except connections.NOT_NOW:
            return
        except OSError:
            # The client went away: nothing more to send or read.
            conn.out = None
            conn.close_after = True
            return
        conn.out = conn.out[sent:] if sent < len(conn.out) else None

    def _send_interim(self, conn, data):
        try:
            conn.sock.send(data)
        except OSError:
            pass   # the client sends its body after a while anyway

    def _answer_error(self, conn, exc, extra_headers=''):
        LOG.debug('Refused a request from %s: %s %s', conn.address,
                  exc.status.value, exc.message)
        payload = errors.body(exc.status.value, exc.message)
        head = ('HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n'
                'Content-Length: %d\r\nDate: %s\r\n%sConnection: close'
                '\r\n\r\n' % (exc.status.value, exc.status.phrase,
                              len(payload), self._date(), extra_headers))
        conn.out = memoryview(head.encode('ascii') + payload)
        conn.close_after = True
        self._send(conn)
        self._after_run(conn)

    # --- running a request --------------------------------------------------

    def _ran(self, conn):
        """On a request thread: hand ``conn`` back to the I/O thread."""
        self._done.append(conn)
        self._wake()

    def _wake(self):
        try:
            self._wake_w.send(b'\0')
        except (BlockingIOError, InterruptedError):
            pass   # already more wake-ups pending than needed
        except OSError:
            pass   # stopped

    def _run(self, conn, request):
        """Run ``request`` through the application and start sending."""
        keep_alive = request.keep_alive and not self._stopping
        try:
            environ = wsgi_exchange.environ(
                request, self.host, self.port,
                conn.address[0] if conn.address else '', self.url_scheme,
                multithread=self._request_threads.multithread)
        except http_request.HTTPError as exc:
            status, headers, body = wsgi_exchange.error_answer(exc)
            keep_alive = False
        else:
            status, headers, body = wsgi_exchange.call(self.application,
                                                       environ)
        if request.method == 'HEAD':
            body = b''
        conn.out = memoryview(wsgi_exchange.head(
            request, status, headers, body, keep_alive, self._date()) + body)
        conn.close_after = not keep_alive
        self._send(conn)
