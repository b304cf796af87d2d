"""Migrated databases on the shared database servers, for service processes.

:func:`migrated_database` gives a test a fresh database with the schema
``ironic-steps-dbsync upgrade`` makes.  The real ``ironic-steps-dbsync``
runs once per server and test process, into a template database; each
test then gets a copy of it, made by the server in a fraction of a second
instead of a process importing the service and running every migration
(two to eight seconds on a loaded machine).  The copy is the server's
own (:meth:`tests.database_servers.DatabaseServer.url`), as the unit
tests' (which migrate their template in process).

The template is never connected to by a service, so every copy starts
from the state dbsync left it in.
"""

import shutil
import tempfile

import sqlalchemy as sa

from tests.functional import fixtures as functional

#: {server: name of its migrated template database}
_templates = {}


def _template(server):
    name = _templates.get(server)
    if name is None:
        url = server.url()
        state_path = tempfile.mkdtemp(prefix='ironic-steps-dbsync-')
        try:
            functional.create_schema(state_path, url)
        finally:
            shutil.rmtree(state_path, True)
        name = _templates[server] = sa.engine.make_url(url).database
    return name


def migrated_database(server):
    """A new database on ``server`` (a started
    :class:`tests.database_servers.DatabaseServer`) holding the migrated
    schema: its SQLAlchemy URL."""
    return server.url(template=_template(server))
