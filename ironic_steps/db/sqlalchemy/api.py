"""SQLAlchemy implementation of the database API.

Each public method is one transaction.  Most are a single statement (an
UPDATE by primary key for a node transition), run through
:func:`_read_one` / :func:`_write_one`, so that a step transition costs one
round trip whatever the number of nodes and SQLite never has to upgrade a
read lock to a write lock under load; the few that need two statements to
agree use :func:`_writer`'s transaction.
"""

import contextlib
import operator
import threading

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.common import traits as traits_rules
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import sqlite

_LOCAL = threading.local()
_FACADE_LOCK = threading.Lock()
_facade = None
_backend = None


def _new_facade(**kwargs):
    facade = enginefacade.transaction_context()
    # oslo.db yields the GIL (sleep(0)) on every connection check-in, a
    # courtesy to green threads; with real threads it only adds latency.
    # SQLite enforces foreign keys only when asked: the schema's ON DELETE
    # CASCADEs (a node's traits, a template's steps) rely on it.
    kwargs.setdefault('sqlite_fk', True)
    facade.configure(thread_checkin=False, **kwargs)
    return facade


def _get_facade():
    global _facade
    with _FACADE_LOCK:
        if _facade is None:
            _facade = _new_facade()
        return _facade


def configure(**kwargs):
    """Point the database API at another database (tests, tools).

    Takes oslo.db enginefacade options, e.g. ``connection='sqlite:///x'``;
    without arguments, ``[database]`` is read on first use.
    """
    global _facade
    with _FACADE_LOCK:
        old, _facade = _facade, _new_facade(**kwargs)
    if old is not None:
        old.dispose_pool()


def get_engine():
    return sqlite.tune(_get_facade().writer.get_engine())


@contextlib.contextmanager
def _writer():
    """A write transaction on a Core connection.

    Connections, not ORM sessions: the node queries are a statement or two
    on one table, and an ORM session costs several times the statement
    itself (0.38 against 0.11 ms for a node UPDATE on SQLite).
    """
    with sqlite.write_lock(get_engine()), _get_facade().writer.connection.using(
            _LOCAL) as connection:
        yield connection


@contextlib.contextmanager
def _write_one():
    """A connection for one writing statement (see sqlite.one_statement)."""
    engine = get_engine()
    with sqlite.write_lock(engine), sqlite.one_statement(engine) as connection:
        yield connection


def _read_one():
    """A connection for one reading statement (see sqlite.one_statement)."""
    get_engine()
    return sqlite.one_statement(_get_facade().reader.get_engine())


def get_backend():
    global _backend
    if _backend is None:
        _backend = Connection()
    return _backend


_NODES = models.Node.__table__
_CONDUCTORS = models.Conductor.__table__
_TRAITS = models.NodeTrait.__table__
_TEMPLATES = models.DeployTemplate.__table__
_STEPS = models.DeployTemplateStep.__table__

_SORT_KEYS = frozenset(['id', 'uuid', 'name', 'created_at', 'updated_at',
                        'provision_state', 'provision_updated_at', 'driver',
                        'resource_class', 'power_state', 'maintenance'])
# Taking or dropping a lock is not a change of the node: keep updated_at
# instead of letting the column's onupdate default bump it.
_KEEP_UPDATED_AT = {'updated_at': _NODES.c.updated_at}

_FILTERS = frozenset(['provision_state', 'driver', 'resource_class',
                      'maintenance', 'reservation', 'instance_uuid'])


class _TraitNames(sa.types.TypeDecorator):
    """A node's traits aggregated into one string -> a sorted list."""

    impl = sa.Text
    cache_ok = True

    def process_result_value(self, value, dialect):
        # Traits have no commas (see common/traits.py).
        return sorted(value.split(',')) if value else []


#: A node's traits as a column of a node SELECT: a correlated subquery
#: through node_traits' primary key, so that showing traits costs no
#: query of its own, whatever the number of nodes.
_TRAITS_COLUMN = sa.type_coerce(
    sa.select(sa.func.aggregate_strings(_TRAITS.c.trait, ','))
    .where(_TRAITS.c.node_id == _NODES.c.id).scalar_subquery(),
    _TraitNames()).label('traits')

