"""The read-only API of a saved run refuses writes however a path is
spelt."""

import ddt
import testtools

from ironic_steps.api import read_only
from tests.unit.api import base
from tests.unit.api import test_server


def _application(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'served']


@ddt.ddt
class ReadOnlyTest(testtools.TestCase):

    def call(self, method, path):
        statuses = []
        app = read_only.ReadOnly(_application, 'a saved run')
        body = b''.join(app({'REQUEST_METHOD': method, 'PATH_INFO': path},
                            lambda status, headers: statuses.append(status)))
        return statuses[0], body

    @ddt.data('/v1/lookup', '/v1/lookup/', '//v1/lookup', '/v1//lookup',
              '/v1/./lookup', '/v1/nodes/../lookup', '///v1/lookup//')
    def test_a_lookup_is_refused_however_it_is_spelt(self, path):
        status, body = self.call('GET', path)
        self.assertEqual('403 Forbidden', status)
        self.assertIn(b'a saved run', body)

    @ddt.data('/v1/nodes', '/v1/nodes/node-1', '/', '/v1/lookups')
    def test_reads_are_served(self, path):
        self.assertEqual(('200 OK', b'served'), self.call('GET', path))

    @ddt.data('POST', 'PATCH', 'PUT', 'DELETE')
    def test_writes_are_refused(self, method):
        self.assertEqual('403 Forbidden', self.call(method, '/v1/nodes')[0])


@ddt.ddt
class ReadOnlyServedTest(test_server.ServedMixin, base.ApiTestCase):
    """Through the API's server, which decodes the path as a WSGI server
    does: no spelling of the lookup reaches its handler."""

    def setUp(self):
        super().setUp()
        self.server = self.serve(read_only.ReadOnly(self.app, 'a saved run'))

    def answer(self, request_line):
        return test_server.status_of(self.exchange(
            request_line.encode() + b'\r\nHost: t\r\n'
            b'X-OpenStack-Ironic-API-Version: 1.44\r\n'
            b'Connection: close\r\n\r\n'))

    @ddt.data('GET /v1/lookup', 'GET //v1/lookup', 'GET /v1/./lookup',
              'GET /v1/%6cookup', 'GET /v1%2flookup', 'GET /v1%2Flookup/',
              'GET /v1/nodes/%2e%2e/lookup', 'GET /%2e/v1/lookup',
              'GET http://t/v1/lookup', 'GET http://t//v1/./lookup',
              'HEAD /v1/lookup', 'POST /v1/nodes',
              'POST /v1/heartbeat/x')
    def test_a_lookup_or_a_write_is_refused(self, request_line):
        self.assertEqual(403, self.answer(request_line + '?node_uuid=x '
                                          'HTTP/1.1'))

    @ddt.data('GET /v1/nodes', 'GET //v1/nodes', 'GET /v1/%6eodes')
    def test_reads_are_served(self, request_line):
        self.assertEqual(200, self.answer(request_line + ' HTTP/1.1'))
