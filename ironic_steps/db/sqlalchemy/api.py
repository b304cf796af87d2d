"""SQLAlchemy implementation of the database API.

Each public method is one transaction.  Most are a single statement (an
UPDATE by primary key for a node transition), run through
:func:`_read_one` / :func:`_write_one`, so that a step transition costs one
round trip whatever the number of nodes and SQLite never has to upgrade a
read lock to a write lock under load; the few that need two statements to
agree use :func:`_writer`'s transaction.
"""

import contextlib
import functools
import threading

import sqlalchemy as sa
from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.db.sqlalchemy import allocations
from ironic_steps.db.sqlalchemy import bios_settings
from ironic_steps.db.sqlalchemy import conductors
from ironic_steps.db.sqlalchemy import deploy_templates
from ironic_steps.db.sqlalchemy import direct_statements
from ironic_steps.db.sqlalchemy import engines
from ironic_steps.db.sqlalchemy import firmware_components
from ironic_steps.db.sqlalchemy import inspection_rules
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import node_inventory
from ironic_steps.db.sqlalchemy import node_statements
from ironic_steps.db.sqlalchemy import node_traits
from ironic_steps.db.sqlalchemy import resources
from ironic_steps.db.sqlalchemy import runbooks
from ironic_steps.db.sqlalchemy import paging
from ironic_steps.db.sqlalchemy import sqlite
from ironic_steps.db.sqlalchemy import step_history

_LOCAL = threading.local()
_backend = None

# The engines' set-up is engines.py's; these names are this API's too.
configure = engines.configure
reconnect = engines.reconnect
get_engine = engines.get_engine
statement_engines = engines.statement_engines


@contextlib.contextmanager
def _connected(connecting):
    """Enter ``connecting``, a context manager that opens a connection.

    A database that cannot be reached raises DBConnectionError, as one
    lost mid-statement does (oslo.db translates only the latter: it does
    not see errors raised while connecting).
    """
    with contextlib.ExitStack() as stack:
        try:
            connection = stack.enter_context(connecting)
        except sa.exc.DBAPIError as exc:
            raise db_exc.DBConnectionError(exc) from exc
        yield connection


@contextlib.contextmanager
def _writer():
    """A write transaction on a Core connection.

    Connections, not ORM sessions: the node queries are a statement or two
    on one table, and an ORM session costs several times the statement
    itself (0.38 against 0.11 ms for a node UPDATE on SQLite).
    """
    engine = get_engine()
    if sqlite.is_tuned(engine):
        connecting = sqlite.transaction(engine)
    else:
        connecting = engines.facade().writer.connection.using(_LOCAL)
    with sqlite.write_lock(engine), _connected(connecting) as connection:
        yield connection


@contextlib.contextmanager
def _write_one():
    """A connection for one writing statement (see sqlite.one_statement)."""
    engine = get_engine()
    with sqlite.write_lock(engine), _connected(
            sqlite.one_statement(engine)) as connection:
        yield connection


def _read_one():
    """A connection for one reading statement (see sqlite.one_statement)."""
    return _connected(sqlite.one_statement(engines.tuned()[1]))


def retry_on_disconnect(fn):
    """Retry ``fn`` (one idempotent write) with oslo.db's retry, on a lost
    connection or a deadlock, as long as ``[database] db_max_retries``
    and its intervals allow.

    For the conductor's node writes, where giving up leaves a flow
    without its record: a database that comes back within the retries
    costs the flow a pause, not a failure.  Not for the API's reads, which
    answer 503 at once instead of holding a client.
    """
    wrapped = {}

    @functools.wraps(fn)
    def retrying(*args, **kwargs):
        opts = CONF.database
        key = (opts.db_max_retries, opts.db_retry_interval,
               opts.db_inc_retry_interval, opts.db_max_retry_interval)
        call = wrapped.get(key)
        if call is None:
            call = wrapped[key] = oslo_db_api.wrap_db_retry(
                max_retries=key[0], retry_interval=key[1],
                inc_retry_interval=key[2], max_retry_interval=key[3],
                retry_on_disconnect=True, retry_on_deadlock=True)(fn)
        return call(*args, **kwargs)
    return retrying


