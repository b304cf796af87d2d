"""ironic_steps.api.wsgi:application, as a WSGI server loads it."""

import json
import os
import subprocess
import sys

import ddt
import fixtures
import testtools

from ironic_steps.api import wsgi

_SERVE_ONE_REQUEST = '''
import json, sys
from werkzeug.test import run_wsgi_app, EnvironBuilder
from ironic_steps.api import wsgi
import os
environ = EnvironBuilder(path='/v1', environ_base={
    'REMOTE_ADDR': os.environ.get('TEST_REMOTE_ADDR', '127.0.0.1')}
    ).get_environ()
body, status, headers = run_wsgi_app(wsgi.application, environ)
print(json.dumps({'status': status, 'body': b''.join(body).decode()}))
'''


class WsgiApplicationTest(testtools.TestCase):

    def serve_one_request(self, api_options='', remote='127.0.0.1'):
        """The answer to GET /v1 from ``remote``, in a process of its own
        (loading parses the global configuration)."""
        directory = self.useFixture(fixtures.TempDir()).path
        config_file = os.path.join(directory, 'api.conf')
        with open(config_file, 'w') as conf:
            conf.write('[DEFAULT]\nstate_path = %s\n[api]\n'
                       'public_endpoint = https://bm.example.com\n%s'
                       % (directory, api_options))
        result = subprocess.run(
            [sys.executable, '-c', _SERVE_ONE_REQUEST], capture_output=True,
            text=True, timeout=60,
            env=dict(os.environ, IRONIC_STEPS_CONFIG_FILE=config_file,
                     TEST_REMOTE_ADDR=remote))
        self.assertEqual(0, result.returncode, result.stderr)
        return json.loads(result.stdout.splitlines()[-1])

    def test_without_authentication_other_machines_are_refused(self):
        answer = self.serve_one_request(remote='192.0.2.7')
        self.assertEqual('403 Forbidden', answer['status'])
        fault = json.loads(json.loads(answer['body'])['error_message'])
        self.assertIn('192.0.2.7', fault['faultstring'])
        self.assertIn('allow_noauth_off_loopback', fault['faultstring'])
        answer = self.serve_one_request(
            'allow_noauth_off_loopback = true\n', remote='192.0.2.7')
        self.assertEqual('200 OK', answer['status'])

    def test_the_application_reads_the_file_named_in_the_environment(self):
        answer = self.serve_one_request()
        self.assertEqual('200 OK', answer['status'])
        self.assertEqual('https://bm.example.com/v1/',
                         json.loads(answer['body'])['links'][0]['href'])


def _served(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'served']


@ddt.ddt
class LoopbackOnlyTest(testtools.TestCase):
    """Who a noauth API under a WSGI server serves: this machine only,
    a proxy on this machine relaying for another included."""

    def call(self, remote, **headers):
        statuses = []
        environ = dict({'REMOTE_ADDR': remote}, **{
            'HTTP_' + name.upper(): value for name, value in headers.items()})
        body = b''.join(wsgi.LoopbackOnly(_served)(
            environ, lambda status, _headers: statuses.append(status)))
        return statuses[0], body

    @ddt.data(('127.0.0.1', {}), ('::1', {}),
              ('127.0.0.1', {'x_forwarded_for': '127.0.0.1'}),
              ('127.0.0.1', {'forwarded': 'for="[::1]:4711";proto=http'}))
    @ddt.unpack
    def test_callers_on_this_machine_are_served(self, remote, headers):
        self.assertEqual(('200 OK', b'served'), self.call(remote, **headers))

    @ddt.data(('192.0.2.7', {}, '192.0.2.7'),
              ('127.0.0.1', {'x_forwarded_for': '192.0.2.7, 127.0.0.1'},
               '192.0.2.7'),
              ('127.0.0.1', {'forwarded': 'for="[2001:db8::1]:4711"'},
               '2001:db8::1'),
              ('127.0.0.1', {'forwarded': 'by=127.0.0.1;For=192.0.2.8:80'},
               '192.0.2.8'),
              ('127.0.0.1', {'x_real_ip': '198.51.100.1'}, '198.51.100.1'),
              ('127.0.0.1', {'x_forwarded_for': 'unknown'}, 'unknown'))
    @ddt.unpack
    def test_a_caller_elsewhere_is_refused_naming_it(self, remote, headers,
                                                     named):
        status, body = self.call(remote, **headers)
        self.assertEqual('403 Forbidden', status)
        self.assertIn(named.encode(), body)
        self.assertIn(b'allow_noauth_off_loopback', body)
