"""Fixtures that run the real service and the real client as processes."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import fixtures

BIN = os.path.dirname(sys.executable)


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class AllInOneService(fixtures.Fixture):
    """`ironic-steps --config-file FILE` on a free loopback port.

    :param options: {section: {option: value}} added to the config file.
    """

    def __init__(self, options=None):
        super().__init__()
        self.options = options or {}

    def _setUp(self):
        self.state_path = self.useFixture(fixtures.TempDir()).path
        self.port = free_port()
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        sections = {'DEFAULT': {'state_path': self.state_path,
                                'host': 'functional-conductor',
                                'log_file': os.path.join(self.state_path,
                                                         'service.log')},
                    'api': {'host_ip': '127.0.0.1', 'port': self.port}}
        for section, values in self.options.items():
            sections.setdefault(section, {}).update(values)
        self.config_file = os.path.join(self.state_path, 'service.conf')
        with open(self.config_file, 'w') as conf:
            for section, values in sections.items():
                conf.write('[%s]\n' % section)
                conf.writelines('%s = %s\n' % item for item in values.items())
        self.process = subprocess.Popen(
            [os.path.join(BIN, 'ironic-steps'), '--config-file',
             self.config_file],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(self._stop)
        self._wait_until_up()

    def _wait_until_up(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('ironic-steps exited with %s: %s' % (
                    self.process.returncode,
                    self.process.stderr.read().decode()[-3000:]))
            try:
                urllib.request.urlopen(self.endpoint + '/v1', timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError('ironic-steps did not answer on %s' % self.endpoint)

    def _stop(self):
        # Only the process this fixture started, by its PID.
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stderr.close()

    def log(self):
        with open(os.path.join(self.state_path, 'service.log')) as log:
            return log.read()


class OpenStackClient:
    """Runs the real `openstack baremetal` CLI against an endpoint."""

    def __init__(self, endpoint, api_version=None):
        self.endpoint = endpoint
        self.api_version = api_version

    def run(self, *args, check=True):
        command = [os.path.join(BIN, 'openstack'), '--os-auth-type', 'none',
                   '--os-endpoint', self.endpoint]
        if self.api_version:
            command += ['--os-baremetal-api-version', self.api_version]
        result = subprocess.run(command + ['baremetal'] + list(args),
                                capture_output=True, text=True, timeout=120,
                                env=dict(os.environ, OS_CLOUD=''))
        if check and result.returncode != 0:
            raise AssertionError('openstack baremetal %s failed (%d): %s' % (
                ' '.join(args), result.returncode, result.stderr))
        return result

    def json(self, *args):
        return json.loads(self.run(*(args + ('-f', 'json'))).stdout)
