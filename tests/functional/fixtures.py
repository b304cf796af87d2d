"""Fixtures that run the real service and the real client as processes."""

import atexit
from concurrent import futures
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import fixtures

from tests.functional import service_forkserver

BIN = os.path.dirname(sys.executable)


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def stop_process(process, timeout=30):
    """SIGTERM ``process`` (a Popen), by its PID; SIGKILL it if it has not
    ended ``timeout`` seconds later."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class SharedPerProcess(fixtures.Fixture):
    """A server fixture of which ``shared()`` gives one running instance
    per test process, cleaned up at the process's exit."""

    _shared = None

    @classmethod
    def shared(cls):
        if cls._shared is None:
            server = cls()
            server.setUp()
            atexit.register(server.cleanUp)
            cls._shared = server
        return cls._shared


class ServiceProcess(fixtures.Fixture):
    """An ironic-steps service command as a process, on loopback.

    :param command: ``ironic-steps`` (all-in-one), ``ironic-steps-api`` or
        ``ironic-steps-conductor``.
    :param options: {section: {option: value}} for its config file.
    :param state_path: share one with other processes to share the
        embedded database; a private one by default.
    :param forked: run the console script in a child of the test
        process's service fork server (:mod:`service_forkserver`: the same
        entry point, without the seconds of imports), unless
        ``IRONIC_STEPS_TEST_EXEC_SERVICES`` is set; otherwise (the
        default) the executable itself.
    """

    def __init__(self, command='ironic-steps', options=None, state_path=None,
                 host='functional-conductor', forked=False):
        super().__init__()
        self.forked = forked and not os.environ.get(
            'IRONIC_STEPS_TEST_EXEC_SERVICES')
        self.command = command
        self.options = options or {}
        self.state_path = state_path
        self.host = host
        self.serves_api = command != 'ironic-steps-conductor'

    def _setUp(self):
        if self.state_path is None:
            self.state_path = self.useFixture(fixtures.TempDir()).path
        self.port = free_port()
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        self.log_file = os.path.join(self.state_path, '%s-%s.log' % (
            self.command, self.host))
        sections = {'DEFAULT': {'state_path': self.state_path,
                                'host': self.host,
                                'log_file': self.log_file},
                    'api': {'host_ip': '127.0.0.1', 'port': self.port}}
        for section, values in self.options.items():
            sections.setdefault(section, {}).update(values)
        self.config_file = os.path.join(self.state_path, '%s-%s.conf' % (
            self.command, self.host))
        with open(self.config_file, 'w') as conf:
            for section, values in sections.items():
                conf.write('[%s]\n' % section)
                conf.writelines('%s = %s\n' % item
                                for item in values.items())
        # A service started again on the same state path and host appends
        # to the log of the one before: only what this one writes counts.
        try:
            self._log_start = os.path.getsize(self.log_file)
        except FileNotFoundError:
            self._log_start = 0
        self.stderr_file = os.path.join(self.state_path, '%s-%s.stderr' % (
            self.command, self.host))
        argv = [os.path.join(BIN, self.command), '--config-file',
                self.config_file]
        if self.forked:
            self.process = service_forkserver.FORK_SERVER.start(
                argv, self.stderr_file)
        else:
            with open(self.stderr_file, 'wb') as stderr:
                self.process = subprocess.Popen(
                    argv, stdout=subprocess.DEVNULL, stderr=stderr)
        self.addCleanup(self.stop)
        self._wait_until_up()

    def _ready(self):
        if self.serves_api:
            try:
                urllib.request.urlopen(self.endpoint + '/v1', timeout=1)
                return True
            except OSError:
                return False
        return ' started (' in self.log()[self._log_start:]

    def _wait_until_up(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                with open(self.stderr_file, errors='replace') as stderr:
                    raise RuntimeError('%s exited with %s: %s' % (
                        self.command, self.process.returncode,
                        stderr.read()[-3000:]))
            if self._ready():
                return
            time.sleep(0.1)
        raise RuntimeError('%s did not start; log:\n%s' % (
            self.command, self.log()[-3000:]))

    def stop(self):
        """SIGTERM the process this fixture started, by its PID."""
        stop_process(self.process)

    def kill(self):
        """SIGKILL the process this fixture started, by its PID: a crash,
        with no chance to clean up."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def log(self):
        try:
            with open(self.log_file) as log:
                return log.read()
        except FileNotFoundError:
            return ''


def create_schema(state_path, database_url):
    """Run the real ``ironic-steps-dbsync upgrade`` on ``database_url``."""
    config = os.path.join(state_path, 'dbsync.conf')
    with open(config, 'w') as conf:
        conf.write('[DEFAULT]\nstate_path = %s\n[database]\n'
                   'connection = %s\n' % (state_path, database_url))
    subprocess.run([os.path.join(BIN, 'ironic-steps-dbsync'),
                    '--config-file', config, 'upgrade'],
                   check=True, capture_output=True)


class Services(fixtures.Fixture):
    """Service processes on one state path, started in parallel (each
    takes seconds to come up) and stopped in parallel, those still running
    at cleanup included."""

    def __init__(self, state_path, options=None, forked=False):
        super().__init__()
        self.state_path = state_path
        self.options = options
        self.forked = forked

    def _setUp(self):
        self._started = []
        self.addCleanup(self._stop_all)

    def start(self, *commands_and_hosts):
        """Start (command, host) services with this fixture's options;
        their :class:`ServiceProcess` fixtures, in order."""
        return self.start_processes(*[
            ServiceProcess(command, self.options, state_path=self.state_path,
                           host=host, forked=self.forked)
            for command, host in commands_and_hosts])

    def start_processes(self, *services):
        """Set up :class:`ServiceProcess` fixtures (not yet set up) at
        once; them, in order, once every one is up."""
        def start_one(service):
            service.setUp()
            return service
        with futures.ThreadPoolExecutor(len(services)) as pool:
            starting = [pool.submit(start_one, service)
                        for service in services]
        # Those that started are stopped at cleanup even if one failed.
        self._started.extend(future.result() for future in starting
                             if future.exception() is None)
        return [future.result() for future in starting]

    def _stop_all(self):
        if self._started:
            with futures.ThreadPoolExecutor(len(self._started)) as pool:
                list(pool.map(lambda service: service.cleanUp(),
                              self._started))


def AllInOneService(options=None, forked=False):
    """The embedded service: API + conductor + SQLite in one process."""
    return ServiceProcess('ironic-steps', options, forked=forked)


_FORK_SERVER_SCRIPT = os.path.join(os.path.dirname(__file__),
                                   'osc_forkserver.py')


class _ForkServer:
    """One `osc_forkserver` per test process, started on first use."""

    def __init__(self):
        self._lock = threading.Lock()
        self._process = None

    def run(self, argv, env, timeout):
        """The console script run with ``argv`` and ``env``: what
        ``subprocess.run(..., capture_output=True, text=True)`` returns."""
        with self._lock, tempfile.TemporaryDirectory() as scratch:
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(
                    [sys.executable, _FORK_SERVER_SCRIPT],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            outputs = [os.path.join(scratch, name)
                       for name in ('stdout', 'stderr')]
            self._process.stdin.write(json.dumps(
                {'argv': argv, 'env': env, 'timeout': timeout,
                 'stdout': outputs[0], 'stderr': outputs[1]}) + '\n')
            self._process.stdin.flush()
            answer = self._process.stdout.readline()
            if not answer:
                raise AssertionError('the openstack fork server died')
            stdout, stderr = (open(path).read() for path in outputs)
        return subprocess.CompletedProcess(
            ['openstack'] + argv, json.loads(answer)['returncode'],
            stdout, stderr)


_FORK_SERVER = _ForkServer()


class OpenStackClient:
    """Runs the real `openstack baremetal` CLI against an endpoint.

    Each command runs in its own process, forked from one that imported
    the client already (see `osc_forkserver`); with
    IRONIC_STEPS_TEST_EXEC_OPENSTACK=1 in the environment, each runs the
    `openstack` executable instead.

    :param auth_env: ``OS_*`` variables with credentials (a Keystone's
        ``OS_AUTH_URL``, ``OS_USERNAME``, ...): the client then finds the
        API in the catalog; without them it calls ``endpoint`` with no
        authentication.
    """

    def __init__(self, endpoint, api_version=None, auth_env=None):
        self.endpoint = endpoint
        self.api_version = api_version
        self.auth_env = auth_env

    def run(self, *args, check=True):
        argv = []
        if self.auth_env is None:
            argv += ['--os-auth-type', 'none', '--os-endpoint', self.endpoint]
        if self.api_version:
            argv += ['--os-baremetal-api-version', self.api_version]
        argv += ['baremetal'] + list(args)
        env = dict(os.environ, OS_CLOUD='', **(self.auth_env or {}))
        if env.get('IRONIC_STEPS_TEST_EXEC_OPENSTACK'):
            result = subprocess.run([os.path.join(BIN, 'openstack')] + argv,
                                    capture_output=True, text=True,
                                    timeout=120, env=env)
        else:
            result = _FORK_SERVER.run(argv, env, timeout=120)
        if check and result.returncode != 0:
            raise AssertionError('openstack baremetal %s failed (%d): %s' % (
                ' '.join(args), result.returncode, result.stderr))
        return result

    def json(self, *args):
        return json.loads(self.run(*(args + ('-f', 'json'))).stdout)


class RestClient:
    """A plain HTTP client of our REST API, for what the CLI cannot show."""

    def __init__(self, endpoint, version='latest', token=None):
        self.endpoint = endpoint
        self.version = version
        self.headers = {'X-OpenStack-Ironic-API-Version': version,
                        'Content-Type': 'application/json'}
        if token is not None:
            self.headers['X-Auth-Token'] = token
        self._agent_tokens = {}

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.endpoint + path, data=data, method=method,
            headers=self.headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            payload = response.read()
            return response.status, json.loads(payload) if payload else None

    def agent_heartbeat(self, node_uuid):
        """Heartbeat as an agent does: a lookup first, which hands the
        agent token out once per flow (none from a pinned API), then the
        heartbeat with the token."""
        _status, found = self.request('GET', '/v1/lookup?node_uuid=%s'
                                      % node_uuid)
        token = found['config'].get('agent_token')
        if token and token != '******':
            self._agent_tokens[node_uuid] = token
        body = {}
        if node_uuid in self._agent_tokens:
            body['agent_token'] = self._agent_tokens[node_uuid]
        return self.request('POST', '/v1/heartbeat/%s' % node_uuid, body)

    def node(self, ident):
        return self.request('GET', '/v1/nodes/%s' % ident)[1]

    def enrol_available(self, node_uuids, driver='fake-hardware'):
        """Create the nodes and bring them to ``available``."""
        for node_uuid in node_uuids:
            self.request('POST', '/v1/nodes', {'uuid': node_uuid,
                                               'driver': driver})
        for target, state in (('manage', 'manageable'),
                              ('provide', 'available')):
            for node_uuid in node_uuids:
                self.request('PUT', '/v1/nodes/%s/states/provision'
                             % node_uuid, {'target': target})
            for node_uuid in node_uuids:
                self.wait_for(node_uuid, state)

    def wait_for(self, ident, state, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            node = self.node(ident)
            if node['provision_state'] == state:
                return node
            if time.monotonic() > deadline:
                raise AssertionError('node %s is %s (%s), not %s' % (
                    ident, node['provision_state'], node.get('last_error'),
                    state))
            time.sleep(0.1)
