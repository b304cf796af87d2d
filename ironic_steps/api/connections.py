"""A client connection of the API's server, and the limits on them.

What :mod:`server` keeps per client (:class:`Connection`), the states a
connection goes through, how many connections and how long a listen
backlog a server allows by default, and the TLS pieces it needs: its
context (:func:`tls_context`) and a look at unread bytes that works for
plain and TLS sockets alike (:func:`peek`).
"""

import resource
import socket
import ssl

from ironic_steps.api import http_request

_SOMAXCONN = '/proc/sys/net/core/somaxconn'
#: What a non-blocking socket raises when it cannot go on now: for TLS,
#: also when a record is incomplete or the peer must read first.
NOT_NOW = (BlockingIOError, InterruptedError, ssl.SSLWantReadError,
           ssl.SSLWantWriteError)

# What a connection is doing.
READING = 'reading'      # waiting for (the rest of) a request
RUNNING = 'running'      # its request is running; the I/O thread waits
WRITING = 'writing'      # its response is being sent
LINGERING = 'lingering'  # answered and closing: draining what comes


def default_max_connections():
    """Half the process's file descriptors: the rest stay for the database,
    the message bus and logs."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(16, soft // 2)


def default_backlog():
    """The kernel's limit of a listen backlog, which caps any larger one.

    Python's ``socket.SOMAXCONN`` is the C library's constant (128 with
    older ones) even where the kernel allows more.
    """
    try:
        with open(_SOMAXCONN) as limit:
            return max(socket.SOMAXCONN, int(limit.read()))
    except (OSError, ValueError):
        return socket.SOMAXCONN


def tls_context(cert_file, key_file):
    """The TLS context of a server whose certificate (PEM, its chain after
    it) and private key are in these files: TLS 1.2 or later, otherwise
    the ``ssl`` module's defaults for a server.

    :raises OSError: a file cannot be read; ``ssl.SSLError``: it holds no
        certificate, or no key matching it.
    """
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert_file, key_file)
    return context


def peek(sock):
    """Whether the client sent what has not been read yet (or closed)."""
    if isinstance(sock, ssl.SSLSocket):
        if sock.pending():
            return True
        # The encrypted bytes: SSLSocket.recv takes no flags.
        return socket.socket.recv(sock, 1, socket.MSG_PEEK)
    return sock.recv(1, socket.MSG_PEEK)


class Connection:
    """One client's connection: its socket, what it sent, what it is
    doing (:data:`READING` ... :data:`LINGERING`) and until when."""

    __slots__ = ('sock', 'address', 'buffer', 'reader', 'state', 'deadline',
                 'started', 'out', 'close_after', 'events', 'since',
                 'answered', 'handshaking')

    def __init__(self, sock, address, max_body, now, timeout):
        self.sock = sock
        self.address = address
        self.buffer = bytearray()
        self.reader = http_request.RequestReader(max_body)
        self.state = READING
        self.deadline = now + timeout
        #: Whether part of a request has arrived (its deadline runs).
        self.started = False
        self.out = None
        self.close_after = False
        self.events = 0
        self.since = now
        #: Whether a response was sent on it (then idle means keep-alive).
        self.answered = False
        #: A TLS handshake is under way (see Server._handshake).
        self.handshaking = isinstance(sock, ssl.SSLSocket)
