"""Alembic environment: runs migrations on the connection we are handed."""

from alembic import context

from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps.db.sqlalchemy import models


def run_migrations_online():
    connection = context.config.attributes.get('connection')
    if connection is None:
        with sqlalchemy_api.get_engine().connect() as connection:
            _run(connection)
    else:
        _run(connection)


def _run(connection):
    context.configure(connection=connection,
                      target_metadata=models.Base.metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
