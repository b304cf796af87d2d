"""ironic_steps.api.wsgi:application, as a WSGI server loads it."""

import json
import os
import subprocess
import sys

import fixtures
import testtools

_SERVE_ONE_REQUEST = '''
import json, sys
from werkzeug.test import run_wsgi_app, EnvironBuilder
from ironic_steps.api import wsgi
environ = EnvironBuilder(path='/v1').get_environ()
body, status, headers = run_wsgi_app(wsgi.application, environ)
print(json.dumps({'status': status, 'body': b''.join(body).decode()}))
'''


class WsgiApplicationTest(testtools.TestCase):

    def test_the_application_reads_the_file_named_in_the_environment(self):
        # A process of its own: loading parses the global configuration.
        directory = self.useFixture(fixtures.TempDir()).path
        config_file = os.path.join(directory, 'api.conf')
        with open(config_file, 'w') as conf:
            conf.write('[DEFAULT]\nstate_path = %s\n[api]\n'
                       'public_endpoint = https://bm.example.com\n'
                       % directory)
        result = subprocess.run(
            [sys.executable, '-c', _SERVE_ONE_REQUEST], capture_output=True,
            text=True, timeout=60,
            env=dict(os.environ, IRONIC_STEPS_CONFIG_FILE=config_file))
        self.assertEqual(0, result.returncode, result.stderr)
        answer = json.loads(result.stdout.splitlines()[-1])
        self.assertEqual('200 OK', answer['status'])
        self.assertEqual('https://bm.example.com/v1/',
                         json.loads(answer['body'])['links'][0]['href'])
