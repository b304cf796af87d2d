"""Queries on runbooks and their traits.

The ``runbooks`` table holds a runbook's fields, its steps one JSON list;
``runbook_traits`` its traits, one row each, deleted with their runbook
(ON DELETE CASCADE).  A runbook is read with its traits in one query,
through a correlated subquery as a node's traits are (see
:mod:`node_traits`).
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import node_traits
from ironic_steps.db.sqlalchemy import paging

_RUNBOOKS = models.Runbook.__table__
_TRAITS = models.RunbookTrait.__table__

_SORT_KEYS = frozenset(['id', 'uuid', 'name', 'owner', 'public',
                        'created_at', 'updated_at'])

_TRAITS_COLUMN = node_traits.traits_column(
    _TRAITS.c.trait, _TRAITS.c.runbook_id == _RUNBOOKS.c.id)


def _select():
    return sa.select(_RUNBOOKS, _TRAITS_COLUMN)


def _visible_to(query, project):
    """Narrowed to what ``project`` sees: public runbooks and its own."""
    if project is None:
        return query
    return query.where(sa.or_(_RUNBOOKS.c.public.is_(True),
                              _RUNBOOKS.c.owner == project))


class RunbookQueries:
    """Queries on runbooks (``runbooks``, ``runbook_traits``).

    A runbook comes back as a dict of its columns plus ``traits`` (sorted).
    Runbooks are not locked: each write is one transaction.  A mixin of
    the database API's ``Connection``, which provides ``read_one()``,
    ``write_one()`` and ``writer()``.
    """

    def _get_runbook(self, connection, key, ident):
        row = connection.execute(
            _select().where(_RUNBOOKS.c[key] == ident)).first()
        if row is None:
            raise exception.RunbookNotFound(runbook=ident)
        return dict(row._mapping)

    def get_runbook_by_id(self, runbook_id):
        with self.read_one() as connection:
            return self._get_runbook(connection, 'id', runbook_id)

    def get_runbook_by_uuid(self, uuid):
        with self.read_one() as connection:
            return self._get_runbook(connection, 'uuid', uuid)

    def get_runbook_by_name(self, name):
        with self.read_one() as connection:
            return self._get_runbook(connection, 'name', name)

    def get_runbook_list(self, limit=None, marker=None, sort_key='id',
                         sort_dir='asc', project=None):
        """A page of runbooks (only those ``project`` sees, if given)."""
        query = paging.page(
            _visible_to(_select(), project), _RUNBOOKS, _SORT_KEYS,
            'runbooks', limit=limit, marker=marker, sort_key=sort_key,
            sort_dir=sort_dir)
        with self.read_one() as connection:
            return [dict(row._mapping) for row in connection.execute(query)]

    @staticmethod
    def _insert_runbook_traits(connection, runbook_id, traits):
        if traits:
            now = timeutils.utcnow()
            connection.execute(sa.insert(_TRAITS), [
                {'runbook_id': runbook_id, 'trait': trait, 'created_at': now}
                for trait in sorted(set(traits))])

    @staticmethod
    def _runbook_duplicate(exc, values):
        if 'name' in (exc.columns or []):
            return exception.RunbookDuplicateName(name=values.get('name'))
        return exception.RunbookAlreadyExists(uuid=values.get('uuid'))

    def create_runbook(self, values):
        """Store a runbook (``uuid`` made if absent) and its ``traits``.

        :raises RunbookDuplicateName, RunbookAlreadyExists:
        """
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        traits = values.pop('traits', None) or []
        try:
            with self.writer() as connection:
                runbook_id = connection.execute(
                    sa.insert(_RUNBOOKS).values(**values)
                ).inserted_primary_key[0]
                self._insert_runbook_traits(connection, runbook_id, traits)
                return self._get_runbook(connection, 'id', runbook_id)
        except db_exc.DBDuplicateEntry as exc:
            raise self._runbook_duplicate(exc, values) from exc

    def update_runbook(self, runbook_id, values):
        """Change a runbook's fields (``traits``, if given, replace all);
        return it.

        :raises RunbookNotFound, RunbookDuplicateName:
        """
        values = dict(values)
        traits = values.pop('traits', None)
        values['updated_at'] = timeutils.utcnow()
        try:
            with self.writer() as connection:
                result = connection.execute(
                    sa.update(_RUNBOOKS)
                    .where(_RUNBOOKS.c.id == runbook_id).values(**values))
                if result.rowcount != 1:
                    raise exception.RunbookNotFound(runbook=runbook_id)
                if traits is not None:
                    connection.execute(sa.delete(_TRAITS).where(
                        _TRAITS.c.runbook_id == runbook_id))
                    self._insert_runbook_traits(
                        connection, runbook_id, traits)
                return self._get_runbook(connection, 'id', runbook_id)
        except db_exc.DBDuplicateEntry as exc:
            raise self._runbook_duplicate(exc, values) from exc

    def add_runbook_trait(self, runbook_id, trait):
        """Give the runbook ``trait`` (nothing if it has it already)."""
        with self.writer() as connection:
            if connection.execute(sa.select(_RUNBOOKS.c.id).where(
                    _RUNBOOKS.c.id == runbook_id)).first() is None:
                raise exception.RunbookNotFound(runbook=runbook_id)
            if connection.execute(sa.select(_TRAITS.c.trait).where(
                    _TRAITS.c.runbook_id == runbook_id,
                    _TRAITS.c.trait == trait)).first() is None:
                self._insert_runbook_traits(connection, runbook_id, [trait])
                connection.execute(
                    sa.update(_RUNBOOKS).where(_RUNBOOKS.c.id == runbook_id)
                    .values(updated_at=timeutils.utcnow()))

    def remove_runbook_traits(self, runbook_id, traits=None):
        """Take ``traits`` (None: all) from the runbook; one it lacks is no
        matter, as in Ironic."""
        with self.writer() as connection:
            query = sa.delete(_TRAITS).where(
                _TRAITS.c.runbook_id == runbook_id)
            if traits is not None:
                query = query.where(_TRAITS.c.trait.in_(set(traits)))
            if connection.execute(query).rowcount:
                connection.execute(
                    sa.update(_RUNBOOKS).where(_RUNBOOKS.c.id == runbook_id)
                    .values(updated_at=timeutils.utcnow()))

    def destroy_runbook(self, runbook_id):
        """Delete a runbook; its traits go with it (ON DELETE CASCADE)."""
        with self.write_one() as connection:
            result = connection.execute(sa.delete(_RUNBOOKS).where(
                _RUNBOOKS.c.id == runbook_id))
        if result.rowcount != 1:
            raise exception.RunbookNotFound(runbook=runbook_id)
