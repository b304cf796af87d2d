"""Queries on the cached firmware components of nodes (the
``firmware_information`` table).

A node's components are what its firmware interface last read from the
hardware: per component, the version first seen, the current one and the
last one flashed.  This module reads them and merges a new reading into
them; what a reading holds is the objects layer's business, when to read
the hardware the driver's.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models

_COMPONENTS = models.FirmwareComponent.__table__
#: What a reading may say of a component besides its version.
IDENTITY = ('vendor', 'model', 'serial_number')


def _of_node(node_id):
    return sa.select(_COMPONENTS).where(
        _COMPONENTS.c.node_id == node_id).order_by(_COMPONENTS.c.component)


class FirmwareComponentQueries:
    """Queries on ``firmware_information``.

    A component comes back as a read-only row whose attributes are its
    columns: ``node_id``, ``component``, ``initial_version``,
    ``current_version``, ``last_version_flashed``, ``vendor``, ``model``,
    ``serial_number``, ``created_at`` and ``updated_at`` (None until the
    component is first read again).  A mixin of the database API's
    ``Connection``, which provides ``read_one()`` and ``writer()``.
    Writes are made under the node's lock; each is one transaction.
    Errors name the node by database id: callers name it by UUID.
    """

    def get_firmware_component_list(self, node_id):
        """The components of one node, sorted by name (none: [])."""
        with self.read_one() as connection:
            return connection.execute(_of_node(node_id)).all()

    def sync_firmware_components(self, node_id, readings):
        """Merge ``readings`` (``{component: {'current_version': ...,
        'vendor': ..., 'model': ..., 'serial_number': ...}}``) into the
        node's components, in one transaction; return them all, sorted.

        A new component starts with its version as ``initial_version``;
        a known one whose version changed keeps the new one as
        ``current_version`` and ``last_version_flashed``; every one read
        gets a new ``updated_at``.  Components not read are kept.

        :raises NodeNotFound: (nothing written)
        """
        now = timeutils.utcnow()
        with self.writer() as connection:
            known = {row.component: row for row in
                     connection.execute(_of_node(node_id))}
            for component, reading in sorted(readings.items()):
                identity = {column: reading.get(column)
                            for column in IDENTITY}
                version = reading['current_version']
                row = known.get(component)
                if row is None:
                    try:
                        connection.execute(sa.insert(_COMPONENTS).values(
                            node_id=node_id, component=component,
                            initial_version=version,
                            current_version=version, created_at=now,
                            **identity))
                    except db_exc.DBReferenceError as exc:
                        raise exception.NodeNotFound(node=node_id) from exc
                    continue
                changes = dict(identity, updated_at=now)
                if version != row.current_version:
                    changes.update(current_version=version,
                                   last_version_flashed=version)
                connection.execute(sa.update(_COMPONENTS).where(
                    _COMPONENTS.c.node_id == node_id,
                    _COMPONENTS.c.component == component).values(changes))
            return connection.execute(_of_node(node_id)).all()
