"""Reading one HTTP/1.1 request off a connection's bytes, within limits.

:class:`RequestReader` is fed the bytes a connection receives, in any
pieces, and says when a whole request (head and body) has arrived.  It
never blocks and never reads: the server (:mod:`server`) owns the socket.

Parsing is h11's (the sans-I/O HTTP/1.1 parser under httpx and uvicorn,
fuzzed upstream): the request line, header syntax, ``Content-Length``,
chunked bodies and their trailers, and RFC 9112's rules on them, such as
the ``Host`` header every HTTP/1.1 request must carry.  Each request gets
a fresh ``h11.Connection`` (a few microseconds): h11 then never needs to
hear about our responses, which the server writes itself.

What is left here is what h11 does not do, refused with an
:class:`HTTPError` carrying the status to answer:

=====================================  ====================================
a head over 64 KiB                     431 (h11's own limit, set here)
a request target over 8 KiB            414
a header line over 8 KiB, or more      431
than 100 headers
a body over the limit (announced by    413, before it is read
``Content-Length`` or reached while
decoding chunks)
``Content-Length`` with                400 (h11 would let chunked win)
``Transfer-Encoding``
folded (``obs-fold``) header lines     400 (h11 would unfold them)
an HTTP version other than 1.0, 1.1    505
an ``Expect`` other than               417
``100-continue``
=====================================  ====================================

Everything else h11 refuses (a malformed line, header, length or chunk;
a transfer coding other than chunked, 501) keeps h11's status and
message.  Folded lines and the two framing headers together are refused
so that no proxy in front can read a request differently from us.
"""

import dataclasses
import http
import re

import h11

MAX_LINE = 8 * 1024
MAX_HEADERS = 100
MAX_HEAD = 64 * 1024
#: Bytes handed to h11 at a time: what it holds beyond one request is
#: copied back for the next, so a long pipeline is not copied whole per
#: request.
_FEED = 64 * 1024

_HEAD_END = re.compile(rb'\r?\n\r?\n')
_FOLD = re.compile(rb'\n[ \t]')
#: Enough of the bytes before new ones to see a fold or the head's end
#: cut in two.
_OVERLAP = 3
#: How much of h11's reason an answer quotes.
_REASON = 120


class HTTPError(Exception):
    """A request answered by the server itself; then the connection ends."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = http.HTTPStatus(status)
        self.message = message


@dataclasses.dataclass
class Request:
    method: str
    target: str
    version: str
    #: (lower-case name, value) pairs, as received, values latin-1.
    headers: list
    body: bytes = b''
    has_body: bool = False

    def header(self, name):
        """The values of header ``name`` joined by ', ', or None."""
        values = [value for key, value in self.headers if key == name]
        return ', '.join(values) if values else None

    @property
    def keep_alive(self):
        connection = (self.header('connection') or '').lower()
        if self.version == 'HTTP/1.0':
            return 'keep-alive' in connection
        return 'close' not in connection


def _request(event, max_body):
    """Our :class:`Request` (without body) of h11's, within our limits."""
    version = event.http_version.decode('ascii')
    if version not in ('1.0', '1.1'):
        raise HTTPError(505, 'Only HTTP/1.0 and HTTP/1.1 are served.')
    if len(event.target) > MAX_LINE:
        raise HTTPError(414, 'The request target is longer than %d bytes.'
                        % MAX_LINE)
    raw = event.headers.raw_items()
    if len(raw) > MAX_HEADERS:
        raise HTTPError(431, 'More than %d header lines.' % MAX_HEADERS)
    headers = []
    for name, value in raw:
        if len(name) + len(value) + 2 > MAX_LINE:
            raise HTTPError(431, 'A header line is longer than %d bytes.'
                            % MAX_LINE)
        headers.append((name.decode('ascii').lower(),
                        value.decode('latin-1')))
    request = Request(event.method.decode('ascii'),
                      event.target.decode('latin-1'), 'HTTP/' + version,
                      headers)
    coding = request.header('transfer-encoding')
    length = request.header('content-length')
    if coding is not None and length is not None:
        raise HTTPError(400, 'Content-Length and Transfer-Encoding together '
                             'are ambiguous.')
    if length is not None and int(length.partition(',')[0]) > max_body:
        raise HTTPError(413, 'Request body too large: %s bytes; the limit '
                             'is %d bytes ([api] max_json_body_size).'
                        % (length.partition(',')[0].strip(), max_body))
    request.has_body = coding is not None or length is not None
    return request


