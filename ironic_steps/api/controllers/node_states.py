"""/v1/nodes/{node}/states: read a node's states, request a provision action.

``PUT .../states/provision`` with ``{"target": T}`` asks the conductor for
the action; the work goes on asynchronously, so the answer is 202 with a
``Location`` to poll.  The conductor checks the request under the node's
lock before anything changes (the state, and any steps asked for), so a
refusal is a 4xx that leaves the node as it was.

Besides ``target``, ``active`` and ``rebuild`` take ``deploy_steps``
(1.69) and ``clean`` requires ``clean_steps`` (1.15); their checks against
the node's driver are the conductor's (:mod:`ironic_steps.conductor.steps`).
"""

import dataclasses

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import node_view
from ironic_steps.api import policy
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states

blueprint = flask.Blueprint('node_states', __name__,
                            url_prefix='/v1/nodes/<ident>/states')


@dataclasses.dataclass(frozen=True)
class _Target:
    """What one API provision target asks of the conductor."""

    #: The conductor method and its fixed keyword arguments.
    method: str
    kwargs: dict
    #: The version that introduced the target.
    since: tuple = versions.MIN_VERSION
    #: The body keys besides ``target`` it takes -> their version.
    extras: dict = dataclasses.field(default_factory=dict)


_DEPLOY_STEPS = {'deploy_steps': (1, versions.MINOR_69_DEPLOY_STEPS)}

_TARGETS = {
    'manage': _Target('do_provisioning_action',
                      {'action': states.EVENT_MANAGE}),
    'provide': _Target('do_provisioning_action',
                       {'action': states.EVENT_PROVIDE}),
    'active': _Target('do_node_deploy', {'rebuild': False},
                      extras=_DEPLOY_STEPS),
    'rebuild': _Target('do_node_deploy', {'rebuild': True},
                       extras=_DEPLOY_STEPS),
    'deleted': _Target('do_node_tear_down', {}),
    'clean': _Target('do_node_clean', {},
                     since=(1, versions.MINOR_15_MANUAL_CLEAN),
                     extras={'clean_steps': (
                         1, versions.MINOR_15_MANUAL_CLEAN)}),
    'abort': _Target('do_provisioning_action',
                     {'action': states.EVENT_ABORT},
                     since=(1, versions.MINOR_13_ABORT)),
}
#: What a request body may name, at the versions that introduced it.
_BODY_KEYS = ('target', 'deploy_steps', 'clean_steps')


@blueprint.get('')
def show(ident):
    context = flask.g.context
    policy.authorize('baremetal:node:get', context)
    node = node_ident.get_row(context, ident)
    return responses.json_response(node_view.states(node))


def _target(request_body, version):
    name = request_body.get('target')
    target = _TARGETS.get(name) if isinstance(name, str) else None
    if target is None or version < target.since:
        valid = [n for n, t in _TARGETS.items() if t.since <= version]
        raise exception.InvalidParameterValue(
            err='Unknown provision target %r; valid targets at API version '
                '%s: %s' % (name, versions.to_string(version),
                            ', '.join(valid)))
    return name, target


def _extras(name, target, request_body, version):
    """The target's extra body values, each checked against its version."""
    extras = {}
    for key in _BODY_KEYS[1:]:
        if key not in request_body:
            continue
        needed = target.extras.get(key)
        if needed is None:
            raise exception.InvalidParameterValue(
                err='%s cannot be given with target %r' % (key, name))
        if version < needed:
            raise errors.FeatureNotInVersion(
                feature=key, needed=versions.to_string(needed),
                version=versions.to_string(version))
        extras[key] = request_body[key]
    if name == 'clean' and 'clean_steps' not in extras:
        raise exception.MissingParameterValue(
            err='target clean needs clean_steps: the steps to run, in order')
    return extras


@blueprint.put('/provision')
def set_provision_state(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:node:set_provision_state', context)
    request_body = body.json_object(_BODY_KEYS)
    name, target = _target(request_body, version)
    extras = _extras(name, target, request_body, version)
    node = node_ident.get_row(context, ident)
    rpcapi = flask.g.rpcapi
    if target.method == 'do_node_deploy' and not rpcapi.can_send_version(
            '1.2'):
        # Conductors of the previous release tell active from rebuild by
        # the node's state: refuse the one they would take for the other.
        state_machine.next_state(
            node.provision_state, states.EVENT_REBUILD
            if target.kwargs['rebuild'] else states.EVENT_DEPLOY,
            node=node.uuid)
    getattr(rpcapi, target.method)(context, node.uuid, **target.kwargs,
                                   **extras)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node.uuid, 'states')})