# Built once: SQLAlchemy then finds their compiled form in its cache
# without building and hashing a new statement for every call.
_NODE_BY = {key: sa.select(_NODES).where(
    _NODES.c[key] == sa.bindparam('ident')) for key in ('id', 'uuid', 'name')}
_NODE_WITH_TRAITS_BY = {key: sa.select(_NODES, _TRAITS_COLUMN).where(
    _NODES.c[key] == sa.bindparam('ident')) for key in ('id', 'uuid', 'name')}
_UPDATE_NODE = sa.update(_NODES).where(_NODES.c.id == sa.bindparam('node_id'))
_TAKE_LOCK = {key: sa.update(_NODES).where(
    _NODES.c[key] == sa.bindparam('ident'), _NODES.c.reservation.is_(None)
).values(reservation=sa.bindparam('holder'), **_KEEP_UPDATED_AT)
    for key in ('id', 'uuid')}
_TAKE_LOCK_RETURNING = {key: statement.returning(*_NODES.c)
                        for key, statement in _TAKE_LOCK.items()}
_DROP_LOCK = sa.update(_NODES).where(
    _NODES.c.id == sa.bindparam('node_id'),
    _NODES.c.reservation == sa.bindparam('holder')
).values(reservation=None, **_KEEP_UPDATED_AT)
# Node UPDATEs by the set of columns they write (and whether they drop a
# lock): a handful of shapes, each built once, costs half as much as a new
# statement per call.  Bounded, in case callers write ever new sets.
_UPDATES = {}
_MAX_UPDATE_SHAPES = 256


def _update_statement(columns, release):
    key = (columns, release)
    statement = _UPDATES.get(key)
    if statement is None:
        statement = _UPDATE_NODE.values({
            column: sa.bindparam('set_' + column, type_=_NODES.c[column].type)
            for column in columns})
        if release:
            statement = statement.where(
                _NODES.c.reservation == sa.bindparam('holder')).values(
                    reservation=None)
        if len(_UPDATES) < _MAX_UPDATE_SHAPES:
            _UPDATES[key] = statement
    return statement


def _key_column(node_id):
    """Nodes are addressed by database id (an int) or UUID."""
    return 'id' if isinstance(node_id, int) else 'uuid'


def _after_marker(columns, sort_key, marker, sort_dir):
    """Rows after ``marker`` (the last item of the previous page) in the
    keyset order of :func:`_order`.

    Keyset pagination is stable and index-friendly, unlike OFFSET.  Rows
    whose sort column is NULL come last in both directions; the NULL cases
    are spelled out because any comparison with NULL is NULL.
    """
    beyond = operator.gt if sort_dir == 'asc' else operator.lt
    column, row_id = columns[sort_key], columns['id']
    value = getattr(marker, sort_key)
    if value is None:
        return sa.and_(column.is_(None), beyond(row_id, marker.id))
    return sa.or_(column.is_(None), beyond(column, value),
                  sa.and_(column == value, beyond(row_id, marker.id)))


def _order(columns, sort_key, sort_dir):
    """ORDER BY terms: the sort key, NULLs last in both directions and on
    every database (as :func:`_after_marker` assumes), then the id."""
    order = sa.desc if sort_dir == 'desc' else sa.asc
    column = columns[sort_key]
    return column.is_(None), order(column), order(columns['id'])


def _check_sort(sort_keys, what, sort_key, sort_dir):
    if sort_key not in sort_keys:
        raise exception.InvalidParameterValue(
            err='Cannot sort on %s; sortable fields of %s: %s' % (
                sort_key, what, ', '.join(sorted(sort_keys))))
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err="sort_dir must be 'asc' or 'desc', got %r" % (sort_dir,))


