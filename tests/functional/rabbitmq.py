"""A private RabbitMQ broker for one test, on loopback, stopped by us.

Starts its own epmd and rabbitmq-server (Debian's packages) on free ports
bound to 127.0.0.1, with state in a temporary directory, and stops exactly
the processes it started.  :meth:`RabbitMQServer.stop_app` and
``start_app`` make a broker outage as clients see one (connections closed,
the port refusing, transient queues gone) in a second or two, without
restarting the Erlang node.
"""

import os
import secrets
import shutil
import signal
import subprocess
import time

import fixtures

from tests.functional import fixtures as functional

RABBIT_BIN = '/usr/lib/rabbitmq/bin'
EPMD = shutil.which('epmd') or '/usr/bin/epmd'


def available():
    return (os.path.exists(os.path.join(RABBIT_BIN, 'rabbitmq-server'))
            and os.path.exists(EPMD))


def require(test):
    """Skip ``test`` where RabbitMQ is missing; in CI that is a failure."""
    if available():
        return
    if os.environ.get('CI'):
        test.fail('RabbitMQ is required in CI (.ci/run installs it)')
    test.skipTest('RabbitMQ is not installed (apt-get install '
                  'rabbitmq-server)')


class RabbitMQServer(fixtures.Fixture):

    def _setUp(self):
        self.home = self.useFixture(fixtures.TempDir()).path
        self.port = functional.free_port()
        epmd_port = functional.free_port()
        self.node = 'rabbit-test-%d@localhost' % self.port
        with open(os.path.join(self.home, 'rabbitmq.conf'), 'w') as conf:
            conf.write('listeners.tcp.default = 127.0.0.1:%d\n' % self.port)
        with open(os.path.join(self.home, 'enabled_plugins'), 'w') as conf:
            conf.write('[].\n')
        # The cookie made before any Erlang node starts: otherwise the
        # server and the first rabbitmqctl race to create it, and the one
        # that reads it half-written dies ("read_cookie ... eof").
        cookie = os.path.join(self.home, '.erlang.cookie')
        with open(os.open(cookie, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                          0o400), 'w') as handle:
            handle.write(secrets.token_hex(20).upper())
        self.env = dict(
            os.environ, HOME=self.home,
            ERL_EPMD_ADDRESS='127.0.0.1', ERL_EPMD_PORT=str(epmd_port),
            RABBITMQ_NODENAME=self.node,
            RABBITMQ_NODE_IP_ADDRESS='127.0.0.1',
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(functional.free_port()),
            RABBITMQ_CONFIG_FILE=os.path.join(self.home, 'rabbitmq'),
            RABBITMQ_ENABLED_PLUGINS_FILE=os.path.join(self.home,
                                                       'enabled_plugins'),
            RABBITMQ_MNESIA_BASE=os.path.join(self.home, 'mnesia'),
            RABBITMQ_LOG_BASE=os.path.join(self.home, 'log'),
            RABBITMQ_PID_FILE=os.path.join(self.home, 'rabbit.pid'),
            # Erlang distribution listens on loopback only, like the rest.
            RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=(
                '-kernel inet_dist_use_interface {127,0,0,1}'))
        self.epmd = subprocess.Popen(
            [EPMD, '-address', '127.0.0.1', '-port', str(epmd_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=self.env)
        self.addCleanup(self._stop_process, self.epmd)
        self.server = subprocess.Popen(
            [os.path.join(RABBIT_BIN, 'rabbitmq-server')],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=self.env, start_new_session=True)
        self.addCleanup(self._stop_server)
        self._wait_until_up(timeout=90)
        self.url = 'rabbit://guest:guest@127.0.0.1:%d/' % self.port

    def _wait_until_up(self, timeout):
        # await_startup fails at once while the node is not yet reachable.
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._ctl('await_startup', timeout=30)
                return
            except subprocess.CalledProcessError:
                if (self.server.poll() is not None
                        or time.monotonic() > deadline):
                    raise
                time.sleep(0.5)

    def stop_app(self):
        """Stop the broker inside its running node (rabbitmqctl stop_app)."""
        self._ctl('stop_app')

    def start_app(self):
        self._ctl('start_app')

    def _ctl(self, *args, timeout=30):
        return subprocess.run(
            [os.path.join(RABBIT_BIN, 'rabbitmqctl'), '-n', self.node,
             '--timeout', str(timeout)] + list(args),
            env=self.env, capture_output=True, text=True, timeout=timeout + 5,
            check=True)

    def _stop_server(self):
        try:
            self._ctl('stop')
        except (subprocess.SubprocessError, OSError):
            pass
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # Its own session: the group holds only what we started.
            os.killpg(self.server.pid, signal.SIGKILL)
            self.server.wait()
        # beam may outlive the wrapper script for a moment.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(self.server.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
        os.killpg(self.server.pid, signal.SIGKILL)

    @staticmethod
    def _stop_process(process):
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=10)
