"""/v1/chassis, /v1/ports, /v1/portgroups, /v1/volume and a node's VIFs.

The resources of :mod:`api.node_resources`, each served by the shared
:class:`resource.Resource` (list, detail, show, create, patch, delete,
and the lists under a node or portgroup), plus what is not a plain
resource:

* ``GET /v1/chassis/{chassis}/nodes`` (and ``/detail``): the node list,
  narrowed to the chassis;
* ``GET /v1/volume`` (1.32): links to the connectors and targets, and
  ``GET /v1/nodes/{node}/volume`` to the node's;
* ``/v1/nodes/{node}/vifs`` (1.28): list, attach, detach VIFs, as the
  ``noop`` and ``flat`` network interfaces do it: nothing to configure,
  the VIF's ID is recorded as ``tenant_vif_port_id`` in the
  ``internal_info`` of a free portgroup or port of the node.

Everything here is 404 while the services are pinned to a release before
0.6, as it was before.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api.controllers import nodes
from ironic_steps.api import lanes
from ironic_steps.api import node_ident
from ironic_steps.api import node_resources
from ironic_steps.api import policy
from ironic_steps.api import port_resources
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.drivers import driver_factory
from ironic_steps import objects
from ironic_steps import release_mappings

blueprint = flask.Blueprint('node_resources', __name__, url_prefix='/v1')

#: Every record around a node that is a plain resource.
ALL = (node_resources.CHASSIS, port_resources.PORTGROUPS,
       port_resources.PORTS, node_resources.VOLUME_CONNECTORS,
       node_resources.VOLUME_TARGETS)

for _resource in ALL:
    _resource.register(blueprint)

_CHASSIS = node_resources.CHASSIS
VIFS_VERSION = versions.at(28)
#: Tries of an attach that loses a free port to a concurrent one.
_ATTACH_TRIES = 5


def _check_release(needed=versions.MIN_VERSION):
    if release_mappings.pinned_before(CONF, '0.6'):
        flask.abort(404)
    versions.check_endpoint(flask.g.version, needed, flask.request.path,
                            flask.request.method)


@blueprint.get('/chassis/<ident>/nodes', defaults={'detail': False})
@blueprint.get('/chassis/<ident>/nodes/detail', defaults={'detail': True})
@lanes.reads_pages
def chassis_nodes(ident, detail):
    _check_release()
    policy.authorize('baremetal:chassis:get', flask.g.context)
    chassis = _CHASSIS.get(flask.g.context, ident)
    return nodes.list_page(detail, chassis_uuid=chassis.uuid)


@blueprint.get('/volume')
def volume_root():
    _check_release(node_resources.VOLUME_VERSION)
    policy.authorize('baremetal:volume:get', flask.g.context)
    query.check_known(flask.request.args, ())
    return responses.json_response(_volume_links('volume'))


@blueprint.get('/nodes/<ident>/volume')
def node_volume_root(ident):
    _check_release(node_resources.VOLUME_VERSION)
    tenancy.authorize_ident('baremetal:volume:get', flask.g.context,
                            ident, flask.g.version)
    query.check_known(flask.request.args, ())
    node = node_ident.get_row(flask.g.context, ident, flask.g.version)
    return responses.json_response(
        _volume_links('nodes/%s/volume' % node.uuid))


def _volume_links(path):
    links = {'links': responses.links(path)}
    for name in ('connectors', 'targets'):
        links[name] = responses.links(path, name)
    return links


# --- VIFs -------------------------------------------------------------------

def _records(context, node_uuid):
    """The node's portgroups and ports, portgroups first."""
    by_node = {'node_uuid': node_uuid}
    return (objects.Portgroup.list(context, filters=by_node)
            + objects.Port.list(context, filters=by_node))


def _where(record):
    kind = 'portgroup' if isinstance(record, objects.Portgroup) else 'port'
    return '%s %s' % (kind, record.uuid)