def _page(query, table, sort_keys, what, limit=None, marker=None,
          sort_key='id', sort_dir='asc'):
    """``query`` on ``table`` narrowed to one page, in keyset order.

    The one pagination of every collection: any table with an ``id``
    primary key pages the same way.

    :param sort_keys: the columns the collection may be sorted on.
    :param what: the collection's name, for error messages.
    :param marker: the item (a row or object: its sort key and ``id``)
        the previous page ended with.
    """
    _check_sort(sort_keys, what, sort_key, sort_dir)
    if marker is not None:
        query = query.where(_after_marker(table.c, sort_key, marker,
                                          sort_dir))
    query = query.order_by(*_order(table.c, sort_key, sort_dir))
    return query.limit(limit) if limit else query


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
                    _NODE_BY['uuid'], {'ident': values['uuid']}
                ).one()
        except db_exc.DBDuplicateEntry as exc:
            if 'name' in (exc.columns or []):
                raise exception.DuplicateName(name=values.get('name')) from exc
            raise exception.NodeAlreadyExists(uuid=values['uuid']) from exc

    def _get_node(self, key, ident, with_traits):
        statement = (_NODE_WITH_TRAITS_BY if with_traits else _NODE_BY)[key]
        with _read_one() as connection:
            node = connection.execute(
                statement, {'ident': ident}).one_or_none()
        if node is None:
            raise exception.NodeNotFound(node=ident)
        return node

    # with_traits: the row also has ``traits``, the node's traits (a sorted
    # list), read in the same query.

    def get_node_by_id(self, node_id, with_traits=False):
        return self._get_node('id', node_id, with_traits)

    def get_node_by_uuid(self, uuid, with_traits=False):
        return self._get_node('uuid', uuid, with_traits)

    def get_node_by_name(self, name, with_traits=False):
        return self._get_node('name', name, with_traits)

    def get_node_list(self, filters=None, limit=None, marker=None,
                      sort_key='id', sort_dir='asc', columns=None):
        """Nodes matching ``filters``, after ``marker`` in sort order.

        :param filters: column -> value equality filters, plus
            ``provisioned_before``: a datetime provision_updated_at must
            be earlier than.
        :param marker: the node (a row or object) the previous page ended
            with; ties on the sort key are broken by id.
        :param columns: the column names each row needs (``id`` and the
            sort key are always there); default every column.  A list
            polled for a few fields is then a fraction of the work.
            ``traits`` is the node's traits, a sorted list, read in the
            same query.
        """
        _check_sort(_SORT_KEYS, 'nodes', sort_key, sort_dir)
        if columns is None:
            query = sa.select(_NODES)
        else:
            names = dict.fromkeys(('id', sort_key) + tuple(columns))
            query = sa.select(*(_TRAITS_COLUMN if name == 'traits'
                                else _NODES.c[name] for name in names))
        filters = dict(filters or {})
        before = filters.pop('provisioned_before', None)
        if before is not None:
            query = query.where(_NODES.c.provision_updated_at < before)
        for key, value in filters.items():
            if key not in _FILTERS:
                raise exception.InvalidParameterValue(
                    err='Cannot filter nodes on %s; filters: %s' % (
                        key, ', '.join(sorted(_FILTERS))))
            query = query.where(_NODES.c[key] == value)
        query = _page(query, _NODES, _SORT_KEYS, 'nodes', limit=limit,
                      marker=marker, sort_key=sort_key, sort_dir=sort_dir)
        with _read_one() as connection:
            return connection.execute(query).all()

    def count_nodes_by_state(self):
        """{provision_state: number of nodes}, in one query."""
        with _read_one() as connection:
            return dict(connection.execute(
                sa.select(_NODES.c.provision_state, sa.func.count())
                .group_by(_NODES.c.provision_state)).all())

    def update_node(self, node_id, values, release=None):
        """Apply ``values`` to one node in one statement.

        :param release: a lock holder's tag: also drop its lock, in the
            same statement.  Should the node not be locked by ``release``
            (which a caller holding the lock never sees), the values are
            written all the same and the lock is left as it is.
        :returns: (the ``updated_at`` written, whether the lock was
            released).
        """
        values = dict(values)
        values['updated_at'] = timeutils.utcnow()
        columns = frozenset(values)
        params = {'set_' + column: value for column, value in values.items()}
        params['node_id'] = node_id
        released = False
        try:
            if release is not None:
                with _write_one() as connection:
                    released = connection.execute(
                        _update_statement(columns, release=True),
                        dict(params, holder=release)).rowcount == 1
            if not released:
                with _write_one() as connection:
                    result = connection.execute(
                        _update_statement(columns, release=False), params)
                if result.rowcount != 1:
                    raise exception.NodeNotFound(node=node_id)
        except db_exc.DBDuplicateEntry as exc:
            raise exception.DuplicateName(name=values.get('name')) from exc
        return values['updated_at'], released

    def destroy_node(self, node_id):
        with _write_one() as connection:
            result = connection.execute(
                sa.delete(_NODES).where(_NODES.c.id == node_id))
        if result.rowcount != 1:
            raise exception.NodeNotFound(node=node_id)

    def reserve_node(self, tag, node_id):
        """Take a node's exclusive lock for ``tag`` and return the node.

        :param node_id: the node's database id (int) or UUID.

        The lock is the conditional UPDATE itself: of two racing callers,
        the database lets exactly one change ``reservation`` from NULL.
        Where the database can return the updated row (SQLite, PostgreSQL)
        that is the only statement.

        :raises NodeLocked: naming the current holder.
        :raises NodeNotFound:
        """
        key = _key_column(node_id)
        params = {'ident': node_id, 'holder': tag}
        with _write_one() as connection:
            if connection.dialect.update_returning:
                node = connection.execute(_TAKE_LOCK_RETURNING[key],
                                          params).one_or_none()
                taken = node is not None
            else:
                taken = connection.execute(_TAKE_LOCK[key],
                                           params).rowcount == 1
                node = None
        if node is None:
            with _read_one() as connection:
                node = connection.execute(
                    _NODE_BY[key], {'ident': node_id}).one_or_none()
        if node is None:
            raise exception.NodeNotFound(node=node_id)
        if not taken:
            raise exception.NodeLocked(node=node.uuid, host=node.reservation)
        return node

    def release_node(self, tag, node_id):
        """Drop ``tag``'s lock on a node; False if it did not hold it."""
        with _write_one() as connection:
            result = connection.execute(
                _DROP_LOCK, {'node_id': node_id, 'holder': tag})
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
                    reservation=None, **_KEEP_UPDATED_AT))
        return uuids


