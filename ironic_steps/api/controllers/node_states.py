"""/v1/nodes/{node}/states: read a node's states; change its provision
state, its power or its target RAID configuration.

``PUT .../states/provision`` with ``{"target": T}`` asks the conductor for
the action; the work goes on asynchronously, so the answer is 202 with a
``Location`` to poll.  Each target is one event of the provision state
machine, checked against the node's state before the conductor is asked
(the conductor checks again under the node's lock), so that ``active`` on a
deployed node or ``rebuild`` on an available one is refused as in Ironic
rather than taken for the other.

``PUT .../states/power`` is asynchronous too (202, the node shows
``target_power_state`` until it is done); ``PUT .../states/raid`` stores
the target RAID configuration once the node's RAID interface accepted it
(204).
"""

import flask

from ironic_steps.api import body
from ironic_steps.api.controllers import nodes
from ironic_steps.api import node_ident
from ironic_steps.api import policy
from ironic_steps.api import responses
from ironic_steps.api import versions
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
#: Targets added after the minimum version: target -> minor version.
_TARGET_VERSIONS = {
    'manage': versions.MINOR_4_MANAGEABLE_STATE,
    'provide': versions.MINOR_4_MANAGEABLE_STATE,
}

#: Power targets -> the version that accepts them.
_POWER_TARGETS = {
    states.POWER_ON: versions.MINOR_1_INITIAL_VERSION,
    states.POWER_OFF: versions.MINOR_1_INITIAL_VERSION,
    states.REBOOT: versions.MINOR_1_INITIAL_VERSION,
    states.SOFT_POWER_OFF: versions.MINOR_27_SOFT_POWER_OFF,
    states.SOFT_REBOOT: versions.MINOR_27_SOFT_POWER_OFF,
}
#: Power is left alone while cleaning, whose steps may be using it.
_NO_POWER_CHANGE_STATES = (states.CLEANING, states.CLEANWAIT)


@blueprint.get('')
def show(ident):
    context = flask.g.context
    policy.authorize('baremetal:node:get', context)
    node = node_ident.get_row(context, ident, flask.g.version)
    return responses.json_response(nodes.request_view().states(node))


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
    if target in _TARGET_VERSIONS:
        versions.require(flask.g.version, _TARGET_VERSIONS[target],
                         'Provision target %r' % target)
    node = node_ident.get_row(context, ident, flask.g.version)
    event, method, kwargs = _ACTIONS[target]
    state_machine.next_state(node.provision_state, event, node=node.uuid)
    getattr(flask.g.rpcapi, method)(context, node.uuid, **kwargs)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node.uuid, 'states')})


def _power_request(request_body, version):
    """(target, timeout) of a power request, checked against ``version``."""
    target = request_body.get('target')
    if not isinstance(target, str) or target not in _POWER_TARGETS:
        raise exception.InvalidParameterValue(
            err='Unknown power target %r; valid targets: %s' % (
                target, ', '.join(t for t, minor in _POWER_TARGETS.items()
                                  if version >= versions.at(minor))))
    versions.require(version, _POWER_TARGETS[target],
                     'Power target %r' % target)
    timeout = request_body.get('timeout')
    if timeout is not None:
        versions.require(version, versions.MINOR_27_SOFT_POWER_OFF,
                         'A power timeout')
        if (not isinstance(timeout, int) or isinstance(timeout, bool)
                or timeout < 1):
            raise exception.InvalidParameterValue(
                err='timeout must be a positive integer (seconds), got %r'
                    % (timeout,))
    return target, timeout


@blueprint.put('/power')
def set_power_state(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:node:set_power_state', context)
    target, timeout = _power_request(
        body.json_object(('target', 'timeout')), version)
    node = node_ident.get_row(context, ident, version)
    if node.provision_state in _NO_POWER_CHANGE_STATES:
        raise exception.InvalidStateRequested(
            action=target, node=node.uuid, state=node.provision_state,
            allowed='none while cleaning')
    flask.g.rpcapi.change_node_power_state(context, node.uuid, target,
                                           timeout=timeout)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node.uuid, 'states')})


@blueprint.put('/raid')
def set_raid_state(ident):
    """The body is the target RAID configuration itself ({} clears it)."""
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:node:set_raid_state', context)
    versions.require(version, versions.MINOR_12_RAID_CONFIG,
                     'Setting the target RAID configuration')
    target_raid_config = body.json_body()
    if not isinstance(target_raid_config, dict):
        raise exception.InvalidParameterValue(
            err='The target RAID configuration must be a JSON object, got '
                '%r' % (target_raid_config,))
    node = node_ident.get_row(context, ident, version)
    try:
        flask.g.rpcapi.set_target_raid_config(context, node.uuid,
                                              target_raid_config)
    except exception.UnsupportedDriverExtension as exc:
        # As in Ironic: a node without RAID is a missing resource.
        raise exception.NotFound(str(exc)) from exc
    return responses.empty(204)
