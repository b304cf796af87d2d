"""The API's HTTP server: no client can hold it, every framing error is a
4xx in Ironic's format, each hostile connection ends in bounded time, and
every client that connects is answered, in a burst or past the limit.

The real API application is served on 127.0.0.1 (a free port) by
:class:`server.Server` in this process, over a real conductor; clients are
raw sockets, so that they can misbehave.
"""

import collections
import http.client
import json
import selectors
import socket
import threading
import time

import ddt
import testtools

from ironic_steps.api import http_request
from ironic_steps.api import lanes
from ironic_steps.api import server
from tests import burst
from tests.unit.api import base

GET_NODES = (b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\n'
             b'X-OpenStack-Ironic-API-Version: 1.44\r\n\r\n')
GET_CLOSE = GET_NODES.replace(b'\r\n\r\n', b'\r\nConnection: close\r\n\r\n')


def status_of(data):
    return int(data.split(b' ', 2)[1]) if data else None


class ServedMixin:
    threads = 1
    timeout = 2
    #: Whether pages of records run on the lane, as in the service.
    lane = False

    def setUp(self):
        super().setUp()
        self.server = self.serve(self.app)

    def serve(self, application, **kwargs):
        kwargs.setdefault('threads', self.threads)
        kwargs.setdefault('timeout', self.timeout)
        kwargs.setdefault('max_body', 64 * 1024)
        if self.lane:
            kwargs.setdefault('long_requests', lanes.matcher(self.app))
        served = server.Server(application, '127.0.0.1', 0, **kwargs)
        served.prepare()
        thread = threading.Thread(target=served.serve, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(served.stop)
        return served

    def connect(self, served=None):
        sock = socket.create_connection(
            ('127.0.0.1', (served or self.server).port), timeout=10)
        self.addCleanup(sock.close)
        return sock

    def exchange(self, raw, served=None):
        """Send ``raw``; everything received until the server closes."""
        sock = self.connect(served)
        sock.sendall(raw)
        return self.read_until_closed(sock)

    def read_until_closed(self, sock, limit=30):
        received = b''
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                break
            if not data:
                break
            received += data
        return received

    def timed_get(self):
        started = time.monotonic()
        connection = http.client.HTTPConnection('127.0.0.1',
                                                self.server.port, timeout=30)
        connection.request('GET', '/v1/nodes')
        response = connection.getresponse()
        response.read()
        connection.close()
        self.assertEqual(200, response.status)
        return time.monotonic() - started


class HostileClientsTestBase(ServedMixin):

    def hostile(self, kind, outcome):
        sock = self.connect()
        sock.settimeout(0.1)
        opened = time.monotonic()
        head = GET_NODES[:-2]
        if kind == 'half-sent':
            sock.sendall(b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\n'
                         b'Content-Length: 100\r\n\r\n{"driver":')
        sent, received = 0, b''
        while time.monotonic() - opened < 20:
            if kind == 'trickle' and sent < len(head):
                sock.send(head[sent:sent + 1])
                sent += 1
            try:
                data = sock.recv(4096)
            except socket.timeout:
                continue
            except ConnectionResetError:
                break
            if not data:
                break
            received += data
        outcome.append((kind, time.monotonic() - opened, status_of(received)))

    def test_ten_hostile_connections_hold_no_one_and_all_end_in_time(self):
        # Given ten clients: trickling a head, half a body, or silent
        outcome = []
        kinds = ['trickle'] * 4 + ['half-sent'] * 3 + ['silent'] * 3
        threads = [threading.Thread(target=self.hostile, args=(kind,
                                                               outcome))
                   for kind in kinds]
        for thread in threads:
            thread.start()
        time.sleep(0.3)
        # Then a normal GET answers at once, again and again
        for _ in range(5):
            self.assertLess(self.timed_get(), 1.0)
        for thread in threads:
            thread.join()
        # And each hostile connection was ended by the server in time,
        # with 408 where an answer was due
        self.assertEqual(10, len(outcome))
        for kind, seconds, status in outcome:
            self.assertLess(seconds, self.timeout + 2, kind)
            self.assertEqual(None if kind == 'silent' else 408, status, kind)

    def test_a_body_shorter_than_its_length_is_408_not_500(self):
        # The test waits the server's deadline out, doing nothing else
        # meanwhile: a short deadline.
        served = self.serve(self.app, timeout=0.5)
        started = time.monotonic()
        data = self.exchange(b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\n'
                             b'Content-Length: 50\r\n\r\n{"driver": "f',
                             served)
        self.assertEqual(408, status_of(data))
        self.assertIn(b'client_timeout', data)
        self.assertLess(time.monotonic() - started, 0.5 + 2)

    def test_a_client_that_does_not_read_its_answer_holds_no_one(self):
        def big(environ, start_response):
            start_response('200 OK', [('Content-Type', 'text/plain')])
            return [b'x' * (8 * 1024 * 1024)]
        served = self.serve(big)
        sock = self.connect(served)
        sock.sendall(b'GET / HTTP/1.1\r\nHost: t\r\n\r\n')
        time.sleep(0.3)
        other = self.connect(served)
        other.sendall(b'GET / HTTP/1.1\r\nHost: t\r\nConnection: close'
                      b'\r\n\r\n')
        started = time.monotonic()
        self.assertEqual(8 * 1024 * 1024, len(
            self.read_until_closed(other).split(b'\r\n\r\n', 1)[1]))
        self.assertLess(time.monotonic() - started, 5)

    def test_past_the_connection_limit_the_longest_idle_is_answered_503(
            self):
        # Given a server at its limit with idle connections
        served = self.serve(self.app, max_connections=3, retry_after=7)
        idle = [self.connect(served) for _ in range(3)]
        time.sleep(0.2)
        # When one more client comes, it is served
        self.assertEqual(200, status_of(self.exchange(GET_CLOSE, served)))
        # And the longest idle connection made room with an answer, not a
        # reset or a silent close
        answer = self.read_until_closed(idle[0], limit=5)
        self.assertEqual(503, status_of(answer))
        self.assertIn(b'Retry-After: 7\r\n', answer)
        self.assertIn(b'faultstring', answer)

    def test_past_the_connection_limit_with_none_idle_the_client_gets_503(
            self):
        # Given a server whose every connection has a request under way
        served = self.serve(self.app, max_connections=2)
        for _ in range(2):
            self.connect(served).sendall(
                b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\n'
                b'Content-Length: 10\r\n\r\n{')
        time.sleep(0.2)
        # When one more client comes, it is answered 503 itself
        answer = self.exchange(GET_CLOSE, served)
        self.assertEqual(503, status_of(answer))
        self.assertIn(b'Retry-After: 5\r\n', answer)
        self.assertIn(b'max_connections', answer.split(b'\r\n\r\n', 1)[1])

    def test_fifty_clients_connecting_at_once_are_all_served(self):
        outcomes = burst.burst('127.0.0.1', self.server.port, 50, GET_CLOSE)
        self.assertEqual([('served', 200)] * 50,
                         [(o.outcome, o.status) for o in outcomes])

    def test_while_the_server_is_busy_a_burst_waits_in_the_listen_queue(
            self):
        # Given a server whose I/O thread is held by a request
        release = threading.Event()

        def slow(environ, start_response):
            release.wait(10)
            start_response('204 No Content', [])
            return []
        served = self.serve(slow, threads=1)
        self.addCleanup(release.set)
        self.connect(served).sendall(b'GET / HTTP/1.1\r\nHost: t\r\n\r\n')
        time.sleep(0.2)
        # When 300 clients connect meanwhile, every handshake completes
        # (a short backlog would leave them retrying SYNs for seconds)
        selector = selectors.DefaultSelector()
        self.addCleanup(selector.close)
        for _ in range(300):
            sock = socket.socket()
            self.addCleanup(sock.close)
            sock.setblocking(False)
            sock.connect_ex(('127.0.0.1', served.port))
            selector.register(sock, selectors.EVENT_WRITE)
        connected, deadline = set(), time.monotonic() + 2
        while len(connected) < 300 and time.monotonic() < deadline:
            for key, _ in selector.select(0.1):
                if not key.fileobj.getsockopt(socket.SOL_SOCKET,
                                              socket.SO_ERROR):
                    connected.add(key.fileobj)
                selector.unregister(key.fileobj)
        self.assertEqual(300, len(connected))
        self.assertGreaterEqual(served.backlog, 300)

    def test_a_burst_past_the_limit_is_served_or_answered_503_never_reset(
            self):
        served = self.serve(self.app, max_connections=10)
        outcomes = burst.burst('127.0.0.1', served.port, 60, GET_CLOSE)
        self.assertEqual({'served'}, {o.outcome for o in outcomes})
        statuses = collections.Counter(o.status for o in outcomes)
        self.assertEqual({200, 503}, set(statuses))
        self.assertGreaterEqual(statuses[200], 10)


class HostileClientsOnTheIOThreadTest(HostileClientsTestBase,
                                      base.ApiTestCase):
    """The all-in-one default: requests run on the I/O thread."""


class HostileClientsWithALaneTest(HostileClientsTestBase,
                                  base.ApiTestCase):
    """The all-in-one as served: lists (these clients' GETs) on the lane."""

    lane = True


class HostileClientsWithAPoolTest(HostileClientsTestBase, base.ApiTestCase):
    """ironic-steps-api's default: a pool of four request threads."""

    threads = 4


class LaneTest(ServedMixin, base.ApiTestCase):
    """A page of records runs on the lane: short requests pass it by."""

    lane = True

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='short')['uuid']
        self.page_started = threading.Event()
        self.page_may_end = threading.Event()

    def gated(self, environ, start_response):
        """The application, with every port list held until released: a
        page that takes as long as the test wants."""
        if environ['PATH_INFO'] == '/v1/ports':
            self.page_started.set()
            self.page_may_end.wait(20)
        return self.app(environ, start_response)

    def start_page(self, served):
        # Released before the server stops (cleanups run last first): a
        # server stopping waits for the requests it runs.
        self.addCleanup(self.page_may_end.set)
        sock = self.connect(served)
        sock.sendall(b'GET /v1/ports HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
        self.assertTrue(self.page_started.wait(10))
        return sock

    def node_get(self, served, timeout):
        connection = http.client.HTTPConnection('127.0.0.1', served.port,
                                                timeout=timeout)
        self.addCleanup(connection.close)
        connection.request('GET', '/v1/nodes/' + self.node,
                           headers={'X-OpenStack-Ironic-API-Version': '1.5'})
        response = connection.getresponse()
        return response.status, json.loads(response.read())

    def test_a_node_get_is_answered_while_a_page_runs(self):
        served = self.serve(self.gated)
        page = self.start_page(served)
        status, node = self.node_get(served, timeout=10)
        self.assertEqual((200, 'short'), (status, node['name']))
        self.assertFalse(self.page_may_end.is_set())
        self.page_may_end.set()
        answer = self.read_until_closed(page)
        self.assertEqual(200, status_of(answer))
        self.assertIn(b'"ports": []', answer)

    def test_without_the_lane_the_node_get_waits_for_the_page(self):
        # What the lane is for: the same exchange on the I/O thread alone.
        served = self.serve(self.gated, long_requests=None)
        self.start_page(served)
        self.assertRaises(socket.timeout, self.node_get, served, timeout=1)

    def test_a_connections_requests_are_answered_in_order_across_lanes(
            self):
        self.page_may_end.set()
        served = self.serve(self.gated)
        sock = self.connect(served)
        sock.sendall(b'GET /v1/ports HTTP/1.1\r\nHost: t\r\n\r\n'
                     + ('GET /v1/nodes/%s HTTP/1.1\r\nHost: t\r\n'
                        'X-OpenStack-Ironic-API-Version: 1.5\r\n\r\n'
                        % self.node).encode()
                     + b'GET /v1/ports/detail HTTP/1.1\r\nHost: t\r\n'
                     b'Connection: close\r\n\r\n')
        answer = self.read_until_closed(sock)
        self.assertEqual(3, answer.count(b'HTTP/1.1 200 OK'))
        self.assertLess(answer.index(b'"ports"'), answer.index(b'"short"'))
        self.assertLess(answer.index(b'"short"'),
                        answer.rindex(b'"ports"'))


@ddt.ddt
class FramingTest(ServedMixin, base.ApiTestCase):
    """What the server answers itself, in Ironic's error format."""

    @ddt.data(
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nContent-Length: -5\r\n\r\n', 400),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nContent-Length: 1x\r\n\r\n', 400),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n'
         b'Content-Length: 3\r\n\r\n', 400),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n'
         b'Transfer-Encoding: chunked\r\n\r\n', 400),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n', 501),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n'
         b'zz\r\n{}\r\n0\r\n\r\n', 400),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n'
         b'1\r\n{}\r\n0\r\n\r\n', 400),
        (b'GET /v1/nodes HTTP/2.0\r\n\r\n', 505),
        (b'GET /v1/nodes\r\n\r\n', 400),
        (b'GET  /v1/nodes HTTP/1.1\r\nHost: t\r\n\r\n', 400),
        (b'GET * HTTP/1.1\r\nHost: t\r\n\r\n', 400),
        (b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\nBad Header: x\r\n\r\n', 400),
        (b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\nA: b\r\n folded\r\n\r\n', 400),
        (b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\nA: b\rc\r\n\r\n', 400),
        (b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\n' + b'A: b\r\n' * 101 + b'\r\n', 431),
        (b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\nA: ' + b'b' * 9000 + b'\r\n\r\n', 431),
        (b'GET /' + b'a' * 9000 + b' HTTP/1.1\r\nHost: t\r\n\r\n', 414),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n'
         b'Expect: 200-ok\r\n\r\n', 417),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nContent-Length: 9999999\r\n\r\n', 413),
        (b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n'
         + (b'8000\r\n' + b' ' * 0x8000 + b'\r\n') * 3 + b'0\r\n\r\n',
         413))
    @ddt.unpack
    def test_a_malformed_request_is_answered_and_the_connection_closed(
            self, raw, status):
        data = self.exchange(raw)
        self.assertEqual(status, status_of(data), data[:300])
        head, body = data.split(b'\r\n\r\n', 1)
        self.assertIn(b'Connection: close', head)
        fault = json.loads(json.loads(body)['error_message'])
        self.assertEqual('Client' if status < 500 else 'Server',
                         fault['faultcode'])
        self.assertTrue(fault['faultstring'])

    def test_a_chunked_body_creates_a_node(self):
        body = b'{"driver": "fake-hardware", "name": "chunky"}'
        data = self.exchange(
            b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nConnection: close\r\n'
            b'X-OpenStack-Ironic-API-Version: 1.44\r\n'
            b'Transfer-Encoding: chunked\r\n\r\n'
            + b'%x\r\n%s\r\n' % (10, body[:10])
            + b'%x;ext=1\r\n%s\r\n' % (len(body) - 10, body[10:])
            + b'0\r\nTrailer: x\r\n\r\n')
        self.assertEqual(201, status_of(data), data)
        self.assertEqual(200, status_of(self.exchange(
            b'GET /v1/nodes/chunky HTTP/1.1\r\nHost: t\r\nConnection: close\r\n'
            b'X-OpenStack-Ironic-API-Version: 1.44\r\n\r\n')))

    def test_expect_100_continue_is_answered_before_the_body(self):
        sock = self.connect()
        body = b'{"driver": "fake-hardware"}'
        sock.sendall(b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\nConnection: close\r\n'
                     b'Expect: 100-continue\r\nContent-Length: %d\r\n\r\n'
                     % len(body))
        self.assertEqual(b'HTTP/1.1 100 Continue\r\n\r\n', sock.recv(100))
        sock.sendall(body)
        self.assertEqual(201, status_of(self.read_until_closed(sock)))

    def test_pipelined_requests_are_answered_in_order(self):
        data = self.exchange(
            GET_NODES + b'GET /v1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')
        self.assertEqual(2, data.count(b'HTTP/1.1 200 OK'))
        self.assertLess(data.index(b'"nodes"'), data.index(b'"media_types"'))

    def test_thousands_of_pipelined_requests_are_all_answered(self):
        data = self.exchange(b'GET /v1 HTTP/1.1\r\nHost: t\r\n\r\n' * 2000
                             + b'GET /v1 HTTP/1.1\r\nHost: t\r\nConnection: close'
                             b'\r\n\r\n')
        self.assertEqual(2001, data.count(b'HTTP/1.1 200 OK'))

    def test_keep_alive_serves_many_requests_on_one_connection(self):
        connection = http.client.HTTPConnection('127.0.0.1',
                                                self.server.port, timeout=10)
        for _ in range(3):
            connection.request('GET', '/v1/nodes')
            response = connection.getresponse()
            self.assertEqual(200, response.status)
            response.read()
        connection.close()

    def test_head_has_no_body_and_http_1_0_closes(self):
        data = self.exchange(b'HEAD /v1 HTTP/1.0\r\n\r\n')
        head, body = data.split(b'\r\n\r\n', 1)
        self.assertEqual(b'', body)
        self.assertIn(b'Connection: close', head)
        self.assertIn(b'Content-Length: ', head)

    def test_an_absolute_url_is_its_path(self):
        data = self.exchange(b'GET http://t/v1/nodes?limit=1 HTTP/1.1\r\nHost: t\r\n'
                             b'Connection: close\r\n\r\n')
        self.assertEqual(200, status_of(data))

    def test_a_header_with_an_underscore_cannot_pose_as_another(self):
        seen = []

        def echo(environ, start_response):
            seen.append({k: v for k, v in environ.items()
                         if k.startswith('HTTP_X')})
            start_response('204 No Content', [])
            return []
        self.exchange(b'GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n'
                      b'X_Roles: admin\r\nX-Trace: 1\r\n\r\n',
                      self.serve(echo))
        self.assertEqual([{'HTTP_X_TRACE': '1'}], seen)

    def test_an_application_error_is_500_in_ironics_format(self):
        def broken(environ, start_response):
            raise RuntimeError('boom: internal detail')
        data = self.exchange(b'GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n',
                             self.serve(broken))
        self.assertEqual(500, status_of(data))
        self.assertNotIn(b'internal detail', data)
        self.assertIn(b'faultstring', data)


@ddt.ddt
class RequestReaderTest(testtools.TestCase):
    """A request is the same however its bytes are cut."""

    @ddt.data(
        b'POST /a?b=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello',
        b'POST /a?b=1 HTTP/1.1\nHost: t\nContent-Length: 5\n\nhello',
        b'\r\nPOST /a?b=1 HTTP/1.1\r\nHost: t\r\n'
        b'Transfer-Encoding: chunked\r\n\r\n2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n')
    def test_byte_by_byte_or_whole_the_request_is_the_same(self, raw):
        whole = http_request.RequestReader(100).feed(bytearray(raw))
        reader, buffer, found = http_request.RequestReader(100), bytearray(), []
        for byte in raw:
            buffer.append(byte)
            request = reader.feed(buffer)
            if request is not None:
                found.append(request)
        self.assertEqual([whole], found)
        self.assertEqual(b'hello', whole.body)
        self.assertEqual(('POST', '/a?b=1'), (whole.method, whole.target))
        self.assertEqual(b'', bytes(buffer))

    def test_what_follows_a_request_stays_for_the_next(self):
        buffer = bytearray(b'GET /a HTTP/1.1\r\nHost: t\r\n\r\n'
                           b'GET /b HTTP/1.1\r\nHost: t\r\n')
        reader = http_request.RequestReader(100)
        self.assertEqual('/a', reader.feed(buffer).target)
        self.assertIsNone(reader.feed(buffer))
        buffer += b'\r\n'
        self.assertEqual('/b', reader.feed(buffer).target)

    def test_an_http_1_1_request_without_host_is_refused_400(self):
        # RFC 9112 3.2: h11 refuses it, so does the server
        reader = http_request.RequestReader(100)
        error = self.assertRaises(http_request.HTTPError, reader.feed,
                                  bytearray(b'GET /a HTTP/1.1\r\n\r\n'))
        self.assertEqual(400, error.status)
        self.assertIn('Host', error.message)
        # An HTTP/1.0 request needs none
        self.assertEqual('/a', http_request.RequestReader(100).feed(
            bytearray(b'GET /a HTTP/1.0\r\n\r\n')).target)

    def test_a_fold_cut_between_two_reads_is_still_refused(self):
        reader = http_request.RequestReader(100)
        self.assertIsNone(reader.feed(bytearray(
            b'GET /a HTTP/1.1\r\nHost: t\r\nA: b\r\n')))
        error = self.assertRaises(http_request.HTTPError, reader.feed,
                                  bytearray(b'\tfolded\r\n\r\n'))
        self.assertEqual(400, error.status)

    def test_a_body_may_hold_what_would_be_a_fold_in_a_head(self):
        raw = (b'POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\n'
               b'\n \n ')
        self.assertEqual(b'\n \n ', http_request.RequestReader(100).feed(
            bytearray(raw)).body)

    def test_a_long_pipeline_is_read_request_by_request(self):
        buffer = bytearray(b'GET /a HTTP/1.1\r\nHost: t\r\n\r\n' * 5000)
        reader = http_request.RequestReader(100)
        targets = []
        while buffer:
            targets.append(reader.feed(buffer).target)
        self.assertEqual(['/a'] * 5000, targets)