class _NodeTraitQueries:
    """Queries on the traits of nodes (``node_traits``).

    Writes are made under the node's lock (by the conductor); each is one
    transaction, so a refused change writes nothing.  A node's traits go
    with it when it is deleted (ON DELETE CASCADE).  Errors name the node
    by database id: the objects layer names it by UUID.
    """

    def get_node_traits(self, node_id):
        """The traits of one node, sorted."""
        with _read_one() as connection:
            return list(connection.execute(
                sa.select(_TRAITS.c.trait)
                .where(_TRAITS.c.node_id == node_id)
                .order_by(_TRAITS.c.trait)).scalars())

    @staticmethod
    def _insert_traits(connection, node_id, traits):
        if not traits:
            return
        try:
            connection.execute(sa.insert(_TRAITS), [
                {'node_id': node_id, 'trait': trait,
                 'created_at': timeutils.utcnow()} for trait in traits])
        except db_exc.DBReferenceError as exc:
            raise exception.NodeNotFound(node=node_id) from exc

    @staticmethod
    def _check_count(node_id, count):
        if count > traits_rules.MAX_PER_NODE:
            raise exception.TooManyTraits(node=node_id, count=count,
                                          max=traits_rules.MAX_PER_NODE)

    def set_node_traits(self, node_id, traits):
        """Replace the node's traits with ``traits``; return them, sorted.

        :raises TooManyTraits: (nothing written)
        """
        traits = sorted(set(traits))
        self._check_count(node_id, len(traits))
        with _writer() as connection:
            connection.execute(sa.delete(_TRAITS).where(
                _TRAITS.c.node_id == node_id))
            self._insert_traits(connection, node_id, traits)
        return traits

    def add_node_traits(self, node_id, traits):
        """Add ``traits`` the node lacks; return all its traits, sorted.

        :raises TooManyTraits: (nothing written)
        """
        with _writer() as connection:
            have = set(connection.execute(
                sa.select(_TRAITS.c.trait)
                .where(_TRAITS.c.node_id == node_id)).scalars())
            new = sorted(set(traits) - have)
            self._check_count(node_id, len(have) + len(new))
            self._insert_traits(connection, node_id, new)
        return sorted(have.union(new))

    def remove_node_traits(self, node_id, traits=None):
        """Remove ``traits`` (None: all) from the node; return what is left.

        :raises NodeTraitNotFound: for a trait the node does not have
            (nothing removed).
        """
        with _writer() as connection:
            query = sa.delete(_TRAITS).where(_TRAITS.c.node_id == node_id)
            if traits is not None:
                have = set(connection.execute(
                    sa.select(_TRAITS.c.trait)
                    .where(_TRAITS.c.node_id == node_id)).scalars())
                for trait in traits:
                    if trait not in have:
                        raise exception.NodeTraitNotFound(node=node_id,
                                                          trait=trait)
                query = query.where(_TRAITS.c.trait.in_(set(traits)))
            connection.execute(query)
            return list(connection.execute(
                sa.select(_TRAITS.c.trait)
                .where(_TRAITS.c.node_id == node_id)
                .order_by(_TRAITS.c.trait)).scalars())


