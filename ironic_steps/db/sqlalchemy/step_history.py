"""Queries on the step history of nodes (the ``node_step_history`` table).

A row is one run of one step (or the end of a flow before its first
step), written once, when it ends; rows are never changed, only dropped:
the oldest of a node beyond its bound, or all of them with the node (ON
DELETE CASCADE).  What a row holds, and when it is written, is the
objects layer's and the step runner's business.
"""

import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import direct_statements
from ironic_steps.db.sqlalchemy import models

_HISTORY = models.NodeStepHistory.__table__

_INSERT = sa.insert(_HISTORY)
# Every column from a bind, created_at too (SQLAlchemy computes its default
# only in its own executions): for direct_statements.
_DIRECT_INSERT = direct_statements.DirectStatement(sa.insert(_HISTORY).values({
    column.name: sa.bindparam(column.name, value=None, type_=column.type)
    for column in _HISTORY.c if column.name != 'id'}))


def record(connection, entries):
    """Insert ``entries`` (dicts of column values) on ``connection``, in
    its transaction: how a node's save records the steps that ended with
    it."""
    if entries:
        connection.execute(_INSERT, list(entries))


def record_directly(engine, connection, entries, created_at):
    """:func:`record` in a transaction of direct_statements."""
    if entries:
        _DIRECT_INSERT.run_many(
            engine, [dict(entry, created_at=created_at) for entry in entries],
            connection)


def _cutoff(node_id, keep):
    """The id of the newest row of the node beyond its ``keep`` newest
    (NULL when it has no more than ``keep``).

    Wrapped in a derived table: MySQL and MariaDB refuse a subquery on the
    table a DELETE changes, but accept one on a materialised copy.
    """
    beyond = (sa.select(_HISTORY.c.id)
              .where(_HISTORY.c.node_id == node_id)
              .order_by(_HISTORY.c.id.desc())
              .limit(1).offset(keep)
              .subquery('beyond'))
    return sa.select(beyond.c.id).scalar_subquery()


def _kept(node_id, keep):
    """The conditions on the rows a node keeps: its ``keep`` newest."""
    return (_HISTORY.c.node_id == node_id,
            _HISTORY.c.id > sa.func.coalesce(_cutoff(node_id, keep), 0))


class StepHistoryQueries:
    """Queries on ``node_step_history``.

    A row comes back read-only, its attributes the table's columns.  A
    mixin of the database API's ``Connection``, which provides
    ``read_one()`` and ``write_one()``.
    """

    def add_step_history(self, values):
        """Record one step run: one INSERT."""
        with self.write_one() as connection:
            record(connection, [values])

    def get_step_history(self, node_id, limit, flow=None, flow_run=None,
                         skip_step=None):
        """Of the newest ``limit`` rows of a node, oldest first, those of
        ``flow`` and ``flow_run`` (when given), but not those whose step
        is ``skip_step``."""
        query = sa.select(_HISTORY).where(*_kept(node_id, limit))
        if flow is not None:
            query = query.where(_HISTORY.c.flow == flow)
        if flow_run is not None:
            query = query.where(_HISTORY.c.flow_run == flow_run)
        if skip_step is not None:
            query = query.where(_HISTORY.c.step != skip_step)
        with self.read_one() as connection:
            return connection.execute(query.order_by(_HISTORY.c.id)).all()

    def get_node_history(self, node_id, keep, limit, after=None,
                         newest_first=False):
        """``limit`` of the newest ``keep`` rows of a node, every kind,
        in id order (reversed if ``newest_first``), after the row whose
        id is ``after``: a keyset page."""
        query = sa.select(_HISTORY).where(*_kept(node_id, keep))
        if after is not None:
            query = query.where(_HISTORY.c.id < after if newest_first
                                else _HISTORY.c.id > after)
        order = _HISTORY.c.id.desc() if newest_first else _HISTORY.c.id
        with self.read_one() as connection:
            return connection.execute(
                query.order_by(order).limit(limit)).all()

    def get_node_history_entry(self, node_id, entry_id, keep):
        """The row ``entry_id`` if it is one of the newest ``keep`` rows of
        the node ``node_id``; else None."""
        query = sa.select(_HISTORY).where(_HISTORY.c.id == entry_id,
                                          *_kept(node_id, keep))
        with self.read_one() as connection:
            return connection.execute(query).first()

    def get_every_step_history(self, skip_step=None):
        """Every step run of every node, by node, oldest first, but those
        whose step is ``skip_step``: one query (a run's report reads them
        all)."""
        query = sa.select(_HISTORY)
        if skip_step is not None:
            query = query.where(_HISTORY.c.step != skip_step)
        with self.read_one() as connection:
            return connection.execute(query.order_by(
                _HISTORY.c.node_id, _HISTORY.c.id)).all()

    def trim_step_history(self, node_id, keep):
        """Drop a node's step runs beyond its ``keep`` newest: one DELETE.

        :returns: how many were dropped.
        """
        with self.write_one() as connection:
            return connection.execute(sa.delete(_HISTORY).where(
                _HISTORY.c.node_id == node_id,
                _HISTORY.c.id <= _cutoff(node_id, keep))).rowcount
