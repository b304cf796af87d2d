"""/v1/nodes/{node}/maintenance: put a node in maintenance, or take it out.

``PUT`` sets ``maintenance`` with an optional reason (``{"reason": ...}``
in the body, or ``?reason=``, as Ironic reads either); ``DELETE`` clears
both (and the conductor clears the node's ``fault``).  Both are the
conductor's ``update_node``, as a PATCH of those fields would be, and are
answered 202 as in Ironic.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy

blueprint = flask.Blueprint('node_maintenance', __name__,
                            url_prefix='/v1/nodes/<ident>/maintenance')


def _reason():
    args = flask.request.args
    query.check_known(args, ('reason',))
    reason = body.json_object(('reason',), default={}).get('reason')
    if reason is None:
        reason = args.get('reason')
    if reason is not None and not isinstance(reason, str):
        raise errors.InvalidField(field='reason',
                                  reason='%r is not a string' % (reason,))
    return reason


def _set(ident, maintenance, reason):
    context = flask.g.context
    node = node_ident.get_node(context, ident, flask.g.version)
    node.maintenance = maintenance
    node.maintenance_reason = reason
    flask.g.rpcapi.update_node(context, node)
    return responses.empty(202)


@blueprint.put('')
def set_maintenance(ident):
    tenancy.authorize_ident('baremetal:node:set_maintenance', flask.g.context,
                            ident, flask.g.version)
    return _set(ident, True, _reason())


@blueprint.delete('')
def clear_maintenance(ident):
    tenancy.authorize_ident('baremetal:node:clear_maintenance', flask.g.context,
                            ident, flask.g.version)
    query.check_known(flask.request.args, ())
    return _set(ident, False, None)
