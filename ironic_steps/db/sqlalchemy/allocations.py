"""Queries on allocations, and the node each one holds.

An allocation comes back as a dict of its columns plus ``node_uuid`` (the
UUID of the node it holds, or None), read in the same query.  Giving an
allocation its node and taking the node back are single transactions
that write both rows: a node is associated with the allocation (its
``instance_uuid`` becomes the allocation's UUID, its
``instance_info.traits`` the allocation's traits) exactly when the
allocation names it, and two allocations never hold one node (the unique
``node_id``).
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import paging

_ALLOCATIONS = models.Allocation.__table__
_NODES = models.Node.__table__

#: Allocations sort on any column but the JSON ones, as in Ironic.
_SORT_KEYS = frozenset(column.name for column in _ALLOCATIONS.c
                       if not isinstance(column.type, models.JSONEncoded))
#: List filters: column equality, and the held node's UUID.
_FILTERS = frozenset(['resource_class', 'state', 'owner'])
#: The UUID of the allocation holding a node, read with the node's row in
#: the same query (as ``allocation_uuid``), for showing nodes.
ALLOCATION_UUID_COLUMN = sa.select(_ALLOCATIONS.c.uuid).where(
    _ALLOCATIONS.c.node_id == _NODES.c.id).scalar_subquery().label(
        'allocation_uuid')
# Built once: every list of nodes runs it for its page.
_ALLOCATION_UUIDS_OF_NODES = sa.select(
    _NODES.c.uuid, _ALLOCATIONS.c.uuid
).join(_ALLOCATIONS, _ALLOCATIONS.c.node_id == _NODES.c.id).where(
    _NODES.c.uuid.in_(sa.bindparam('node_uuids', expanding=True)))

_WITH_NODE_UUID = sa.select(
    _ALLOCATIONS, _NODES.c.uuid.label('node_uuid')
).outerjoin(_NODES, _NODES.c.id == _ALLOCATIONS.c.node_id)


def _as_dict(row):
    return dict(row._mapping)


class AllocationQueries:
    """Queries on allocations: a mixin of the database API's
    ``Connection``, which provides ``read_one()``, ``write_one()`` and
    ``writer()``."""

    def _get_allocation(self, connection, key, ident):
        row = connection.execute(_WITH_NODE_UUID.where(
            _ALLOCATIONS.c[key] == ident)).one_or_none()
        if row is None:
            raise exception.AllocationNotFound(allocation=ident)
        return _as_dict(row)

    def get_allocation_by_id(self, allocation_id):
        with self.read_one() as connection:
            return self._get_allocation(connection, 'id', allocation_id)

    def get_allocation_by_uuid(self, uuid):
        with self.read_one() as connection:
            return self._get_allocation(connection, 'uuid', uuid)

    def get_allocation_by_name(self, name):
        with self.read_one() as connection:
            return self._get_allocation(connection, 'name', name)

    def get_allocation_list(self, filters=None, limit=None, marker=None,
                            sort_key='id', sort_dir='asc'):
        """A page of allocations matching ``filters`` (``node_uuid`` and
        the columns of ``_FILTERS``), in one query (see :mod:`paging`)."""
        query = _WITH_NODE_UUID
        for key, value in (filters or {}).items():
            if key == 'node_uuid':
                query = query.where(_NODES.c.uuid == value)
            elif key in _FILTERS:
                query = query.where(_ALLOCATIONS.c[key] == value)
            else:
                raise exception.InvalidParameterValue(
                    err='Cannot filter allocations on %s; filters: %s' % (
                        key, ', '.join(sorted(_FILTERS | {'node_uuid'}))))
        query = paging.page(query, _ALLOCATIONS, _SORT_KEYS, 'allocations',
                            limit=limit, marker=marker, sort_key=sort_key,
                            sort_dir=sort_dir)
        with self.read_one() as connection:
            return [_as_dict(row) for row in connection.execute(query)]

    def get_allocation_uuids_of_nodes(self, node_uuids):
        """{node UUID: UUID of the allocation holding it}, for those of
        ``node_uuids`` an allocation holds; one query."""
        node_uuids = list(set(node_uuids))
        if not node_uuids:
            return {}
        with self.read_one() as connection:
            return dict(connection.execute(
                _ALLOCATION_UUIDS_OF_NODES, {'node_uuids': node_uuids}).all())

    @staticmethod
    def _allocation_duplicate(exc, values):
        if 'name' in (exc.columns or []):
            return exception.AllocationDuplicateName(name=values.get('name'))
        return exception.AllocationAlreadyExists(uuid=values.get('uuid'))

    def create_allocation(self, values):
        """Store an allocation that holds no node yet; return it.

        :raises AllocationDuplicateName, AllocationAlreadyExists:
        """
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.pop('node_id', None)
        values.pop('node_uuid', None)
        try:
            with self.writer() as connection:
                allocation_id = connection.execute(
                    sa.insert(_ALLOCATIONS).values(**values)
                ).inserted_primary_key[0]
                return self._get_allocation(connection, 'id', allocation_id)
        except db_exc.DBDuplicateEntry as exc:
            raise self._allocation_duplicate(exc, values) from exc

    def update_allocation(self, allocation_id, values):
        """Change an allocation; return it.  A ``node_id`` in ``values``
        gives it that node, in the same transaction (see the module).

        A ``state`` in ``values`` is a conductor's outcome: written only
        while the allocation is still ``allocating``.

        :raises AllocationNotFound, AllocationDuplicateName:
        :raises AllocationAlreadyDecided: for an outcome, when another
            was written first.
        :raises NodeAssociated: if the node has another instance, or
            another allocation holds it.
        """
        values = dict(values)
        values.pop('node_uuid', None)
        values['updated_at'] = timeutils.utcnow()
        update = sa.update(_ALLOCATIONS).where(
            _ALLOCATIONS.c.id == allocation_id)
        deciding = 'state' in values
        if deciding:
            # A conductor's outcome: only once, whoever decides first
            # (one that took the allocation over may be deciding too).
            update = update.where(
                _ALLOCATIONS.c.state == states.ALLOCATING)
        try:
            with self.writer() as connection:
                allocation = self._get_allocation(connection, 'id',
                                                  allocation_id)
                if connection.execute(update.values(**values)).rowcount != 1:
                    raise exception.AllocationAlreadyDecided(
                        allocation=allocation['uuid'])
                if values.get('node_id') is not None:
                    self._associate_node(connection, values['node_id'],
                                         allocation)
                return self._get_allocation(connection, 'id', allocation_id)
        except db_exc.DBDuplicateEntry as exc:
            if 'node_id' in (exc.columns or []):
                node = self._node_row(values['node_id'])
                raise exception.NodeAssociated(
                    node=node.uuid, instance=node.instance_uuid) from exc
            raise self._allocation_duplicate(exc, values) from exc

    def get_unsettled_allocations(self, changed_before):
        """Allocations still ``allocating`` whose last change (or
        creation) is older than ``changed_before``: (id, uuid, updated_at)
        rows, oldest first."""
        last_change = sa.func.coalesce(_ALLOCATIONS.c.updated_at,
                                       _ALLOCATIONS.c.created_at)
        with self.read_one() as connection:
            return connection.execute(
                sa.select(_ALLOCATIONS.c.id, _ALLOCATIONS.c.uuid,
                          _ALLOCATIONS.c.updated_at)
                .where(_ALLOCATIONS.c.state == states.ALLOCATING,
                       last_change < changed_before)
                .order_by(last_change)).all()

    def claim_allocation(self, allocation_id, seen_updated_at):
        """Mark an unsettled allocation as being processed again (its
        ``updated_at`` now), only if nobody changed it since it was seen
        with ``seen_updated_at``: whether this caller got it."""
        unchanged = (_ALLOCATIONS.c.updated_at.is_(None)
                     if seen_updated_at is None else
                     _ALLOCATIONS.c.updated_at == seen_updated_at)
        with self.write_one() as connection:
            return connection.execute(
                sa.update(_ALLOCATIONS)
                .where(_ALLOCATIONS.c.id == allocation_id,
                       _ALLOCATIONS.c.state == states.ALLOCATING,
                       unchanged)
                .values(updated_at=timeutils.utcnow())).rowcount == 1

    def _node_row(self, node_id):
        with self.read_one() as connection:
            return connection.execute(sa.select(_NODES).where(
                _NODES.c.id == node_id)).one()

    @staticmethod
    def _associate_node(connection, node_id, allocation):
        """Make ``allocation`` the instance of node ``node_id``."""
        node = connection.execute(
            sa.select(_NODES.c.uuid, _NODES.c.instance_uuid,
                      _NODES.c.instance_info)
            .where(_NODES.c.id == node_id)).one_or_none()
        if node is None:
            raise exception.NodeNotFound(node=node_id)
        if node.instance_uuid not in (None, allocation['uuid']):
            raise exception.NodeAssociated(node=node.uuid,
                                           instance=node.instance_uuid)
        instance_info = dict(node.instance_info or {},
                             traits=allocation['traits'] or [])
        # Only if no one associated it since it was read: the condition
        # stands in for a row lock, which SQLite does not have.
        associated = connection.execute(
            sa.update(_NODES).where(
                _NODES.c.id == node_id,
                sa.or_(_NODES.c.instance_uuid.is_(None),
                       _NODES.c.instance_uuid == allocation['uuid']))
            .values(instance_uuid=allocation['uuid'],
                    instance_info=instance_info,
                    updated_at=timeutils.utcnow()))
        if associated.rowcount != 1:
            raise exception.NodeAssociated(node=node.uuid,
                                           instance='another one')

    def destroy_allocation(self, allocation_id):
        """Delete an allocation; the node it held, if any, is no longer
        associated with an instance (same transaction).

        :raises AllocationNotFound:
        """
        with self.writer() as connection:
            allocation = self._get_allocation(connection, 'id',
                                              allocation_id)
            if allocation['node_id'] is not None:
                connection.execute(
                    sa.update(_NODES)
                    .where(_NODES.c.id == allocation['node_id'])
                    .values(instance_uuid=None,
                            updated_at=timeutils.utcnow()))
            connection.execute(sa.delete(_ALLOCATIONS).where(
                _ALLOCATIONS.c.id == allocation_id))
