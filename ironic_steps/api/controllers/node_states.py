"""/v1/nodes/{node}/states: read a node's states, request a provision action.

``PUT .../states/provision`` with ``{"target": T}`` asks the conductor for
the action; the work goes on asynchronously, so the answer is 202 with a
``Location`` to poll.  Each target is one event of the provision state
machine, checked against the node's state before the conductor is asked
(the conductor checks again under the node's lock), so that ``active`` on a
deployed node or ``rebuild`` on an available one is refused as in Ironic
rather than taken for the other.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import node_ident
from ironic_steps.api import node_view
from ironic_steps.api import policy
from ironic_steps.api import responses
from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states

blueprint = flask.Blueprint('node_states', __name__,
                            url_prefix='/v1/nodes/<ident>/states')

#: API target -> (state machine event, conductor method, its arguments).
_ACTIONS = {
    'manage': (states.EVENT_MANAGE, 'do_provisioning_action',
               {'action': states.EVENT_MANAGE}),
    'provide': (states.EVENT_PROVIDE, 'do_provisioning_action',
                {'action': states.EVENT_PROVIDE}),
    'active': (states.EVENT_DEPLOY, 'do_node_deploy', {}),
    'rebuild': (states.EVENT_REBUILD, 'do_node_deploy', {}),
    'deleted': (states.EVENT_DELETE, 'do_node_tear_down', {}),
}


@blueprint.get('')
def show(ident):
    context = flask.g.context
    policy.authorize('baremetal:node:get', context)
    node = node_ident.get_row(context, ident)
    return responses.json_response(node_view.states(node))


def _target(request_body):
    target = request_body.get('target')
    if not isinstance(target, str) or target not in _ACTIONS:
        raise exception.InvalidParameterValue(
            err='Unknown provision target %r; valid targets: %s' % (
                target, ', '.join(_ACTIONS)))
    return target


@blueprint.put('/provision')
def set_provision_state(ident):
    context = flask.g.context
    policy.authorize('baremetal:node:set_provision_state', context)
    target = _target(body.json_object(('target',)))
    node = node_ident.get_row(context, ident)
    event, method, kwargs = _ACTIONS[target]
    state_machine.next_state(node.provision_state, event, node=node.uuid)
    getattr(flask.g.rpcapi, method)(context, node.uuid, **kwargs)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node.uuid, 'states')})
