"""A private PostgreSQL server for tests, on loopback, stopped by us.

Debian's PostgreSQL binaries, a fresh cluster in a temporary directory
(owned by the ``postgres`` user, since PostgreSQL refuses to run as root),
listening on 127.0.0.1 on a free port with trust authentication; stopped
with ``pg_ctl stop`` on that cluster's own data directory.
"""

import glob
import os
import pwd
import subprocess

from tests import database_servers


def _bin_dir():
    found = sorted(glob.glob('/usr/lib/postgresql/*/bin/pg_ctl'))
    return os.path.dirname(found[-1]) if found else None


class PostgreSQLServer(database_servers.DatabaseServer):
    """A running cluster; ``url()`` makes a fresh database (empty or
    from a template)."""

    kind = 'PostgreSQL'
    install_hint = 'apt-get install postgresql; pip install psycopg2-binary'
    url_template = 'postgresql+psycopg2://postgres@127.0.0.1:%(port)d/%(name)s'

    @classmethod
    def available(cls):
        try:
            import psycopg2  # noqa: F401
        except ImportError:
            return False
        return _bin_dir() is not None

    def _start(self):
        self.bin = _bin_dir()
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

    def _execute(self, statement):
        # A connection, not createdb: no process to start per database.
        import psycopg2
        connection = psycopg2.connect(host='127.0.0.1', port=self.port,
                                      user='postgres', dbname='postgres')
        try:
            # CREATE DATABASE cannot run in a transaction.
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(statement)
        finally:
            connection.close()

    def _create_database(self, name):
        self._execute('CREATE DATABASE %s' % name)

    def _copy_database(self, template, name):
        # PostgreSQL's own copy, block by block: the migrations' schema
        # and rows exactly, whatever they are.
        self._execute('CREATE DATABASE %s TEMPLATE %s' % (name, template))


available = PostgreSQLServer.available
shared_server = PostgreSQLServer.shared
require = PostgreSQLServer.require