_TEMPLATE_SORT_KEYS = frozenset(['id', 'uuid', 'name', 'created_at',
                                 'updated_at'])
#: The public keys of a template step, in the order they are shown.
_STEP_KEYS = ('interface', 'step', 'args', 'priority')


def _with_steps(templates):
    """A SELECT of ``templates`` (the table or a page of it) joined with
    their steps: one row per step (or one for a template without)."""
    return sa.select(
        templates, _STEPS.c.id.label('step_id'),
        *(_STEPS.c[key] for key in _STEP_KEYS)
    ).outerjoin(_STEPS, _STEPS.c.deploy_template_id == templates.c.id)


def _grouped(rows):
    """Templates as dicts of their columns plus ``steps`` (in order), from
    the rows of a :func:`_with_steps` query, in the order they come."""
    templates = {}
    for row in rows:
        template = templates.get(row.id)
        if template is None:
            template = templates[row.id] = {
                column.name: getattr(row, column.name)
                for column in _TEMPLATES.c}
            template['steps'] = []
        if row.step_id is not None:
            template['steps'].append({key: getattr(row, key)
                                      for key in _STEP_KEYS})
    return list(templates.values())


class _DeployTemplateQueries:
    """Queries on deploy templates and their steps.

    A template comes back as a dict: its columns (``id``, ``uuid``,
    ``name``, ``extra``, ``created_at``, ``updated_at``) and ``steps``, a
    list of ``{interface, step, args, priority}`` in the order they were
    written; every read is one query, steps included.  Templates are not
    locked: each write is one transaction.
    """

    def _get_template(self, connection, key, ident):
        found = _grouped(connection.execute(
            _with_steps(_TEMPLATES).where(_TEMPLATES.c[key] == ident)
            .order_by(_STEPS.c.id)))
        if not found:
            raise exception.DeployTemplateNotFound(template=ident)
        return found[0]

    def get_deploy_template_by_id(self, template_id):
        with _read_one() as connection:
            return self._get_template(connection, 'id', template_id)

    def get_deploy_template_by_uuid(self, uuid):
        with _read_one() as connection:
            return self._get_template(connection, 'uuid', uuid)

    def get_deploy_template_by_name(self, name):
        with _read_one() as connection:
            return self._get_template(connection, 'name', name)

    def get_deploy_template_list(self, limit=None, marker=None,
                                 sort_key='id', sort_dir='asc'):
        """A page of templates, in one query (see :func:`_page`)."""
        page = _page(sa.select(_TEMPLATES), _TEMPLATES, _TEMPLATE_SORT_KEYS,
                     'deploy templates', limit=limit, marker=marker,
                     sort_key=sort_key, sort_dir=sort_dir).subquery()
        query = _with_steps(page).order_by(
            *_order(page.c, sort_key, sort_dir), _STEPS.c.id)
        with _read_one() as connection:
            return _grouped(connection.execute(query))

    def get_deploy_template_list_by_names(self, names):
        """The templates with these names, by name, in one query."""
        names = set(names)
        if not names:
            return []
        with _read_one() as connection:
            return _grouped(connection.execute(
                _with_steps(_TEMPLATES).where(_TEMPLATES.c.name.in_(names))
                .order_by(_TEMPLATES.c.name, _STEPS.c.id)))

    @staticmethod
    def _insert_steps(connection, template_id, steps):
        if steps:
            now = timeutils.utcnow()
            connection.execute(sa.insert(_STEPS), [
                dict({key: step[key] for key in _STEP_KEYS},
                     deploy_template_id=template_id, created_at=now)
                for step in steps])

    @staticmethod
    def _duplicate(exc, values):
        if 'name' in (exc.columns or []):
            return exception.DeployTemplateDuplicateName(
                name=values.get('name'))
        return exception.DeployTemplateAlreadyExists(uuid=values.get('uuid'))

    def create_deploy_template(self, values):
        """Store a template: ``uuid`` (made if absent), ``name``,
        ``extra`` and ``steps``.

        :raises DeployTemplateDuplicateName, DeployTemplateAlreadyExists:
        """
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        steps = values.pop('steps', None) or []
        try:
            with _writer() as connection:
                template_id = connection.execute(
                    sa.insert(_TEMPLATES).values(**values)
                ).inserted_primary_key[0]
                self._insert_steps(connection, template_id, steps)
                return self._get_template(connection, 'id', template_id)
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from exc

    def update_deploy_template(self, template_id, values):
        """Change a template's ``name``, ``extra`` and/or ``steps`` (all
        replaced); return it.

        :raises DeployTemplateNotFound, DeployTemplateDuplicateName:
        """
        values = dict(values)
        steps = values.pop('steps', None)
        values['updated_at'] = timeutils.utcnow()
        try:
            with _writer() as connection:
                result = connection.execute(
                    sa.update(_TEMPLATES)
                    .where(_TEMPLATES.c.id == template_id).values(**values))
                if result.rowcount != 1:
                    raise exception.DeployTemplateNotFound(
                        template=template_id)
                if steps is not None:
                    connection.execute(sa.delete(_STEPS).where(
                        _STEPS.c.deploy_template_id == template_id))
                    self._insert_steps(connection, template_id, steps)
                return self._get_template(connection, 'id', template_id)
        except db_exc.DBDuplicateEntry as exc:
            raise self._duplicate(exc, values) from exc

    def destroy_deploy_template(self, template_id):
        """Delete a template; its steps go with it (ON DELETE CASCADE)."""
        with _write_one() as connection:
            result = connection.execute(sa.delete(_TEMPLATES).where(
                _TEMPLATES.c.id == template_id))
        if result.rowcount != 1:
            raise exception.DeployTemplateNotFound(template=template_id)


