"""Queries on the cached BIOS settings of nodes (the ``bios_settings`` table).

A node's BIOS settings are what its driver last read from the hardware: a
value per name, and what the BMC's attribute registry says of it, kept so
that the API can show them without asking the BMC.  This module reads them
and replaces them whole; what a valid name, value or registry fact is, is
the objects layer's business, and when to read them from the hardware the
driver's.
"""

import functools

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models

_SETTINGS = models.BIOSSetting.__table__


@functools.lru_cache(maxsize=None)
def _update(columns):
    """The UPDATE of ``columns`` (and ``updated_at``) of one setting, built
    once per set of columns: a replacement's changed rows go in one
    executemany.  (Bind names differ from the columns': SQLAlchemy keeps
    those for SET.)"""
    return sa.update(_SETTINGS).where(
        _SETTINGS.c.node_id == sa.bindparam('b_node_id'),
        _SETTINGS.c.name == sa.bindparam('b_name'),
    ).values({column: sa.bindparam('b_' + column)
              for column in columns + ('updated_at',)})


def _columns_of(settings):
    """The columns every setting of ``settings`` gives, ``value`` first."""
    columns = None
    for name, given in settings.items():
        if columns is None:
            columns = tuple(sorted(given, key=lambda c: c != 'value'))
        elif set(given) != set(columns):
            raise ValueError('BIOS setting %s gives columns %s, not %s like '
                             'the others' % (name, sorted(given),
                                             sorted(columns)))
    columns = columns or ('value',)
    if columns[0] != 'value':
        raise ValueError('BIOS settings must give their value')
    return columns


def _of_node(node_id):
    return sa.select(_SETTINGS).where(
        _SETTINGS.c.node_id == node_id).order_by(_SETTINGS.c.name)


class BIOSSettingQueries:
    """Queries on the cached BIOS settings of nodes (``bios_settings``).

    A setting comes back as a read-only row whose attributes are its
    columns: ``node_id``, ``name``, ``value`` (a string or None),
    ``created_at``, ``updated_at`` (None until its value first changes)
    and the registry facts (see ``common/bios_registry.py``; None where
    unknown).  A mixin of the database API's ``Connection``, which provides
    ``read_one()`` and ``writer()``.  Writes are made under the node's
    lock (by its driver, in a step); each is one transaction.  A node's
    settings go with it when it is deleted (ON DELETE CASCADE).  Errors
    name the node by database id: callers name it by UUID.
    """

    def get_bios_setting_list(self, node_id):
        """The settings of one node, sorted by name (none: [])."""
        with self.read_one() as connection:
            return connection.execute(_of_node(node_id)).all()

    def get_bios_setting(self, node_id, name):
        """:raises BIOSSettingNotFound:"""
        with self.read_one() as connection:
            row = connection.execute(sa.select(_SETTINGS).where(
                _SETTINGS.c.node_id == node_id,
                _SETTINGS.c.name == name)).one_or_none()
        if row is None:
            raise exception.BIOSSettingNotFound(node=node_id, name=name)
        return row

    def replace_bios_settings(self, node_id, settings):
        """Make ``settings`` the node's settings, in one transaction, and
        return them as stored, sorted by name.

        :param settings: name -> {column: value}: ``value`` and any of the
            registry facts, the same columns for every setting.  Only
            those columns are written: a stored setting keeps the others,
            a new one has them NULL.

        Names not in ``settings`` are deleted, new ones created, and only
        the rows whose columns differ are updated; of those, the ones
        whose value changed get a new ``updated_at``: a setting's times
        say when it appeared and when its value last changed, however
        often the same values are cached.

        :raises NodeNotFound: when settings are added to a node that does
            not exist (nothing written).
        """
        now = timeutils.utcnow()
        columns = _columns_of(settings)
        with self.writer() as connection:
            stored = {row.name: row for row in connection.execute(
                sa.select(_SETTINGS.c.name, _SETTINGS.c.updated_at,
                          *(_SETTINGS.c[column] for column in columns))
                .where(_SETTINGS.c.node_id == node_id)).all()}
            gone = sorted(set(stored) - set(settings))
            if gone:
                connection.execute(sa.delete(_SETTINGS).where(
                    _SETTINGS.c.node_id == node_id,
                    _SETTINGS.c.name.in_(gone)))
            changed = [_changed_row(node_id, name, given, stored[name], now)
                       for name, given in settings.items()
                       if name in stored and any(
                           getattr(stored[name], column) != given[column]
                           for column in columns)]
            if changed:
                connection.execute(_update(columns), changed)
            new = [dict(given, node_id=node_id, name=name, created_at=now)
                   for name, given in settings.items() if name not in stored]
            if new:
                try:
                    connection.execute(sa.insert(_SETTINGS), new)
                except db_exc.DBReferenceError as exc:
                    raise exception.NodeNotFound(node=node_id) from exc
            return connection.execute(_of_node(node_id)).all()


def _changed_row(node_id, name, given, row, now):
    """The bind values updating ``row`` to ``given``: a new
    ``updated_at`` only for a new value."""
    values = {'b_' + column: value for column, value in given.items()}
    values.update(b_node_id=node_id, b_name=name,
                  b_updated_at=now if row.value != given['value']
                  else row.updated_at)
    return values
