"""Many clients connecting to an HTTP server at the same instant.

:func:`burst` opens every connection before it reads a single answer (one
thread, non-blocking sockets, so the connects really arrive together),
sends one request on each and reads each answer to its end.  Each
connection ends in one :data:`OUTCOMES`:

* ``served``: a whole HTTP response arrived (its status is kept);
* ``refused``: the connect was refused;
* ``reset``: the connection was reset (ECONNRESET, EPIPE) before a whole
  response arrived: a silent drop;
* ``closed``: the server closed the connection without a word;
* ``timeout``: no whole answer in time.

Used by the server's tests and by ``benchmarks/connection_burst.py``.
"""

import collections
import errno
import selectors
import socket
import time

OUTCOMES = ('served', 'refused', 'reset', 'closed', 'timeout')

#: What became of one connection; ``status`` only when ``served``.
Outcome = collections.namedtuple('Outcome', 'outcome status seconds')


class _Client:
    __slots__ = ('sock', 'started', 'received', 'sent', 'result')

    def __init__(self, sock, started):
        self.sock = sock
        self.started = started
        self.received = b''
        self.sent = False
        self.result = None

    def finish(self, outcome):
        status = None
        if outcome == 'served':
            status = int(self.received.split(b' ', 2)[1])
        self.result = Outcome(outcome, status,
                              time.monotonic() - self.started)
        self.sock.close()


def _whole(received):
    """Whether ``received`` holds a whole response (head and body)."""
    head, separator, body = received.partition(b'\r\n\r\n')
    if not separator:
        return False
    for line in head.split(b'\r\n')[1:]:
        name, _, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            return len(body) >= int(value)
    return True


def _ended(client):
    return 'served' if _whole(client.received) else (
        'reset' if client.received else 'closed')


def _step(client, request, selector):
    """Advance one client; its outcome once it has one."""
    sock = client.sock
    if not client.sent:
        error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if error == errno.ECONNREFUSED:
            return 'refused'
        if error:
            return 'reset'
        try:
            sock.sendall(request)
        except (ConnectionResetError, BrokenPipeError):
            return 'reset'
        client.sent = True
        selector.modify(sock, selectors.EVENT_READ, client)
        return None
    try:
        data = sock.recv(65536)
    except BlockingIOError:
        return None
    except ConnectionResetError:
        return 'served' if _whole(client.received) else 'reset'
    if data:
        client.received += data
        return None
    return _ended(client)


def burst(host, port, count, request, timeout=30):
    """Connect ``count`` clients at once, each sending ``request`` bytes.

    :returns: one :data:`Outcome` per client, in connect order.
    """
    selector = selectors.DefaultSelector()
    clients = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        client = _Client(sock, time.monotonic())
        clients.append(client)
        if sock.connect_ex((host, port)) not in (0, errno.EINPROGRESS):
            client.finish('refused')
            continue
        selector.register(sock, selectors.EVENT_WRITE, client)
    deadline = time.monotonic() + timeout
    pending = sum(1 for client in clients if client.result is None)
    while pending and time.monotonic() < deadline:
        for key, _ in selector.select(0.1):
            outcome = _step(key.data, request, selector)
            if outcome is not None:
                selector.unregister(key.data.sock)
                key.data.finish(outcome)
                pending -= 1
    for client in clients:
        if client.result is None:
            selector.unregister(client.sock)
            client.finish('timeout')
    selector.close()
    return [client.result for client in clients]