class _ConductorQueries:
    """Queries on conductors: registration and liveness."""

    def register_conductor(self, hostname):
        """Mark ``hostname`` online now, creating its row if needed."""
        now = timeutils.utcnow()
        with _writer() as connection:
            result = connection.execute(
                sa.update(_CONDUCTORS)
                .where(_CONDUCTORS.c.hostname == hostname)
                .values(online=True, updated_at=now))
            if result.rowcount == 0:
                connection.execute(sa.insert(_CONDUCTORS).values(
                    hostname=hostname, online=True, updated_at=now))

    def touch_conductor(self, hostname):
        with _write_one() as connection:
            connection.execute(
                sa.update(_CONDUCTORS)
                .where(_CONDUCTORS.c.hostname == hostname)
                .values(online=True, updated_at=timeutils.utcnow()))

    def unregister_conductor(self, hostname):
        with _write_one() as connection:
            connection.execute(
                sa.update(_CONDUCTORS)
                .where(_CONDUCTORS.c.hostname == hostname)
                .values(online=False))

    def get_dead_conductors(self, seen_before):
        """Hostnames that went offline or last heartbeat before a time.

        Only conductors still holding node locks matter to the caller, so
        only those are returned.
        """
        with _read_one() as connection:
            return sorted(connection.execute(
                sa.select(_CONDUCTORS.c.hostname).where(
                    sa.or_(_CONDUCTORS.c.online.is_(False),
                           _CONDUCTORS.c.updated_at < seen_before),
                    _CONDUCTORS.c.hostname.in_(
                        sa.select(_NODES.c.reservation).where(
                            _NODES.c.reservation.is_not(None))))
            ).scalars())

    def get_online_conductors(self, seen_after):
        """Hostnames online with a heartbeat later than ``seen_after``."""
        with _read_one() as connection:
            return sorted(connection.execute(
                sa.select(_CONDUCTORS.c.hostname).where(
                    _CONDUCTORS.c.online.is_(True),
                    _CONDUCTORS.c.updated_at > seen_after)).scalars())


class Connection(_NodeQueries, _NodeTraitQueries, _DeployTemplateQueries,
                 _ConductorQueries):
    """The database API: every query, one instance per process."""
