"""/v1/nodes/{node}/inventory: what the node's last inspection found.

From API 1.81, as in Ironic (below it the path does not exist: 404).  The
body is Ironic's: ``{"inventory": {...}, "plugin_data": {...}}``, as the
inspection stored them (see :mod:`ironic_steps.drivers.inspection`); a
node never inspected has none (404, naming the node).  Reading needs
``baremetal:node:inventory:get``.
"""

import flask

from ironic_steps.api import node_ident
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps import objects

blueprint = node_ident.blueprint('node_inventory', 'inventory',
                                 versions.MINOR_81_NODE_INVENTORY)


@blueprint.get('')
def show(ident):
    context = flask.g.context
    node = tenancy.read(context, ident, flask.g.version,
                        'baremetal:node:inventory:get', flask.request.args)
    try:
        found = objects.NodeInventory.get_by_node_id(context, node.id)
    except exception.NodeInventoryNotFound as exc:
        raise exception.NodeInventoryNotFound(node=node.uuid) from exc
    return responses.json_response({'inventory': found.inventory_data,
                                    'plugin_data': found.plugin_data})
