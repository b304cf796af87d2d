"""Queries on the simple resources around a node: one table, one row each.

Chassis, portgroups, ports and volume connectors and targets are each a
table whose rows the API shows as they are stored: a :class:`Kind`
declares the table, its name in messages, the columns a list may be
sorted or filtered on, and the columns whose uniqueness a user can break
(named in the 409 they get).  Every query is one statement or one
transaction, and every page is :mod:`paging`'s keyset.  Rows come back
read-only (SQLAlchemy ``Row``), as nodes do; the objects layer wraps them.

A resource a record belongs to is named by UUID (``node_uuid``,
``portgroup_uuid``, a node's ``chassis_uuid``), under a foreign key: the
node's own DELETE deletes its records (ON DELETE CASCADE), and the
database refuses to delete a chassis still in use.  Whether a chassis or
portgroup is in use :meth:`ResourceQueries.destroy_resource` checks in
the transaction that deletes it, so as to say who uses it.
"""

import dataclasses

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import paging


@dataclasses.dataclass(frozen=True)
class User:
    """Rows of another table that keep a resource from being deleted."""
    table: sa.Table
    column: str
    what: str


@dataclasses.dataclass(frozen=True)
class Kind:
    table: sa.Table
    #: The resource's name in messages ('port').
    what: str
    sort_keys: frozenset
    filters: frozenset
    #: Columns whose duplicates a user can cause, most telling first.
    unique: tuple = ('uuid',)
    users: tuple = ()


_JSON_COLUMNS = ('extra', 'internal_info', 'properties',
                 'local_link_connection')


def _kind(model, what, filters=(), unique=('uuid',), users=()):
    table = model.__table__
    sortable = frozenset(c.name for c in table.c
                         if c.name not in _JSON_COLUMNS)
    return Kind(table, what, sortable, frozenset(filters), tuple(unique),
                tuple(users))


_NODES = models.Node.__table__
_PORTS = models.Port.__table__
#: Filters on a column of the records' node (``nodes.<column>``): the
#: records of the nodes whose column has one of the values, a list.
_NODE_FILTERS = ('nodes.conductor_group', 'nodes.shard', 'nodes.project')

KINDS = {
    'chassis': _kind(models.Chassis, 'chassis',
                     users=(User(_NODES, 'chassis_uuid', 'node(s)'),)),
    'portgroups': _kind(models.Portgroup, 'portgroup',
                        filters=('node_uuid', 'address') + _NODE_FILTERS,
                        unique=('address', 'name', 'uuid'),
                        users=(User(_PORTS, 'portgroup_uuid', 'port(s)'),)),
    'ports': _kind(models.Port, 'port',
                   filters=('node_uuid', 'address', 'portgroup_uuid')
                   + _NODE_FILTERS,
                   unique=('address', 'name', 'uuid')),
    'volume_connectors': _kind(
        models.VolumeConnector, 'volume connector',
        filters=('node_uuid', 'nodes.project'),
        unique=('connector_id', 'uuid')),
    'volume_targets': _kind(
        models.VolumeTarget, 'volume target',
        filters=('node_uuid', 'nodes.project'),
        unique=('boot_index', 'uuid')),
}

#: What a duplicate names for a unique key of several columns.
_SHOWN_FOR = {'connector_id': ('type', 'connector_id'),
              'boot_index': ('node_uuid', 'boot_index')}


def _not_found(kind, ident):
    return exception.ResourceNotFound(what=kind.what.capitalize(),
                                      ident=ident)


def _duplicate(kind, exc, values):
    columns = set(exc.columns or ())
    for column in kind.unique:
        if column in columns:
            shown = _SHOWN_FOR.get(column, (column,))
            return exception.ResourceAlreadyExists(
                what=kind.what, field=' and '.join(shown),
                value=' and '.join(str(values.get(c)) for c in shown))
    return exception.ResourceAlreadyExists(
        what=kind.what, field='UUID', value=values.get('uuid'))


def _condition(kind, column, value):
    if column == 'nodes.project':
        # The records of the nodes a project owns or leases.
        of_nodes = sa.select(_NODES.c.uuid).where(sa.or_(
            _NODES.c.owner == value, _NODES.c.lessee == value))
        return kind.table.c.node_uuid.in_(of_nodes)
    if column.startswith('nodes.'):
        of_nodes = sa.select(_NODES.c.uuid).where(
            _NODES.c[column[len('nodes.'):]].in_(value))
        return kind.table.c.node_uuid.in_(of_nodes)
    return kind.table.c[column] == value


