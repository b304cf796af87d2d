"""The read-only API of a saved run refuses writes however a path is
spelt."""

import ddt
import testtools

from ironic_steps.api import read_only


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
