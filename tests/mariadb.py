"""A private MariaDB server for tests, on loopback, stopped by us.

Debian's ``mariadbd``, a fresh data directory in a temporary directory
(system tables included: nothing outside it is read or written, not even
/etc/mysql, thanks to ``--no-defaults``), listening on 127.0.0.1 on a free
port and on a socket of its own; ``root`` logs in without a password.
Stopped with SIGTERM to the process it started, which shuts the server
down cleanly.

Two settings are chosen to be the least forgiving of MySQL's and MariaDB's
defaults, so that what passes here holds on both: the server keeps its
built-in character set (latin1; the tables must declare their own), and
``group_concat_max_len`` is MySQL's 1,024 bytes (MariaDB's is 1 MiB).
"""

import os
import shutil
import subprocess
import time

from tests import database_servers

_SEARCH_PATH = os.pathsep.join(['/usr/sbin', '/usr/bin', '/usr/local/sbin',
                                '/usr/local/bin', os.environ.get('PATH', '')])
#: Durability is not what the tests are about: no fsync, small files.
_FAST_AND_SMALL = ['--innodb-flush-log-at-trx-commit=0',
                   '--innodb-flush-method=nosync', '--innodb-doublewrite=0',
                   '--innodb-log-file-size=8M',
                   '--innodb-buffer-pool-size=64M',
                   '--performance-schema=OFF', '--skip-name-resolve']
_LEAST_FORGIVING = ['--group-concat-max-len=1024']


def _tool(*names):
    for name in names:
        found = shutil.which(name, path=_SEARCH_PATH)
        if found:
            return found
    return None


# MariaDB before 10.4 has only the MySQL names.
def _server():
    return _tool('mariadbd', 'mysqld')


def _install_db():
    return _tool('mariadb-install-db', 'mysql_install_db')


class MariaDBServer(database_servers.DatabaseServer):
    """A running server; ``url()`` makes a fresh database (empty or from a
    template)."""

    kind = 'MariaDB'
    install_hint = 'apt-get install mariadb-server; pip install PyMySQL'
    url_template = ('mysql+pymysql://root@127.0.0.1:%(port)d/%(name)s'
                    '?charset=utf8mb4')

    @classmethod
    def available(cls):
        try:
            import pymysql  # noqa: F401
        except ImportError:
            return False
        return _server() is not None and _install_db() is not None

    def _start(self):
        data = os.path.join(self.root, 'data')
        # Its own temporary directory: servers set up at the same moment
        # (parallel test workers) otherwise clash on temporary tables of
        # the same name in /tmp, and mariadb-install-db fails.
        private_tmp = os.path.join(self.root, 'tmp')
        os.mkdir(private_tmp)
        tmpdir = ['--tmpdir=' + private_tmp]
        # --no-defaults must come first.  mariadbd refuses to run as root
        # unless told to.
        as_user = ['--user=root'] if os.geteuid() == 0 else []
        subprocess.run(
            [_install_db(), '--no-defaults', '--datadir=' + data,
             '--auth-root-authentication-method=normal', '--skip-test-db']
            + as_user + tmpdir + _FAST_AND_SMALL,
            check=True, capture_output=True, cwd=self.root)
        self.log = os.path.join(self.root, 'server.log')
        self.process = subprocess.Popen(
            [_server(), '--no-defaults', '--datadir=' + data,
             '--bind-address=127.0.0.1', '--port=%d' % self.port,
             '--skip-networking=0',
             '--socket=' + os.path.join(self.root, 'mysqld.sock'),
             '--pid-file=' + os.path.join(self.root, 'mysqld.pid'),
             '--log-error=' + self.log]
            + as_user + tmpdir + _FAST_AND_SMALL + _LEAST_FORGIVING,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, cwd=self.root)
        self.addCleanup(self._stop)
        self._wait_until_up(timeout=60)

    def _connect(self, **kwargs):
        import pymysql
        return pymysql.connect(host='127.0.0.1', port=self.port,
                               user='root', **kwargs)

    def _wait_until_up(self, timeout):
        import pymysql
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._connect(connect_timeout=2).close()
                return
            except pymysql.err.OperationalError:
                if (self.process.poll() is not None
                        or time.monotonic() > deadline):
                    with open(self.log) as log:
                        raise RuntimeError('MariaDB did not start:\n'
                                           + log.read()[-3000:]) from None
                time.sleep(0.1)

    def _stop(self):
        # SIGTERM to the PID we started is mariadbd's clean shutdown.
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def _create_database(self, name):
        connection = self._connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute('CREATE DATABASE %s' % name)
        finally:
            connection.close()

    def _copy_database(self, template, name):
        # MariaDB has no CREATE DATABASE ... TEMPLATE, and CREATE TABLE
        # ... LIKE drops foreign keys: each table is made again from what
        # SHOW CREATE TABLE says of the template's (engine, character
        # sets, collations, indexes and foreign keys included), and the
        # template's rows (alembic's version) are copied.
        connection = self._connect()
        try:
            with connection.cursor() as cursor:
                tables, filled = self._template_tables(cursor, template)
                cursor.execute('CREATE DATABASE %s' % name)
                cursor.execute('USE %s' % name)
                # Tables in any order: a foreign key may name one not yet
                # made.
                cursor.execute('SET foreign_key_checks = 0')
                for create in tables.values():
                    cursor.execute(create)
                for table in filled:
                    cursor.execute('INSERT INTO %s.%s SELECT * FROM %s.%s'
                                   % (name, table, template, table))
            connection.commit()
        finally:
            connection.close()

    def _template_tables(self, cursor, template):
        """({table: CREATE TABLE statement}, [tables with rows]) of
        ``template``, read once: a template does not change."""
        cache = self.__dict__.setdefault('_templates', {})
        if template not in cache:
            cursor.execute('SELECT table_name, table_type FROM '
                           'information_schema.tables WHERE table_schema = '
                           '%s', (template,))
            tables, filled = {}, []
            for table, kind in cursor.fetchall():
                if kind != 'BASE TABLE':
                    raise RuntimeError('%s.%s is a %s: only tables are '
                                       'copied' % (template, table, kind))
                cursor.execute('SHOW CREATE TABLE %s.%s' % (template, table))
                tables[table] = cursor.fetchone()[1]
                if cursor.execute('SELECT 1 FROM %s.%s LIMIT 1'
                                  % (template, table)):
                    filled.append(table)
            cache[template] = tables, filled
        return cache[template]


available = MariaDBServer.available
shared_server = MariaDBServer.shared
require = MariaDBServer.require
