"""The NodeInventory object: what a node's last inspection found.

An *inventory* (ironic-python-agent's format, see
:mod:`ironic_steps.drivers.inspection`) and *plugin data*, both JSON
objects, stored per node and replaced whole by each inspection
(:meth:`NodeInventory.replace`), under the node's lock; ``GET
/v1/nodes/{node}/inventory`` (API 1.81) shows them as they were stored.
A node that was never inspected has none.

The pinned release of a rolling upgrade may predate inventories (0.10):
nothing is stored then, so no older service finds what it cannot show.
"""

from oslo_versionedobjects import base as ovo_base

from ironic_steps.common import exception
from ironic_steps.db import api as db_api
from ironic_steps.objects import base
from ironic_steps.objects import fields


@base.IronicStepsObjectRegistry.register
class NodeInventory(base.IronicStepsObject,
                    ovo_base.VersionedObjectDictCompat):
    # Version 1.0: Initial version
    VERSION = '1.0'

    dbapi = db_api.get_instance()

    fields = {
        'node_id': fields.IntegerField(),
        'inventory_data': fields.FlexibleDictField(),
        'plugin_data': fields.FlexibleDictField(),
        # When the inspection that found them ended.
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @classmethod
    def get_by_node_id(cls, context, node_id):
        """:raises NodeInventoryNotFound: naming the node by database id."""
        return cls.from_row(context, cls.dbapi.get_node_inventory(node_id))

    @classmethod
    def replace(cls, context, node_id, inventory, plugin_data):
        """Make ``inventory`` and ``plugin_data`` (JSON objects) the
        node's, in one transaction.  Call it holding the node's lock.

        :raises InvalidParameterValue: if either is not a JSON object.
        :raises NotInPinnedRelease: while pinned to a release without
            inventories (nothing stored).
        :raises NodeNotFound:
        """
        cls.check_in_pinned_release('Node inventories')
        for name, value in (('inventory', inventory),
                            ('plugin data', plugin_data)):
            if not isinstance(value, dict):
                raise exception.InvalidParameterValue(
                    err='The %s of node %s must be a JSON object, got a %s'
                        % (name, node_id, type(value).__name__))
        cls.dbapi.replace_node_inventory(node_id, inventory, plugin_data)
