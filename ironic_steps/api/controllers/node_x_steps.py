"""/v1/nodes/{node}/x-steps: what ironic-steps offers beyond Ironic.

An extension namespace: Ironic has no ``x-steps`` path, so nothing here can
change what an Ironic client sees at any microversion.  It needs no
microversion (the answer does not change with the one asked for) and
exists from release 0.6: while the services are pinned to an older one it
is not routed at all, so its paths answer 404 as unknown paths do.

* ``POST .../x-steps/preview`` with ``{"flow": "deploy", "deploy_steps":
  [...]}`` (optional), ``{"flow": "clean", "clean_steps": [...]}`` or
  ``{"flow": "service", "service_steps": [...]}`` (release 0.12):
  the plan the flow would run, from the conductor's own planner, with
  where each step came from, the steps left out and why, the errors the
  flow would be refused with, and where a resume of a failed deploy would
  start (the *preview* shape of :mod:`ironic_steps.conductor.preview`;
  step arguments masked as the node's are).  200; nothing changes.
  With flow ``clean``, ``{"runbook": "<name or UUID>"}`` instead of
  ``clean_steps`` previews a cleaning with that runbook (release 0.12),
  refused as the ``clean`` target refuses it.
* ``POST .../x-steps/resume`` (no body): resume the node's failed deploy
  (or, from release 0.13, its failed servicing) at its resume point,
  keeping what the steps before it did.  202 with the node's states to
  poll, as a provision request; a plain ``active``, ``rebuild`` or
  ``service`` still starts from the first step, as in Ironic.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import node_ident
from ironic_steps.api import responses
from ironic_steps.api import runbook_access
from ironic_steps.api import tenancy
from ironic_steps.common import exception
from ironic_steps.common import masking
from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF
from ironic_steps import objects
from ironic_steps import release_mappings

blueprint = flask.Blueprint('node_x_steps', __name__,
                            url_prefix='/v1/nodes/<ident>/x-steps')

#: The flows a preview knows -> the body key naming their steps.
_STEPS_KEY = {kind: '%s_steps' % kind for kind in step_kinds.STEP_KINDS}
#: The release whose conductors preview a servicing.
_SERVICE_RELEASE = '0.12'


def _masked(preview):
    """The preview with every step argument's secrets masked."""
    masked = dict(preview)
    masked['steps'] = [masking.mask(step) for step in preview['steps']]
    if preview.get('resume') and preview['resume'].get('steps'):
        masked['resume'] = dict(preview['resume'], steps=[
            masking.mask(step) for step in preview['resume']['steps']])
    return masked


@blueprint.post('/preview')
def preview(ident):
    context, version = flask.g.context, flask.g.version
    tenancy.authorize_ident('baremetal:node:get', context,
                            ident, flask.g.version)
    request_body = body.json_object(
        ('flow', 'runbook') + tuple(_STEPS_KEY.values()))
    flow = request_body.get('flow', 'deploy')
    if flow not in _STEPS_KEY:
        raise exception.InvalidParameterValue(
            err='Unknown flow %r to preview; valid flows: %s' % (
                flow, ', '.join(_STEPS_KEY)))
    if (flow == step_kinds.SERVICE
            and release_mappings.pinned_before(CONF, _SERVICE_RELEASE)):
        raise exception.NotInPinnedRelease(
            feature='Previewing a servicing', needed=_SERVICE_RELEASE,
            pinned=CONF.pin_release_version)
    others = sorted(key for name, key in _STEPS_KEY.items()
                    if name != flow and key in request_body)
    if others:
        raise exception.InvalidParameterValue(
            err='%s cannot be given with flow %r; it takes %s' % (
                ', '.join(others), flow, _STEPS_KEY[flow]))
    if 'runbook' in request_body:
        node_uuid, steps = _runbook_steps(context, ident, version,
                                          request_body)
    else:
        node_uuid = node_ident.get_uuid(context, ident, version)
        steps = request_body.get(_STEPS_KEY[flow])
    answer = flask.g.rpcapi.preview_steps(context, node_uuid, flow, steps)
    return responses.json_response(_masked(answer))


def _runbook_steps(context, ident, version, request_body):
    """(node UUID, steps) of a preview of a runbook's cleaning or
    servicing: the runbook's steps once the node may run it, as the
    ``clean`` or ``service`` target would have them (see
    :mod:`runbook_access`)."""
    objects.Runbook.check_in_pinned_release('Runbooks')
    flow = request_body.get('flow')
    if (flow not in (step_kinds.CLEAN, step_kinds.SERVICE)
            or _STEPS_KEY[flow] in request_body):
        raise exception.InvalidParameterValue(
            err='runbook is previewed with flow clean or service and '
                'without their steps: the runbook names the steps')
    node = node_ident.get_row(context, ident, version, with_traits=True)
    runbook = runbook_access.get(context, request_body['runbook'])
    runbook_access.check_approved(runbook, node, version)
    return node.uuid, runbook_access.steps_of(runbook)[0]


@blueprint.post('/resume')
def resume(ident):
    context, version = flask.g.context, flask.g.version
    tenancy.authorize_ident('baremetal:node:set_provision_state', context,
                            ident, flask.g.version)
    body.json_object((), default={})
    node_uuid = node_ident.get_uuid(context, ident, version)
    flask.g.rpcapi.resume_node_deploy(context, node_uuid)
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node_uuid, 'states')})
