"""Queries on what nodes' inspections found (the ``node_inventory``
table).

One row per node: the inventory and plugin data of its last inspection,
replaced whole by the next one.  What an inventory holds is the drivers'
business (``drivers/inspection.py``), when it is written the conductor's.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models

_INVENTORY = models.NodeInventory.__table__


class NodeInventoryQueries:
    """Queries on ``node_inventory``.

    A row comes back read-only, its attributes the table's columns
    (``node_id``, ``inventory_data``, ``plugin_data``, ``created_at``:
    when the inspection that wrote it ended).  A mixin of the database
    API's ``Connection``, which provides ``read_one()`` and ``writer()``.
    Errors name the node by database id: callers name it by UUID.
    """

    def get_node_inventory(self, node_id):
        """:raises NodeInventoryNotFound:"""
        with self.read_one() as connection:
            row = connection.execute(sa.select(_INVENTORY).where(
                _INVENTORY.c.node_id == node_id)).one_or_none()
        if row is None:
            raise exception.NodeInventoryNotFound(node=node_id)
        return row

    def replace_node_inventory(self, node_id, inventory, plugin_data):
        """Make ``inventory`` and ``plugin_data`` the node's, in one
        transaction.

        :raises NodeNotFound: (nothing written)
        """
        with self.writer() as connection:
            connection.execute(sa.delete(_INVENTORY).where(
                _INVENTORY.c.node_id == node_id))
            try:
                connection.execute(sa.insert(_INVENTORY).values(
                    node_id=node_id, inventory_data=inventory,
                    plugin_data=plugin_data, created_at=timeutils.utcnow()))
            except db_exc.DBReferenceError as exc:
                raise exception.NodeNotFound(node=node_id) from exc
