"""Private lock services for tests (Redis, etcd), on loopback, stopped by us.

Debian's ``redis-server`` and ``etcd``, each started on 127.0.0.1 on free
ports with its files in a temporary directory, and stopped by the process
id this module started (never by name).  One server of each kind serves a
whole test process: node locks are named by node UUID, so tests never
meet each other's locks.  ``url`` is the tooz URL of the server.
"""

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time

import fixtures

from tests import database_servers


class LockServer(fixtures.Fixture):

    kind = None
    binary = None
    #: The Python module tooz's driver needs.
    client_module = None
    install_hint = None

    _shared = {}

    @classmethod
    def available(cls):
        try:
            __import__(cls.client_module)
        except ImportError:
            return False
        return shutil.which(cls.binary) is not None

    @classmethod
    def require(cls, test):
        """Skip ``test`` where the server is missing; fail in CI."""
        if cls.available():
            return
        if os.environ.get('CI'):
            test.fail('%s is required in CI (.ci/run installs it, '
                      'test-requirements.txt its client)' % cls.kind)
        test.skipTest('%s is not installed (%s)' % (cls.kind,
                                                    cls.install_hint))

    @classmethod
    def shared(cls):
        """One running server per test process, stopped at exit."""
        server = cls._shared.get(cls)
        if server is None:
            server = cls()
            server.setUp()
            atexit.register(server.cleanUp)
            cls._shared[cls] = server
        return server

    def _setUp(self):
        self.port = database_servers.free_port()
        self.root = tempfile.mkdtemp(
            prefix='ironic-steps-%s-' % self.kind.lower(), dir='/tmp')
        self.addCleanup(shutil.rmtree, self.root, True)
        log = open(os.path.join(self.root, 'server.log'), 'wb')
        self.addCleanup(log.close)
        self.process = subprocess.Popen(
            self._command(), stdout=log, stderr=subprocess.STDOUT,
            cwd=self.root)
        self.addCleanup(self.stop)
        self._wait_until_up(timeout=30)

    def _command(self):
        raise NotImplementedError

    def _wait_until_up(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(('127.0.0.1', self.port),
                                         timeout=1).close()
                if self._answers():
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                with open(os.path.join(self.root, 'server.log')) as log:
                    raise RuntimeError('%s did not start: %s' % (
                        self.kind, log.read()[-2000:]))
            time.sleep(0.1)

    def _answers(self):
        return True

    def stop(self):
        """Stop the server this fixture started, by its PID (again: no-op)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class RedisServer(LockServer):

    kind = 'Redis'
    binary = 'redis-server'
    client_module = 'redis'
    install_hint = 'apt-get install redis-server; pip install redis'

    def _command(self):
        return [self.binary, '--bind', '127.0.0.1', '--port', str(self.port),
                '--save', '', '--appendonly', 'no', '--dir', self.root,
                '--protected-mode', 'yes']

    def _answers(self):
        import redis
        return redis.Redis(host='127.0.0.1', port=self.port,
                           socket_timeout=1).ping()

    @property
    def url(self):
        return 'redis://127.0.0.1:%d' % self.port


class EtcdServer(LockServer):

    kind = 'etcd'
    binary = 'etcd'
    client_module = 'etcd3gw'
    install_hint = 'apt-get install etcd-server; pip install etcd3gw'

    def _command(self):
        self.peer_port = database_servers.free_port()
        client = 'http://127.0.0.1:%d' % self.port
        peer = 'http://127.0.0.1:%d' % self.peer_port
        return [self.binary, '--name', 'test',
                '--data-dir', os.path.join(self.root, 'data'),
                '--listen-client-urls', client,
                '--advertise-client-urls', client,
                '--listen-peer-urls', peer,
                '--initial-advertise-peer-urls', peer,
                '--initial-cluster', 'test=' + peer,
                '--unsafe-no-fsync']

    def _answers(self):
        import etcd3gw
        try:
            etcd3gw.client(host='127.0.0.1', port=self.port).status()
        except Exception:
            return False
        return True

    @property
    def url(self):
        return 'etcd3+http://127.0.0.1:%d' % self.port