class ResourceQueries:
    """Queries on every :data:`KINDS` table, by kind name.

    A mixin of the database API's ``Connection``, which provides
    ``read_one()``, ``write_one()`` and ``writer()``.
    """

    def get_resource(self, kind_name, key, ident):
        """The row whose ``key`` column is ``ident``.

        :raises ResourceNotFound:
        """
        kind = KINDS[kind_name]
        with self.read_one() as connection:
            row = connection.execute(sa.select(kind.table).where(
                kind.table.c[key] == ident)).one_or_none()
        if row is None:
            raise _not_found(kind, ident)
        return row

    def list_resources(self, kind_name, filters=None, limit=None,
                       marker=None, sort_key='id', sort_dir='asc'):
        """A page of rows matching ``filters`` (column -> value; for
        ``nodes.<column>``, the values of the node's column it may have)."""
        kind = KINDS[kind_name]
        query = sa.select(kind.table)
        for column, value in (filters or {}).items():
            if column not in kind.filters:
                raise exception.InvalidParameterValue(
                    err='Cannot filter %s on %s' % (kind.what, column))
            query = query.where(_condition(kind, column, value))
        query = paging.page(query, kind.table, kind.sort_keys, kind.what,
                            limit=limit, marker=marker, sort_key=sort_key,
                            sort_dir=sort_dir)
        with self.read_one() as connection:
            return connection.execute(query).all()

    def create_resource(self, kind_name, values):
        """Store a new row (a UUID is made if absent) and return it.

        :raises ResourceAlreadyExists: naming the duplicated value.
        """
        kind = KINDS[kind_name]
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('created_at', timeutils.utcnow())
        try:
            with self.writer() as connection:
                connection.execute(sa.insert(kind.table).values(**values))
                return connection.execute(sa.select(kind.table).where(
                    kind.table.c.uuid == values['uuid'])).one()
        except db_exc.DBDuplicateEntry as exc:
            raise _duplicate(kind, exc, values) from exc

    def update_resource(self, kind_name, resource_id, values, expected=None):
        """Change a row's ``values`` and return it.

        :param expected: column -> the value it must still hold, or the
            row is left as it is and None returned (a compare-and-set).
        :raises ResourceNotFound, ResourceAlreadyExists:
        """
        kind = KINDS[kind_name]
        values = dict(values, updated_at=timeutils.utcnow())
        table = kind.table
        condition = table.c.id == resource_id
        for column, value in (expected or {}).items():
            condition = sa.and_(condition, table.c[column].is_(None)
                                if value is None else
                                table.c[column] == sa.bindparam(
                                    None, value, type_=table.c[column].type))
        try:
            with self.writer() as connection:
                changed = connection.execute(
                    sa.update(table).where(condition).values(**values)
                ).rowcount
                row = connection.execute(sa.select(table).where(
                    table.c.id == resource_id)).one_or_none()
        except db_exc.DBDuplicateEntry as exc:
            raise _duplicate(kind, exc, values) from exc
        if row is None:
            raise _not_found(kind, resource_id)
        return row if changed else None

    def destroy_resource(self, kind_name, resource_id):
        """Delete a row, in one transaction with the check that nothing
        still uses it.

        :raises ResourceNotFound:
        :raises ResourceStillUsed: naming the rows that use it.
        """
        try:
            self._destroy_unused(KINDS[kind_name], resource_id)
        except db_exc.DBReferenceError:
            # A user arrived between the check and the DELETE (another
            # transaction, committed meanwhile): the check, again, names it.
            self._destroy_unused(KINDS[kind_name], resource_id)

    def _destroy_unused(self, kind, resource_id):
        table = kind.table
        with self.writer() as connection:
            row = connection.execute(sa.select(table).where(
                table.c.id == resource_id)).one_or_none()
            if row is None:
                raise _not_found(kind, resource_id)
            for user in kind.users:
                using = connection.execute(
                    sa.select(user.table.c.uuid).where(
                        user.table.c[user.column] == row.uuid)
                    .order_by(user.table.c.id)).scalars().all()
                if using:
                    raise exception.ResourceStillUsed(
                        what=kind.what.capitalize(), ident=row.uuid,
                        count=len(using), users=user.what,
                        some=', '.join(using[:3])
                        + (', ...' if len(using) > 3 else ''))
            connection.execute(sa.delete(table).where(
                table.c.id == resource_id))
