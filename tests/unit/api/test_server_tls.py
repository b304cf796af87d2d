"""The API's server over TLS (``[api] enable_ssl_api``): a client that
verifies the certificate is served as over HTTP, keep-alive and large
bodies included; a client that does not speak TLS, or stalls its
handshake, holds no one.

The real API application over a real conductor, served on 127.0.0.1 by
:class:`server.Server` with a certificate made for the test; clients use
the stdlib ``ssl`` module, verifying the server against that certificate.
"""

import http.client
import json
import select
import socket
import ssl
import time

import fixtures

from ironic_steps.api import connections
from tests import self_signed
from tests.unit.api import base
from tests.unit.api import test_server

HEADERS = {'X-OpenStack-Ironic-API-Version': '1.44',
           'Content-Type': 'application/json'}


class TLSServerTest(test_server.ServedMixin, base.ApiTestCase):

    def setUp(self):
        directory = self.useFixture(fixtures.TempDir()).path
        self.cert, key = self_signed.certificate(directory)
        self.tls = connections.tls_context(self.cert, key)
        super().setUp()

    def serve(self, application, **kwargs):
        kwargs.setdefault('tls', self.tls)
        return super().serve(application, **kwargs)

    def https(self, cafile=None):
        context = ssl.create_default_context(cafile=cafile or self.cert)
        connection = http.client.HTTPSConnection(
            '127.0.0.1', self.server.port, context=context, timeout=10)
        self.addCleanup(connection.close)
        return connection

    def call(self, connection, method, path, body=None):
        connection.request(method, path, headers=HEADERS,
                           body=None if body is None else json.dumps(body))
        response = connection.getresponse()
        return response.status, json.loads(response.read() or 'null')

    def test_a_verifying_client_is_served_over_one_kept_connection(self):
        connection = self.https()
        status, root = self.call(connection, 'GET', '/v1')
        self.assertEqual(200, status)
        # The links say how the API was reached.
        self.assertEqual('https://127.0.0.1:%d/v1/' % self.server.port,
                         root['links'][0]['href'])
        status, created = self.call(connection, 'POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': 'tls-1',
            'extra': {'blob': 'x' * 40000}})   # several TLS records
        self.assertEqual(201, status, created)
        status, shown = self.call(connection, 'GET', '/v1/nodes/tls-1')
        self.assertEqual((200, 40000), (status, len(shown['extra']['blob'])))
        self.assertTrue(connection.sock.version().startswith('TLSv1.'))

    def test_pipelined_requests_are_all_answered(self):
        sock = socket.create_connection(('127.0.0.1', self.server.port))
        self.addCleanup(sock.close)
        context = ssl.create_default_context(cafile=self.cert)
        tls = context.wrap_socket(sock, server_hostname='127.0.0.1')
        tls.sendall(test_server.GET_NODES * 3 + test_server.GET_CLOSE)
        received = b''
        tls.settimeout(10)
        while True:
            data = tls.recv(65536)
            if not data:
                break
            received += data
        self.assertEqual(4, received.count(b'HTTP/1.1 200 OK'))

    def test_a_client_that_trusts_another_ca_refuses_the_server(self):
        other = self_signed.certificate(
            self.useFixture(fixtures.TempDir()).path)[0]
        connection = self.https(cafile=other)
        self.assertRaises(ssl.SSLCertVerificationError, connection.request,
                          'GET', '/v1')

    def test_plain_http_is_closed_and_others_are_served(self):
        answer = self.exchange(test_server.GET_CLOSE)
        self.assertNotIn(b'HTTP/1.1 200', answer)
        self.assertEqual(200, self.call(self.https(), 'GET', '/v1')[0])

    def test_a_stalled_handshake_holds_no_one_and_ends_in_time(self):
        silent = self.connect()
        silent.settimeout(0.2)
        opened = time.monotonic()
        for _ in range(3):
            self.assertEqual(200, self.call(self.https(), 'GET', '/v1')[0])
        closed = None
        while time.monotonic() - opened < 20:
            try:
                if silent.recv(1) == b'':
                    closed = time.monotonic() - opened
                    break
            except socket.timeout:
                continue
            except ConnectionResetError:
                closed = time.monotonic() - opened
                break
        self.assertIsNotNone(closed)
        self.assertLess(closed, self.timeout + 2)

    def test_past_the_limit_a_silent_handshake_makes_room(self):
        # Given a server full of connections that never began a handshake
        self.server = self.serve(self.app, max_connections=2)
        silent = [self.connect() for _ in range(2)]
        time.sleep(0.3)
        # When a real client comes, it is served: one silent one is closed
        self.assertEqual(200, self.call(self.https(), 'GET', '/v1')[0])
        # (Waiting only until one is: the one left open would hold a
        # reader until the server's deadline.)
        closed = 0
        readable, _, _ = select.select(silent, [], [], 2)
        for sock in readable:
            try:
                closed += sock.recv(1) == b''
            except ConnectionResetError:
                closed += 1
        self.assertGreaterEqual(closed, 1)
