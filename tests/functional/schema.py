"""Migrated databases on the shared database servers, for service processes.

:func:`migrated_database` gives a test a fresh database with the schema
``ironic-steps-dbsync upgrade`` makes.  The real ``ironic-steps-dbsync``
runs once per server and test process, into a template database; each
test then gets a copy of it, made by the server in a fraction of a second
instead of a process importing the service and running every migration
(two to eight seconds on a loaded machine).  PostgreSQL copies a template
itself (``CREATE DATABASE ... TEMPLATE``); on MariaDB each table is made
again from the template's own ``SHOW CREATE TABLE`` and its rows copied
(the ``alembic_version`` row among them), foreign keys and indexes
included.

The template is never connected to by a service, so every copy starts
from the state dbsync left it in.
"""

import contextlib
import itertools
import shutil
import tempfile

from tests.functional import fixtures as functional

#: {server: name of its migrated template database}
_templates = {}
#: Numbers the copies (names unique within a test process, as servers are).
_copies = itertools.count(1)


def _name_of(url):
    return url.rsplit('/', 1)[1].split('?', 1)[0]


def _template(server):
    name = _templates.get(server)
    if name is None:
        url = server.url()
        state_path = tempfile.mkdtemp(prefix='ironic-steps-dbsync-')
        try:
            functional.create_schema(state_path, url)
        finally:
            shutil.rmtree(state_path, True)
        name = _templates[server] = _name_of(url)
    return name


def migrated_database(server):
    """A new database on ``server`` (a started
    :class:`tests.database_servers.DatabaseServer`) holding the migrated
    schema: its SQLAlchemy URL."""
    template = _template(server)
    name = 'ironic_steps_copy_%d' % next(_copies)
    _COPIERS[server.kind](server, template, name)
    return server.url_template % {'port': server.port, 'name': name}


def _copy_on_postgresql(server, template, name):
    import psycopg2
    connection = psycopg2.connect(host='127.0.0.1', port=server.port,
                                  user='postgres', dbname='postgres')
    connection.autocommit = True
    with contextlib.closing(connection), connection.cursor() as cursor:
        cursor.execute('CREATE DATABASE "%s" TEMPLATE "%s"'
                       % (name, template))


def _copy_on_mariadb(server, template, name):
    import pymysql
    connection = pymysql.connect(host='127.0.0.1', port=server.port,
                                 user='root')
    with contextlib.closing(connection), connection.cursor() as cursor:
        cursor.execute('CREATE DATABASE `%s`' % name)
        cursor.execute('USE `%s`' % name)
        # Tables in any order: each refers to others by name only.
        cursor.execute('SET SESSION foreign_key_checks = 0')
        cursor.execute("SELECT table_name FROM information_schema.tables "
                       "WHERE table_schema = %s AND table_type = "
                       "'BASE TABLE'", (template,))
        for table, in cursor.fetchall():
            cursor.execute('SHOW CREATE TABLE `%s`.`%s`' % (template, table))
            cursor.execute(cursor.fetchone()[1])
            cursor.execute('INSERT INTO `%s` SELECT * FROM `%s`.`%s`'
                           % (table, template, table))
        connection.commit()


_COPIERS = {'PostgreSQL': _copy_on_postgresql,
            'MariaDB': _copy_on_mariadb}