def get_backend():
    global _backend
    if _backend is None:
        _backend = Connection()
    return _backend


_NODES = models.Node.__table__

#: Nodes sort on any column but the JSON ones, as in Ironic.
_SORT_KEYS = frozenset(column.name for column in _NODES.c
                       if not isinstance(column.type, models.JSONEncoded))

#: Node list filters: column equality, or a condition built from the value.
_FILTERS = frozenset(['provision_state', 'driver', 'resource_class',
                      'maintenance', 'reservation', 'instance_uuid', 'fault',
                      'owner', 'lessee', 'retired', 'chassis_uuid',
                      'parent_node', 'instance_name'])
_CONDITIONS = {
    # Case-insensitive, as in Ironic: groups are stored lower-case.
    'conductor_group': lambda value: _NODES.c.conductor_group == value.lower(),
    'associated': lambda value: (_NODES.c.instance_uuid.is_not(None) if value
                                 else _NODES.c.instance_uuid.is_(None)),
    'description_contains': lambda value: _NODES.c.description.contains(
        value, autoescape=True),
    'provisioned_before': lambda value: _NODES.c.provision_updated_at < value,
    # A list of shards, any of which the node's is.
    'shard_in': lambda value: _NODES.c.shard.in_(value),
    'sharded': lambda value: (_NODES.c.shard.is_not(None) if value
                              else _NODES.c.shard.is_(None)),
    # The nodes a project owns or leases (a project caller's lists).
    'project': lambda value: sa.or_(_NODES.c.owner == value,
                                    _NODES.c.lessee == value),
    # Whether the node is some node's child.
    'has_parent': lambda value: (_NODES.c.parent_node.is_not(None) if value
                                 else _NODES.c.parent_node.is_(None)),
}


def _key_column(node_id):
    """Nodes are addressed by database id (an int) or UUID."""
    return 'id' if isinstance(node_id, int) else 'uuid'