def _vif_request(ident, action):
    """The node of a VIF request, after the gates every one passes, and
    whether its network interface records VIFs."""
    _check_release(VIFS_VERSION)
    tenancy.authorize_ident('baremetal:node:vif:%s' % action, flask.g.context,
                            ident, flask.g.version)
    query.check_known(flask.request.args, ())
    node = node_ident.get_row(flask.g.context, ident, flask.g.version)
    network = driver_factory.interface_for('network', node.driver,
                                           node.network_interface)
    return node, network.records_vifs


@blueprint.get('/nodes/<ident>/vifs')
def list_vifs(ident):
    node, recorded = _vif_request(ident, 'list')
    if not recorded:
        return responses.json_response({'vifs': []})
    vifs = [{'id': port_resources.attached_vif(record)}
            for record in _records(flask.g.context, node.uuid)
            if port_resources.attached_vif(record) is not None]
    return responses.json_response({'vifs': vifs})


def _candidates(records, wanted):
    """The free records a VIF may go to, in the order tried: the one the
    request names, else portgroups, then ports that PXE boot, then the
    others; ports in a portgroup go with their portgroup."""
    if wanted is not None:
        named = [r for r in records if r.uuid == wanted]
        if not named:
            raise exception.InvalidParameterValue(
                err='%s is not a port or portgroup of this node' % wanted)
        return [r for r in named if port_resources.attached_vif(r) is None]
    free = [r for r in records
            if port_resources.attached_vif(r) is None
            and getattr(r, 'portgroup_uuid', None) is None]
    return sorted(free, key=lambda r: (
        not isinstance(r, objects.Portgroup),
        not getattr(r, 'pxe_enabled', True)))


def _change_vifs(node, vif_id, choose):
    """Write the ``internal_info`` that ``choose(records)`` gives one of the
    node's records, unless another request changed that record meanwhile
    (then choose again, from what is stored now)."""
    for _try in range(_ATTACH_TRIES):
        record, internal_info = choose(_records(flask.g.context, node.uuid))
        before = record.internal_info
        record.internal_info = internal_info
        if record.save(expected={'internal_info': before}):
            return responses.empty(204)
    raise exception.Conflict('VIF %s: the ports of node %s kept changing; '
                             'try again' % (vif_id, node.uuid))


@blueprint.post('/nodes/<ident>/vifs')
def attach_vif(ident):
    node, recorded = _vif_request(ident, 'attach')
    vif = body.json_body()
    if not isinstance(vif, dict) or not isinstance(vif.get('id'), str) \
            or not vif['id']:
        raise exception.InvalidParameterValue(
            err='Attaching a VIF takes {"id": "<VIF ID>"} and, optionally, '
                '"port_uuid" or "portgroup_uuid"')
    vif_id = vif['id']
    if not recorded:
        return responses.empty(204)
    wanted = vif.get('port_uuid') or vif.get('portgroup_uuid')

    def choose(records):
        for record in records:
            if port_resources.attached_vif(record) == vif_id:
                raise exception.VifAlreadyAttached(vif=vif_id,
                                                   where=_where(record))
        if not records:
            raise exception.NoFreePort(node=node.uuid, vif=vif_id,
                                       why='it has no ports')
        candidates = _candidates(records, wanted)
        if not candidates:
            raise exception.NoFreePort(
                node=node.uuid, vif=vif_id,
                why='every one has a VIF attached already')
        chosen = candidates[0]
        return chosen, dict(chosen.internal_info or {},
                            tenant_vif_port_id=vif_id)

    return _change_vifs(node, vif_id, choose)


@blueprint.delete('/nodes/<ident>/vifs/<vif_id>')
def detach_vif(ident, vif_id):
    node, recorded = _vif_request(ident, 'detach')
    if not recorded:
        return responses.empty(204)

    def choose(records):
        for record in records:
            if port_resources.attached_vif(record) == vif_id:
                return record, {k: v for k, v in record.internal_info.items()
                                if k != 'tenant_vif_port_id'}
        raise exception.InvalidParameterValue(
            err='VIF %s is not attached to node %s' % (vif_id, node.uuid))

    return _change_vifs(node, vif_id, choose)
