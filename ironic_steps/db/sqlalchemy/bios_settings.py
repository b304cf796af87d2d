"""Queries on the cached BIOS settings of nodes (the ``bios_settings`` table).

A node's BIOS settings are what its driver last read from the hardware, a
name -> value map kept so that the API can show them without asking the
BMC.  This module reads them and replaces them whole; what a valid name or
value is, is the objects layer's business, and when to read them from the
hardware the driver's.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models

_SETTINGS = models.BIOSSetting.__table__

# Built once: the changed values of a replacement go in one executemany.
# (Bind names differ from the columns': SQLAlchemy keeps those for SET.)
_UPDATE_VALUE = sa.update(_SETTINGS).where(
    _SETTINGS.c.node_id == sa.bindparam('b_node_id'),
    _SETTINGS.c.name == sa.bindparam('b_name'),
).values(value=sa.bindparam('b_value'),
         updated_at=sa.bindparam('b_updated_at'))


def _of_node(node_id):
    return sa.select(_SETTINGS).where(
        _SETTINGS.c.node_id == node_id).order_by(_SETTINGS.c.name)


class BIOSSettingQueries:
    """Queries on the cached BIOS settings of nodes (``bios_settings``).

    A setting comes back as a read-only row whose attributes are its
    columns: ``node_id``, ``name``, ``value`` (a string or None),
    ``created_at`` and ``updated_at`` (None until its value first
    changes).  A mixin of the database API's ``Connection``, which provides
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
        """Make ``settings`` (name -> value) the node's settings, in one
        transaction, and return them as stored, sorted by name.

        Names not in ``settings`` are deleted, new ones created, and only
        the rows whose value changed are updated (and get a new
        ``updated_at``): a setting's times say when it appeared and when
        it last changed, however often the same values are cached.

        :raises NodeNotFound: when settings are added to a node that does
            not exist (nothing written).
        """
        now = timeutils.utcnow()
        with self.writer() as connection:
            stored = dict(connection.execute(
                sa.select(_SETTINGS.c.name, _SETTINGS.c.value)
                .where(_SETTINGS.c.node_id == node_id)).all())
            gone = sorted(set(stored) - set(settings))
            if gone:
                connection.execute(sa.delete(_SETTINGS).where(
                    _SETTINGS.c.node_id == node_id,
                    _SETTINGS.c.name.in_(gone)))
            changed = [{'b_node_id': node_id, 'b_name': name,
                        'b_value': value, 'b_updated_at': now}
                       for name, value in settings.items()
                       if name in stored and stored[name] != value]
            if changed:
                connection.execute(_UPDATE_VALUE, changed)
            new = [{'node_id': node_id, 'name': name, 'value': value,
                    'created_at': now}
                   for name, value in settings.items() if name not in stored]
            if new:
                try:
                    connection.execute(sa.insert(_SETTINGS), new)
                except db_exc.DBReferenceError as exc:
                    raise exception.NodeNotFound(node=node_id) from exc
            return connection.execute(_of_node(node_id)).all()
