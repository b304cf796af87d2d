"""What the tests' private database servers share.

A server (:mod:`tests.postgresql`, :mod:`tests.mariadb`) is a
:class:`DatabaseServer`: it runs on 127.0.0.1 on a free port, keeps its
files in a directory of its own and is stopped by its fixture; ``url()``
makes a fresh database on it: empty, or a copy of a template database
(which tests.base migrates once per server, instead of once per test).
One server of each kind serves a whole test process, and a test needing
a missing server skips, or fails in CI.
"""

import atexit
import os
import shutil
import socket
import tempfile

import fixtures


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class DatabaseServer(fixtures.Fixture):
    """A running server; ``url()`` makes a fresh database on it.

    A subclass starts the server in ``_start()``, on ``self.port`` with
    its files under ``self.root``, stopping it at cleanup by what it
    started; it creates a database in ``_create_database(name)``, and
    one like another in ``_copy_database(template, name)``.
    """

    #: What the server is, for directory names and messages.
    kind = None
    #: What to install when it is missing.
    install_hint = None
    #: The SQLAlchemy URL of database ``%(name)s`` on port ``%(port)d``.
    url_template = None

    _shared = {}

    @classmethod
    def available(cls):
        """Whether the server and its Python driver are installed."""
        raise NotImplementedError

    def _start(self):
        raise NotImplementedError

    def _create_database(self, name):
        raise NotImplementedError

    def _setUp(self):
        self.port = free_port()
        # Not under TMPDIR: test runners point it at per-test directories
        # (gone while a shared server still runs) that a server's own user
        # may not be able to enter.
        self.root = tempfile.mkdtemp(
            prefix='ironic-steps-%s-' % self.kind.lower(), dir='/tmp')
        self.addCleanup(shutil.rmtree, self.root, True)
        self._databases = 0
        self._start()

    def _copy_database(self, template, name):
        raise NotImplementedError

    def url(self, template=None):
        """A new database on this server, as a SQLAlchemy URL: empty, or a
        copy of the database named ``template`` (schema and rows), which
        nothing may write to meanwhile."""
        self._databases += 1
        name = 'ironic_steps_%d' % self._databases
        if template is None:
            self._create_database(name)
        else:
            self._copy_database(template, name)
        return self.url_template % {'port': self.port, 'name': name}

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

    @classmethod
    def require(cls, test):
        """Skip ``test`` where the server is missing; in CI (``CI`` set)
        fail instead, so that CI never passes by skipping a database."""
        if cls.available():
            return
        if os.environ.get('CI'):
            test.fail('%s and its driver are required in CI (.ci/run '
                      'installs the server, test-requirements.txt the '
                      'driver)' % cls.kind)
        test.skipTest('%s is not installed (%s)'
                      % (cls.kind, cls.install_hint))
