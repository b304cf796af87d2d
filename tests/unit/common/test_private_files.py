"""Files that hold secrets are their owner's alone, whatever the umask:
the SQLite database, a run's dump, report and inventory."""

import os
import sqlite3
import stat

import fixtures
import testtools

from ironic_steps.common import private_files
from ironic_steps.conf import CONF
from ironic_steps.db.sqlalchemy import sqlite
from ironic_steps.ephemeral import evidence
from ironic_steps.ephemeral import inventory
from ironic_steps import service
from tests import base


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


class _PermissiveUmask(fixtures.Fixture):
    """The umask most shells have (022): files would be world-readable."""

    def _setUp(self):
        old = os.umask(0o022)
        self.addCleanup(os.umask, old)


class _InATempDirectory:
    """A test under a permissive umask, with a directory of its own."""

    def setUp(self):
        super().setUp()
        self.useFixture(_PermissiveUmask())
        self.tmp = self.useFixture(fixtures.TempDir()).path


class PrivateFilesTest(_InATempDirectory, testtools.TestCase):

    def test_a_file_written_is_created_0600(self):
        path = os.path.join(self.tmp, 'dump.sql')
        with private_files.open_for_writing(path, encoding='utf-8') as out:
            out.write('secret')
        self.assertEqual(0o600, mode(path))
        with open(path, encoding='utf-8') as written:
            self.assertEqual('secret', written.read())

    def test_a_file_that_was_public_is_private_once_written_again(self):
        path = os.path.join(self.tmp, 'report.json')
        with open(path, 'w') as out:
            out.write('an old, longer content')
        os.chmod(path, 0o644)
        with private_files.open_for_writing(path, 'wb') as out:
            out.write(b'new')
        self.assertEqual(0o600, mode(path))
        with open(path, 'rb') as written:
            self.assertEqual(b'new', written.read())

    def test_a_new_directory_is_0700_and_an_existing_one_is_kept(self):
        path = os.path.join(self.tmp, 'state', 'runs')
        private_files.make_directory(path)
        self.assertEqual(0o700, mode(path))
        os.chmod(path, 0o750)
        private_files.make_directory(path)
        self.assertEqual(0o750, mode(path))

    def test_creating_keeps_the_content_and_makes_it_private(self):
        path = os.path.join(self.tmp, 'db.sqlite')
        private_files.create(path)
        self.assertEqual(0o600, mode(path))
        with open(path, 'w') as out:
            out.write('data')
        os.chmod(path, 0o644)
        private_files.create(path)
        self.assertEqual(0o600, mode(path))
        with open(path) as kept:
            self.assertEqual('data', kept.read())


class SecretHoldersTest(_InATempDirectory, base.TestCase):
    """Where the service creates them."""

    def test_the_state_directory_and_the_sqlite_database_are_private(self):
        state = os.path.join(self.tmp, 'state')
        self.config(state_path=state)
        self.config(connection='sqlite:///%s/ironic-steps.sqlite' % state,
                    group='database')
        service.ensure_state_path()
        self.assertEqual(0o700, mode(state))
        database = os.path.join(state, 'ironic-steps.sqlite')
        self.assertEqual(0o600, mode(database))
        # SQLite fills the file it is given, and keeps its mode.
        connection = sqlite3.connect(database)
        connection.execute('PRAGMA journal_mode=WAL')
        connection.execute('CREATE TABLE t (x)')
        connection.commit()
        self.assertEqual(0o600, mode(database))
        self.assertEqual(0o600, mode(database + '-wal'))
        connection.close()
        self.assertEqual(CONF.state_path, state)

    def test_other_databases_need_no_file(self):
        for url in ('sqlite://', 'sqlite:///:memory:',
                    'mysql+pymysql://u:p@127.0.0.1/db'):
            sqlite.create_private_file(url)
        self.assertEqual([], os.listdir(self.tmp))

    def test_a_run_s_dump_report_and_inventory_are_private(self):
        database = os.path.join(self.tmp, 'live.sqlite')
        connection = sqlite3.connect(database)
        connection.execute("CREATE TABLE nodes (driver_info)")
        connection.execute("INSERT INTO nodes VALUES ('password')")
        connection.commit()
        connection.close()
        dump = os.path.join(self.tmp, evidence.DUMP)
        evidence.dump(evidence.sqlite_url(database), dump)
        evidence.write_report({'nodes': []}, self.tmp)
        spec = inventory.parse({'nodes': [{
            'name': 'n1', 'driver': 'fake-hardware',
            'driver_info': {'fake_password': 'p'}}]}, 'inventory.yaml')
        saved = os.path.join(self.tmp, evidence.INVENTORY)
        inventory.save(spec, saved)
        for path in (dump, os.path.join(self.tmp, evidence.REPORT), saved):
            self.assertEqual(0o600, mode(path), path)
        restored = os.path.join(self.tmp, 'restored.sqlite')
        evidence.restore(dump, evidence.sqlite_url(restored))
        self.assertEqual(0o600, mode(restored))