class _NodeQueries:
    """Queries on nodes.

    A node comes back as a read-only row whose attributes are its columns
    (a SQLAlchemy ``Row``); the objects layer turns it into a Node.
    """

    def create_node(self, values):
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        try:
            with _writer() as connection:
                connection.execute(sa.insert(_NODES).values(**values))
                return connection.execute(
                    node_statements.NODE_BY['uuid'], {'ident': values['uuid']}
                ).one()
        except db_exc.DBDuplicateEntry as exc:
            if 'name' in (exc.columns or []):
                raise exception.DuplicateName(name=values.get('name')) from exc
            raise exception.NodeAlreadyExists(uuid=values['uuid']) from exc

    def _get_node(self, key, ident, with_traits):
        engine = engines.tuned()[1]
        if sqlite.is_tuned_file(engine):
            read = (node_statements.DIRECT_NODE_WITH_TRAITS_BY if with_traits
                    else node_statements.DIRECT_NODE_BY)[key]
            node = read.one_or_none(engine, {'ident': ident})
        else:
            statement = (node_statements.NODE_WITH_TRAITS_BY if with_traits
                         else node_statements.NODE_BY)[key]
            with _read_one() as connection:
                node = connection.execute(
                    statement, {'ident': ident}).one_or_none()
        if node is None:
            raise exception.NodeNotFound(node=ident)
        return node

    # with_traits: the row also has ``traits``, the node's traits (a sorted
    # list), and ``allocation_uuid``, read in the same query.

    def get_node_by_id(self, node_id, with_traits=False):
        return self._get_node('id', node_id, with_traits)

    def get_node_by_uuid(self, uuid, with_traits=False):
        return self._get_node('uuid', uuid, with_traits)

    def get_node_by_name(self, name, with_traits=False):
        return self._get_node('name', name, with_traits)

    def get_node_list(self, filters=None, limit=None, marker=None,
                      sort_key='id', sort_dir='asc', columns=None):
        """Nodes matching ``filters``, after ``marker`` in sort order.

        :param filters: column -> value equality filters (``_FILTERS``),
            plus the conditions of ``_CONDITIONS``: ``conductor_group``
            (any case), ``associated`` (has an instance or not),
            ``description_contains``, ``provisioned_before`` (a
            datetime provision_updated_at must be earlier than),
            ``shard_in`` (a list of shards), ``sharded`` (has a shard or
            not), ``has_parent`` (has a parent_node or not) and
            ``project`` (the project owns or leases the node).
        :param marker: the node (a row or object) the previous page ended
            with; ties on the sort key are broken by id.
        :param columns: the column names each row needs (``id`` and the
            sort key are always there); default every column.  A list
            polled for a few fields is then a fraction of the work.
            ``traits`` is the node's traits, a sorted list, read in the
            same query.
        """
        paging.check_sort(_SORT_KEYS, 'nodes', sort_key, sort_dir)
        if columns is None:
            query = sa.select(_NODES)
        else:
            names = dict.fromkeys(('id', sort_key) + tuple(columns))
            query = sa.select(*(node_traits.TRAITS_COLUMN if name == 'traits'
                                else _NODES.c[name] for name in names))
        for key, value in (filters or {}).items():
            if key in _CONDITIONS:
                query = query.where(_CONDITIONS[key](value))
            elif key in _FILTERS:
                query = query.where(_NODES.c[key] == value)
            else:
                raise exception.InvalidParameterValue(
                    err='Cannot filter nodes on %s; filters: %s' % (
                        key, ', '.join(sorted(_FILTERS | set(_CONDITIONS)))))
        query = paging.page(query, _NODES, _SORT_KEYS, 'nodes', limit=limit,
                            marker=marker, sort_key=sort_key,
                            sort_dir=sort_dir)
        with _read_one() as connection:
            return connection.execute(query).all()

    def count_nodes_by_state(self):
        """{provision_state: number of nodes}, in one query."""
        with _read_one() as connection:
            return dict(connection.execute(
                sa.select(_NODES.c.provision_state, sa.func.count())
                .group_by(_NODES.c.provision_state)).all())

    def count_nodes_by_shard(self):
        """{shard (None: no shard): number of nodes}, in one query."""
        with _read_one() as connection:
            return dict(connection.execute(
                sa.select(_NODES.c.shard, sa.func.count())
                .group_by(_NODES.c.shard)).all())

    def update_node(self, node_id, values, release=None, fence=None,
                    ended_steps=()):
        """Apply ``values`` to one node in one statement.

        :param release: a lock holder's tag: also drop its lock, in the
            same statement.  Should the node not be locked by ``release``
            (which a caller holding the lock never sees), the values are
            written all the same and the lock is left as it is, unless
            ``fence`` says otherwise.
        :param fence: the tag of the lock the caller believes it holds:
            write only if it still does (a conductor taken for dead, its
            nodes taken over, must not overwrite what the new holder
            does).
        :param ended_steps: step history entries (dicts of column
            values) of the steps that ended with this change: inserted in
            its transaction, so that the node and its history never
            disagree and a step transition costs one write.  Nothing is
            inserted unless the node is written.
        :returns: (the ``updated_at`` written, whether the lock was
            released).
        :raises NodeLockLost: when ``fence`` no longer holds the lock.
        """
        values = dict(values)
        # Stamped once for every try: a try whose commit went through but
        # whose answer was lost is recognised by it (see _lost_or_missing).
        values['updated_at'] = timeutils.utcnow()
        try:
            released = self._update_node(node_id, values, release, fence,
                                         ended_steps)
        except db_exc.DBDuplicateEntry as exc:
            raise exception.DuplicateName(name=values.get('name')) from exc
        return values['updated_at'], released

    @retry_on_disconnect
    def _update_node(self, node_id, values, release, fence, ended_steps):
        columns = frozenset(values)
        params = {'set_' + column: value for column, value in values.items()}
        params['node_id'] = node_id
        engine = get_engine()
        if (columns <= node_statements.DIRECT_COLUMNS
                and sqlite.is_tuned_file(engine)):
            with sqlite.write_lock(engine):
                if ended_steps:
                    with direct_statements.transaction(engine) as connection:
                        written = self._update_node_directly(
                            engine, columns, params, release, fence,
                            connection)
                        if written is not None:
                            step_history.record_directly(
                                engine, connection, ended_steps,
                                values['updated_at'])
                else:
                    written = self._update_node_directly(
                        engine, columns, params, release, fence)
            if written is None:
                return self._lost_or_missing(node_id, fence, values)
            return written
        # A lone UPDATE is its own transaction; with history to insert,
        # both share one.
        write = _writer if ended_steps else _write_one
        if release is not None:
            with write() as connection:
                if connection.execute(
                        node_statements.update_statement(columns, release=True),
                        dict(params, holder=release)).rowcount == 1:
                    step_history.record(connection, ended_steps)
                    return True
        fenced = fence is not None
        if fenced:
            params['holder'] = fence
        with write() as connection:
            written = connection.execute(node_statements.update_statement(
                columns, release=False, fenced=fenced), params).rowcount == 1
            if written:
                step_history.record(connection, ended_steps)
        if not written:
            return self._lost_or_missing(node_id, fence, values)
        return False

    @staticmethod
    def _update_node_directly(engine, columns, params, release, fence,
                              connection=None):
        """_update_node's UPDATE on the embedded SQLite, under its write
        lock (in ``connection``'s transaction, if given): whether it
        released the lock; None if no row was written."""
        if release is not None and node_statements.direct_update(
                columns, True).rowcount(
                engine, dict(params, holder=release), connection) == 1:
            return True
        fenced = fence is not None
        if fenced:
            params['holder'] = fence
        if node_statements.direct_update(columns, False, fenced).rowcount(
                engine, params, connection) == 1:
            return False
        return None

    def _lost_or_missing(self, node_id, fence, values):
        """Why a fenced write changed no row: the node is gone, or another
        holds its lock; or an earlier try of this very write went through
        (its answer lost with the connection): then whether it released
        the lock."""
        node = self._get_node('id', node_id, with_traits=False)
        if node.updated_at == values['updated_at']:
            return node.reservation is None
        raise exception.NodeLockLost(node=node.uuid, holder=fence,
                                     current=node.reservation or 'nobody')

    def update_node_if_unchanged(self, node_id, column, expected, value):
        """Set ``column`` to ``value`` in one statement, only if it still
        holds ``expected`` and nobody holds the node's lock.

        For a small change that must not take the lock (an agent's lookup
        storing its token): the conditions stand in for the lock.
        :returns: whether the node was changed.
        """
        params = {'node_id': node_id, 'value': value,
                  'updated_at': timeutils.utcnow()}
        if expected is not None:
            params['expected'] = expected
        statement = node_statements.update_if_unchanged_statement(
            column, expected is None)
        with _write_one() as connection:
            return connection.execute(statement, params).rowcount == 1

    def destroy_node(self, node_id):
        with _write_one() as connection:
            result = connection.execute(
                sa.delete(_NODES).where(_NODES.c.id == node_id))
        if result.rowcount != 1:
            raise exception.NodeNotFound(node=node_id)

    def reserve_node(self, tag, node_id, replacing=None):
        """Take a node's exclusive lock for ``tag`` and return the node.

        :param node_id: the node's database id (int) or UUID.
        :param replacing: a holder whose lock is known to be stale (the
            lock service says it no longer holds the node): overwrite it.

        The lock is the conditional UPDATE itself: of two racing callers,
        the database lets exactly one change ``reservation`` from NULL.
        Where the database can return the updated row (SQLite, PostgreSQL)
        that is the only statement.  Elsewhere (MySQL, MariaDB) the node is
        read back in the same transaction, from the same server: the winner
        reads the lock it holds, the loser (whose UPDATE waited for the
        winner's commit) the node as the winner left it; never an older
        copy, such as a replica behind the database would return.

        :raises NodeLocked: naming the current holder.
        :raises NodeNotFound:
        """
        key = _key_column(node_id)
        params = {'ident': node_id, 'holder': tag}
        take = node_statements.TAKE_LOCK
        take_returning = node_statements.TAKE_LOCK_RETURNING
        direct = node_statements.DIRECT_TAKE_LOCK
        if replacing is not None:
            params['stale'] = replacing
            take = node_statements.TAKE_STALE_LOCK
            take_returning = node_statements.TAKE_STALE_LOCK_RETURNING
            direct = node_statements.DIRECT_TAKE_STALE_LOCK
        engine = get_engine()
        if sqlite.is_tuned_file(engine):
            with sqlite.write_lock(engine):
                node = direct[key].one_or_none(engine, params)
            taken = node is not None
        else:
            node, taken = self._take_lock(take[key], take_returning[key],
                                          params)
        if node is None:
            node = self._get_node(key, node_id, with_traits=False)
        if not taken:
            raise exception.NodeLocked(node=node.uuid, host=node.reservation)
        return node

    @staticmethod
    def _take_lock(take, take_returning, params):
        """(the node, whether the lock was taken) through SQLAlchemy."""
        node_id = params['ident']
        key = _key_column(node_id)
        with _write_one() as connection:
            if connection.dialect.update_returning:
                node = connection.execute(take_returning,
                                          params).one_or_none()
                return node, node is not None
            taken = connection.execute(take, params).rowcount == 1
            return connection.execute(
                node_statements.NODE_BY[key], {'ident': node_id}).one_or_none(), taken

    @retry_on_disconnect
    def release_node(self, tag, node_id):
        """Drop ``tag``'s lock on a node; False if it did not hold it."""
        engine = get_engine()
        if sqlite.is_tuned_file(engine):
            with sqlite.write_lock(engine):
                return node_statements.DIRECT_DROP_LOCK.rowcount(
                    engine, {'node_id': node_id, 'holder': tag}) == 1
        with _write_one() as connection:
            result = connection.execute(
                node_statements.DROP_LOCK, {'node_id': node_id, 'holder': tag})
        return result.rowcount == 1

    def release_all_reservations(self, tag):
        """Drop every lock ``tag`` holds (a conductor starting after a crash).

        :returns: the UUIDs of the nodes that were locked.
        """
        with _writer() as connection:
            uuids = list(connection.execute(
                sa.select(_NODES.c.uuid).where(
                    _NODES.c.reservation == tag)).scalars())
            connection.execute(sa.update(_NODES).where(
                _NODES.c.reservation == tag).values(
                    reservation=None, **node_statements.KEEP_UPDATED_AT))
        return uuids


class Connection(_NodeQueries, node_traits.NodeTraitQueries,
                 bios_settings.BIOSSettingQueries,
                 deploy_templates.DeployTemplateQueries,
                 runbooks.RunbookQueries,
                 inspection_rules.InspectionRuleQueries,
                 conductors.ConductorQueries,
                 resources.ResourceQueries,
                 allocations.AllocationQueries,
                 step_history.StepHistoryQueries,
                 node_inventory.NodeInventoryQueries,
                 firmware_components.FirmwareComponentQueries):
    """The database API: every query, one instance per process."""

    # What the query mixins of other modules run their statements on.
    read_one = staticmethod(_read_one)
    write_one = staticmethod(_write_one)
    writer = staticmethod(_writer)
