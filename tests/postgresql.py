"""A private PostgreSQL server for tests, on loopback, stopped by us.

Debian's PostgreSQL binaries, a fresh cluster in a temporary directory
(owned by the ``postgres`` user, since PostgreSQL refuses to run as root),
listening on 127.0.0.1 on a free port with trust authentication; stopped
with ``pg_ctl stop`` on that cluster's own data directory.
"""

import atexit
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile

import fixtures


def _bin_dir():
    found = sorted(glob.glob('/usr/lib/postgresql/*/bin/pg_ctl'))
    return os.path.dirname(found[-1]) if found else None


def available():
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return False
    return _bin_dir() is not None


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class PostgreSQLServer(fixtures.Fixture):
    """A running cluster; ``url(database)`` makes a fresh database."""

    def _setUp(self):
        self.bin = _bin_dir()
        self.port = _free_port()
        # Not under TMPDIR: test runners point it at private directories
        # the postgres user cannot enter.
        self.root = tempfile.mkdtemp(prefix='ironic-steps-pg-', dir='/tmp')
        self.addCleanup(shutil.rmtree, self.root, True)
        self.data = os.path.join(self.root, 'data')
        self._as_owner = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam('postgres')
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as_owner = ['runuser', '-u', 'postgres', '--']
        self._run('initdb', '-D', self.data, '--auth=trust', '-U', 'postgres',
                  '--no-sync', '-E', 'UTF8')
        self.start()
        self.addCleanup(self.stop)
        self._databases = 0

    def start(self):
        """Start this cluster; starting a running one does nothing."""
        if os.path.exists(os.path.join(self.data, 'postmaster.pid')):
            return
        self._run('pg_ctl', '-D', self.data, '-w', '-l',
                  os.path.join(self.root, 'server.log'), '-o',
                  '-h 127.0.0.1 -p %d -k %s -F' % (self.port, self.root),
                  'start')

    def stop(self):
        """Stop this cluster (its own data directory; never by name).
        Stopping one that is already stopped does nothing."""
        if os.path.exists(os.path.join(self.data, 'postmaster.pid')):
            self._run('pg_ctl', '-D', self.data, '-m', 'fast', '-w', 'stop')

    def _run(self, tool, *args):
        subprocess.run(self._as_owner + [os.path.join(self.bin, tool)]
                       + list(args), check=True, capture_output=True,
                       cwd=self.root)

    def url(self):
        """A new empty database on this server, as a SQLAlchemy URL."""
        self._databases += 1
        name = 'ironic_steps_%d' % self._databases
        self._run('createdb', '-h', '127.0.0.1', '-p', str(self.port), '-U',
                  'postgres', name)
        return 'postgresql+psycopg2://postgres@127.0.0.1:%d/%s' % (
            self.port, name)


_shared = None


def shared_server():
    """One server per test process, stopped when the process exits."""
    global _shared
    if _shared is None:
        server = PostgreSQLServer()
        server.setUp()
        atexit.register(server.cleanUp)
        _shared = server
    return _shared


def require(test):
    """Skip ``test`` where PostgreSQL is missing; in CI that is a failure."""
    if available():
        return
    if os.environ.get('CI'):
        test.fail('PostgreSQL and psycopg2 are required in CI (.ci/run '
                  'installs the server, test-requirements the driver)')
    test.skipTest('PostgreSQL is not installed (apt-get install postgresql)')
