"""RabbitMQ brokers for tests, on loopback, stopped by us.

:class:`RabbitMQServer` starts its own epmd and rabbitmq-server (Debian's
packages) on free ports bound to 127.0.0.1, with state in a temporary
directory, and stops exactly the processes it started.
:meth:`RabbitMQServer.stop_app` and ``start_app`` make a broker outage as
clients see one (connections closed, the port refusing, transient queues
gone) in a second or two, without restarting the Erlang node.

A broker takes five to ten seconds of Erlang boot, so one serves a whole
test process (:meth:`RabbitMQServer.shared`, like the database servers),
and each test has a virtual host of its own on it (:class:`VirtualHost`):
a fresh, empty namespace of exchanges and queues that no other test ever
used, so nothing a test leaves behind can reach the next.  Those virtual
hosts are made as the broker boots (a definitions file), so taking one
costs nothing.  A test that stops the broker's app has it started again at
its cleanup, before the next test of the process begins.
"""

import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse

import fixtures

from tests.functional import fixtures as functional

RABBIT_BIN = '/usr/lib/rabbitmq/bin'
EPMD = shutil.which('epmd') or '/usr/bin/epmd'
#: ``[oslo_messaging_rabbit]`` options for the services of a test.  An
#: RPC server stops only once its consumer's wait for a message ends,
#: which lasts up to 5 s (oslo.messaging), cut to a heartbeat check
#: interval: heartbeat_timeout_threshold (60 s) / heartbeat_rate / 2.  At
#: 60 checks a threshold, a conductor stops within 0.5 s, not 2 to 5 s;
#: the threshold, after which a silent broker counts as lost, is the same.
#: Not for tests that stop the broker: a check that finds it gone
#: reconnects then and there, which changes what such a test measures.
SERVICE_OPTIONS = {'heartbeat_rate': 60}
#: Virtual hosts defined as a broker boots; more are made with rabbitmqctl
#: (a second of Erlang start-up each) if a test process needs them.
BOOT_VIRTUAL_HOSTS = 32


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


def _permissions(vhost):
    return {'user': 'guest', 'vhost': vhost, 'configure': '.*',
            'write': '.*', 'read': '.*'}


class RabbitMQServer(functional.SharedPerProcess):
    """A running broker; ``url`` is its default virtual host's transport
    URL, :meth:`virtual_host` makes a fresh one."""

    def _setUp(self):
        # Not under TMPDIR: test runners point it at a per-test directory,
        # gone while a shared broker still runs.
        self.home = tempfile.mkdtemp(prefix='ironic-steps-rabbitmq-',
                                     dir='/tmp')
        self.addCleanup(shutil.rmtree, self.home, True)
        self.port = functional.free_port()
        epmd_port = functional.free_port()
        self.node = 'rabbit-test-%d@localhost' % self.port
        self._unused_vhosts = ['test-%d' % number
                               for number in range(BOOT_VIRTUAL_HOSTS)]
        self._made_vhosts = BOOT_VIRTUAL_HOSTS
        # The default user and virtual host, which a broker makes only
        # when it boots without definitions, and the pool of fresh ones.
        definitions = os.path.join(self.home, 'definitions.json')
        vhosts = ['/'] + self._unused_vhosts
        with open(definitions, 'w') as handle:
            json.dump({'users': [{'name': 'guest', 'password': 'guest',
                                  'tags': 'administrator'}],
                       'vhosts': [{'name': vhost} for vhost in vhosts],
                       'permissions': [_permissions(vhost)
                                       for vhost in vhosts]}, handle)
        with open(os.path.join(self.home, 'rabbitmq.conf'), 'w') as conf:
            conf.write('listeners.tcp.default = 127.0.0.1:%d\n' % self.port)
            conf.write('load_definitions = %s\n' % definitions)
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
            # Erlang distribution listens on loopback only, like the rest;
            # idle schedulers sleep rather than spin: a shared broker idles
            # for most of its test process, on a machine running others.
            RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=(
                '-kernel inet_dist_use_interface {127,0,0,1} '
                '+sbwt none +sbwtdcpu none +sbwtdio none'))
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
        self.app_running = True
        self.url = self.url_of('/')

    def url_of(self, vhost):
        """The transport URL of virtual host ``vhost``."""
        return 'rabbit://guest:guest@127.0.0.1:%d/%s' % (
            self.port, '' if vhost == '/' else urllib.parse.quote(vhost,
                                                                  safe=''))

    def virtual_host(self):
        """The name of a virtual host no one has used, guest allowed in."""
        if self._unused_vhosts:
            return self._unused_vhosts.pop(0)
        vhost = 'test-%d' % self._made_vhosts
        self._made_vhosts += 1
        self._ctl('add_vhost', vhost)
        self._ctl('set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*')
        return vhost

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
        self.app_running = False
        self._ctl('stop_app')

    def start_app(self):
        self._ctl('start_app')
        self.app_running = True

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


class VirtualHost(fixtures.Fixture):
    """A fresh virtual host on this process's shared broker, for one test.

    ``url`` is its transport URL; ``stop_app`` and ``start_app`` stop and
    start the whole broker (an outage), which is started again at cleanup
    if the test left it stopped.
    """

    def _setUp(self):
        self.server = RabbitMQServer.shared()
        if not self.server.app_running:
            # A test before this one failed to start it again.
            self.server.start_app()
        self.name = self.server.virtual_host()
        self.url = self.server.url_of(self.name)
        self.addCleanup(self._start_app_if_stopped)

    def stop_app(self):
        self.server.stop_app()

    def start_app(self):
        self.server.start_app()

    def _start_app_if_stopped(self):
        if not self.server.app_running:
            self.server.start_app()
