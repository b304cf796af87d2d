"""Reading one HTTP/1.1 request off a connection's bytes, within limits.

:class:`RequestReader` is fed the bytes a connection receives, in any
pieces, and says when a whole request (head and body) has arrived.  It
never blocks and never reads: the server (:mod:`server`) owns the socket.
Everything a client can get wrong or abuse is refused with an
:class:`HTTPError` carrying the status to answer:

=====================================  ====================================
request line longer than 8 KiB         414
a header line longer than 8 KiB,       431
more than 100 headers, or a head
over 64 KiB
a body over the limit (announced by    413, before it is read
``Content-Length`` or reached while
decoding chunks)
malformed request line, header,        400
``Content-Length`` (not digits, two
that differ, with
``Transfer-Encoding``), chunk size
a transfer coding other than chunked   501
an HTTP version other than 1.0, 1.1    505
=====================================  ====================================

Lines may end in CRLF or a lone LF; a lone CR inside a line and folded
(``obs-fold``) header lines are refused, so that no proxy in front can
read a request differently from us.
"""

import dataclasses
import http
import re

MAX_LINE = 8 * 1024
MAX_HEADERS = 100
MAX_HEAD = 64 * 1024
#: A chunk-size line or the trailer section, each.
_MAX_CHUNK_META = 4 * 1024

_HEAD_END = re.compile(rb'\r?\n\r?\n')
_TOKEN = re.compile(rb"\A[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")
_VERSION = re.compile(rb'\AHTTP/1\.[01]\Z')
_ANY_VERSION = re.compile(rb'\AHTTP/[0-9]+(\.[0-9]+)?\Z')
_LENGTH = re.compile(rb'\A[0-9]{1,18}\Z')
_CHUNK_SIZE = re.compile(rb'\A[0-9A-Fa-f]{1,8}\Z')


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


def _lines(head):
    lines = head.split(b'\n')
    for index, line in enumerate(lines):
        if line.endswith(b'\r'):
            line = line[:-1]
        if b'\r' in line:
            raise HTTPError(400, 'A bare CR inside a line of the request '
                                 'head.')
        lines[index] = line
    return lines


def _request_line(line):
    if len(line) > MAX_LINE:
        raise HTTPError(414, 'The request line is longer than %d bytes.'
                        % MAX_LINE)
    parts = line.split(b' ')
    if len(parts) != 3 or not _TOKEN.match(parts[0]) or not parts[1]:
        raise HTTPError(400, 'Malformed request line; expected "METHOD '
                             '/path HTTP/1.1".')
    method, target, version = parts
    if not _VERSION.match(version):
        if _ANY_VERSION.match(version):
            raise HTTPError(505, 'Only HTTP/1.0 and HTTP/1.1 are served.')
        raise HTTPError(400, 'Malformed HTTP version in the request line.')
    return (method.decode('ascii'), target.decode('latin-1'),
            version.decode('ascii'))


def _header_lines(lines):
    if len(lines) > MAX_HEADERS:
        raise HTTPError(431, 'More than %d header lines.' % MAX_HEADERS)
    headers = []
    for line in lines:
        if len(line) > MAX_LINE:
            raise HTTPError(431, 'A header line is longer than %d bytes.'
                            % MAX_LINE)
        if line[:1] in (b' ', b'\t'):
            raise HTTPError(400, 'Folded header lines are not accepted.')
        name, colon, value = line.partition(b':')
        if not colon or not _TOKEN.match(name):
            raise HTTPError(400, 'Malformed header line.')
        headers.append((name.decode('ascii').lower(),
                        value.strip(b' \t').decode('latin-1')))
    return headers


def parse_head(head):
    """The :class:`Request` (without body) of a complete head."""
    lines = _lines(head)
    method, target, version = _request_line(lines[0])
    return Request(method, target, version, _header_lines(lines[1:]))


def _content_length(request, max_body):
    values = [value for name, value in request.headers
              if name == 'content-length']
    if not values:
        return None
    encoded = {value.encode('latin-1') for value in values}
    if len(encoded) > 1 or not _LENGTH.match(next(iter(encoded))):
        raise HTTPError(400, 'Malformed Content-Length; expected one '
                             'number of bytes.')
    length = int(values[0])
    if length > max_body:
        raise HTTPError(413, 'Request body too large: %d bytes; the limit '
                             'is %d bytes ([api] max_json_body_size).'
                        % (length, max_body))
    return length


