"""The node table's statements, built once.

SQLAlchemy finds a statement built once in its cache of compiled forms
without building and hashing a new one at every call; on the embedded
SQLite the hottest of them also run straight on its driver
(:mod:`.direct_statements`).  The database API's node queries run them.
"""

import functools

import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import allocations
from ironic_steps.db.sqlalchemy import direct_statements
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import node_traits

_NODES = models.Node.__table__

# Taking or dropping a lock is not a change of the node: keep updated_at
# instead of letting the column's onupdate default bump it.
KEEP_UPDATED_AT = {'updated_at': _NODES.c.updated_at}

NODE_BY = {key: sa.select(_NODES).where(
    _NODES.c[key] == sa.bindparam('ident')) for key in ('id', 'uuid', 'name')}
NODE_WITH_TRAITS_BY = {key: sa.select(
    _NODES, node_traits.TRAITS_COLUMN,
    allocations.ALLOCATION_UUID_COLUMN).where(
    _NODES.c[key] == sa.bindparam('ident')) for key in ('id', 'uuid', 'name')}
# The same on the embedded SQLite, a node GET's one statement (see
# direct_statements).
DIRECT_NODE_BY = {key: direct_statements.DirectStatement(statement)
                  for key, statement in NODE_BY.items()}
DIRECT_NODE_WITH_TRAITS_BY = {
    key: direct_statements.DirectStatement(statement)
    for key, statement in NODE_WITH_TRAITS_BY.items()}
UPDATE_NODE = sa.update(_NODES).where(_NODES.c.id == sa.bindparam('node_id'))
TAKE_LOCK = {key: sa.update(_NODES).where(
    _NODES.c[key] == sa.bindparam('ident'), _NODES.c.reservation.is_(None)
).values(reservation=sa.bindparam('holder'), **KEEP_UPDATED_AT)
    for key in ('id', 'uuid')}
TAKE_LOCK_RETURNING = {key: statement.returning(*_NODES.c)
                       for key, statement in TAKE_LOCK.items()}
# A lock whose holder lost it elsewhere (ironic_steps.conductor.locks):
# taken whether the column is free or still names that holder.
TAKE_STALE_LOCK = {key: sa.update(_NODES).where(
    _NODES.c[key] == sa.bindparam('ident'),
    sa.or_(_NODES.c.reservation.is_(None),
           _NODES.c.reservation == sa.bindparam('stale'))
).values(reservation=sa.bindparam('holder'), **KEEP_UPDATED_AT)
    for key in ('id', 'uuid')}
TAKE_STALE_LOCK_RETURNING = {key: statement.returning(*_NODES.c)
                             for key, statement in TAKE_STALE_LOCK.items()}
DROP_LOCK = sa.update(_NODES).where(
    _NODES.c.id == sa.bindparam('node_id'),
    _NODES.c.reservation == sa.bindparam('holder')
).values(reservation=None, **KEEP_UPDATED_AT)
# Node UPDATEs by the set of columns they write (and whether they drop a
# lock): a handful of shapes, each built once, costs half as much as a new
# statement per call.  Bounded, in case callers write ever new sets.
_UPDATES = {}
_MAX_UPDATE_SHAPES = 256


def update_statement(columns, release, fenced=False):
    key = (columns, release, fenced)
    statement = _UPDATES.get(key)
    if statement is None:
        statement = UPDATE_NODE.values({
            column: sa.bindparam('set_' + column, type_=_NODES.c[column].type)
            for column in columns})
        if release or fenced:
            statement = statement.where(
                _NODES.c.reservation == sa.bindparam('holder'))
        if release:
            statement = statement.values(reservation=None)
        if len(_UPDATES) < _MAX_UPDATE_SHAPES:
            _UPDATES[key] = statement
    return statement


# Columns a lone UPDATE on the embedded SQLite may write straight on its
# driver (direct_statements): not a key, unique or foreign, whose
# violation only oslo.db's translation names (DuplicateName).
DIRECT_COLUMNS = frozenset(_NODES.c.keys()) - frozenset(
    column.name for constraint in _NODES.constraints
    if isinstance(constraint, (sa.UniqueConstraint, sa.PrimaryKeyConstraint,
                               sa.ForeignKeyConstraint))
    for column in constraint.columns)
DIRECT_TAKE_LOCK = {
    key: direct_statements.DirectStatement(statement)
    for key, statement in TAKE_LOCK_RETURNING.items()}
DIRECT_TAKE_STALE_LOCK = {
    key: direct_statements.DirectStatement(statement)
    for key, statement in TAKE_STALE_LOCK_RETURNING.items()}
DIRECT_DROP_LOCK = direct_statements.DirectStatement(DROP_LOCK)
_DIRECT_UPDATES = {}


def direct_update(columns, release, fenced=False):
    key = (columns, release, fenced)
    statement = _DIRECT_UPDATES.get(key)
    if statement is None:
        statement = direct_statements.DirectStatement(
            update_statement(columns, release, fenced))
        if len(_DIRECT_UPDATES) < _MAX_UPDATE_SHAPES:
            _DIRECT_UPDATES[key] = statement
    return statement


@functools.lru_cache(maxsize=None)
def update_if_unchanged_statement(column, expect_null):
    # Built once per column: an agent's lookup runs this once per flow.
    current = _NODES.c[column]
    return sa.update(_NODES).where(
        _NODES.c.id == sa.bindparam('node_id'),
        _NODES.c.reservation.is_(None),
        current.is_(None) if expect_null else
        current == sa.bindparam('expected', type_=current.type),
    ).values({column: sa.bindparam('value', type_=current.type),
              'updated_at': sa.bindparam('updated_at')})