def _brief(error):
    """h11's reason without the bytes it quotes (up to a whole line)."""
    reason = str(error).split(': bytearray(', 1)[0].split(": b'", 1)[0]
    return reason[:_REASON]


class RequestReader:
    """Tells, from the bytes of a connection, when a request is whole.

    ``buffer`` is the connection's receive buffer (a ``bytearray``);
    :meth:`feed` is called whenever it grows, and consumes a complete
    request from its front.
    """

    def __init__(self, max_body):
        self.max_body = max_body
        self.reset()

    def reset(self):
        self.request = None
        self.continue_sent = False
        self._parser = h11.Connection(h11.SERVER,
                                      max_incomplete_event_size=MAX_HEAD)
        self._body = []
        self._body_size = 0
        #: Whether bytes of the request (not empty lines) have come.
        self._started = False
        #: The last bytes given while the head was still arriving.
        self._head_tail = b''

    def wants_continue(self):
        """Whether to send ``100 Continue`` now (once per request)."""
        request = self.request
        if (request is None or self.continue_sent
                or request.version != 'HTTP/1.1' or not request.has_body):
            return False
        expect = request.header('expect')
        if expect is None:
            return False
        if expect.strip().lower() != '100-continue':
            raise HTTPError(417, 'Only "Expect: 100-continue" is served.')
        self.continue_sent = True
        return True

    def feed(self, buffer):
        """The complete :class:`Request` at the front of ``buffer``, which
        it removes from there; None while more bytes are needed.

        :raises HTTPError:
        """
        if not self._started:
            # Empty lines before a request are allowed (RFC 9112 2.2);
            # h11 refuses them.
            while buffer[:2] == b'\r\n' or buffer[:1] == b'\n':
                del buffer[:2 if buffer[:1] == b'\r' else 1]
            if buffer == b'\r':
                return None     # perhaps the start of another empty line
            self._started = bool(buffer)
        while buffer:
            data = bytes(buffer[:_FEED])
            del buffer[:_FEED]
            if self.request is None:
                self._refuse_folding(data)
            self._parser.receive_data(data)
            request = self._events()
            if request is not None:
                left, _closed = self._parser.trailing_data
                buffer[:0] = left
                self.reset()
                return request
        return None

    def _refuse_folding(self, data):
        seen = self._head_tail + data
        end = _HEAD_END.search(seen)
        if _FOLD.search(seen, 0, end.start() if end else len(seen)):
            raise HTTPError(400, 'Folded header lines are not accepted.')
        self._head_tail = seen[-_OVERLAP:]

    def _events(self):
        """Read h11's events: the whole request once it is there."""
        while True:
            try:
                event = self._parser.next_event()
            except h11.RemoteProtocolError as exc:
                raise HTTPError(exc.error_status_hint,
                                'Malformed request: %s.' % _brief(exc)
                                ) from exc
            if event is h11.NEED_DATA:
                return None
            if isinstance(event, h11.Request):
                self.request = _request(event, self.max_body)
            elif isinstance(event, h11.Data):
                self._body_size += len(event.data)
                if self._body_size > self.max_body:
                    raise HTTPError(413, 'Request body too large: the limit '
                                         'is %d bytes ([api] '
                                         'max_json_body_size).'
                                    % self.max_body)
                self._body.append(event.data)
            elif isinstance(event, h11.EndOfMessage):
                request = self.request
                request.body = b''.join(self._body)
                return request