class _Chunks:
    """Incremental decoder of a chunked body starting at ``start`` of the
    connection's buffer."""

    def __init__(self, max_body, start):
        self.max_body = max_body
        self.body = bytearray()
        self.position = start

    def _line(self, buffer):
        end = buffer.find(b'\n', self.position)
        if end < 0:
            if len(buffer) - self.position > _MAX_CHUNK_META:
                raise HTTPError(400, 'Malformed chunked body.')
            return None
        line = bytes(buffer[self.position:end]).rstrip(b'\r')
        return line, end + 1

    def feed(self, buffer):
        """Decode what has arrived of the body.

        :returns: where the body ends in ``buffer`` once it is complete,
            else None.
        """
        while True:
            found = self._line(buffer)
            if found is None:
                return None
            line, data_start = found
            size_text = line.split(b';', 1)[0].strip(b' \t')
            if not _CHUNK_SIZE.match(size_text):
                raise HTTPError(400, 'Malformed chunk size in a chunked '
                                     'body.')
            size = int(size_text, 16)
            if size == 0:
                return self._trailer(buffer, data_start)
            if len(self.body) + size > self.max_body:
                raise HTTPError(413, 'Request body too large: the limit is '
                                     '%d bytes ([api] max_json_body_size).'
                                % self.max_body)
            data_end = data_start + size
            if len(buffer) < data_end + 2:
                return None
            if buffer[data_end:data_end + 2] == b'\r\n':
                after = data_end + 2
            elif buffer[data_end:data_end + 1] == b'\n':
                after = data_end + 1
            else:
                raise HTTPError(400, 'A chunk is longer than its size.')
            self.body += buffer[data_start:data_end]
            self.position = after

    def _trailer(self, buffer, start):
        position = start
        while True:
            end = buffer.find(b'\n', position)
            if end < 0:
                if len(buffer) - start > _MAX_CHUNK_META:
                    raise HTTPError(431, 'The trailer of a chunked body is '
                                         'too long.')
                return None
            if bytes(buffer[position:end]).rstrip(b'\r') == b'':
                return end + 1
            position = end + 1


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
        self._head_length = None
        self._length = None
        self._chunks = None
        self._scanned = 0
        self.continue_sent = False

    def _find_head(self, buffer):
        # Only the new bytes (and the three before them) can end the head.
        match = _HEAD_END.search(buffer, max(0, self._scanned - 3),
                                 MAX_HEAD + 4)
        self._scanned = len(buffer)
        if match is None:
            if len(buffer) > MAX_HEAD:
                raise HTTPError(431, 'The request head is longer than %d '
                                     'bytes.' % MAX_HEAD)
            first_line = buffer.find(b'\n')
            if (first_line < 0 and len(buffer) > MAX_LINE) or (
                    first_line > MAX_LINE):
                raise HTTPError(414, 'The request line is longer than %d '
                                     'bytes.' % MAX_LINE)
            return False
        self.request = parse_head(bytes(buffer[:match.start()]))
        self._head_length = match.end()
        self._framing()
        return True

    def _framing(self):
        request = self.request
        coding = request.header('transfer-encoding')
        length = _content_length(request, self.max_body)
        if coding is not None:
            if length is not None:
                raise HTTPError(400, 'Content-Length and Transfer-Encoding '
                                     'together are ambiguous.')
            if coding.strip().lower() != 'chunked':
                raise HTTPError(501, 'Only the chunked transfer coding is '
                                     'served.')
            self._chunks = _Chunks(self.max_body, self._head_length)
            request.has_body = True
        elif length is not None:
            self._length = length
            request.has_body = True

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
        if self._head_length is None:
            # Empty lines before a request are allowed (RFC 9112 2.2).
            while buffer[:2] == b'\r\n' or buffer[:1] == b'\n':
                del buffer[:2 if buffer[:1] == b'\r' else 1]
                self._scanned = 0
            if not buffer or not self._find_head(buffer):
                return None
        request, start = self.request, self._head_length
        if self._chunks is not None:
            end = self._chunks.feed(buffer)
            if end is None:
                return None
            request.body = bytes(self._chunks.body)
        elif self._length is not None:
            end = start + self._length
            if len(buffer) < end:
                return None
            request.body = bytes(buffer[start:end])
        else:
            end = start
        del buffer[:end]
        self.reset()
        return request
