"""What a flow would do on a node, without doing it (the x-steps preview).

This module answers from the same planners the flows run
(:func:`deployments.merge`, :func:`steps.manual_merge`) and the same checks
(the state machine, the driver's validation, the resume point), under a
shared task: it never locks, changes or saves the node.  Where a flow would
refuse, the preview reports the refusal's reasons instead, one by one.

The *preview* shape (the API's answer; step arguments are masked there)::

    {'node': UUID, 'flow': 'deploy' | 'clean' | 'service',
     'steps': [{'interface', 'step', 'priority', 'argsinfo', 'args',
                'timeout': seconds or None, 'resumable': bool,
                'abortable': bool (clean and service only),
                'in_band': bool,    # run by the node's agent
                'source': 'driver' | 'agent' | 'template NAME' | 'user'},
               ...],
     'after_agent': [{'interface', 'step', 'priority', 'source',
                      'reason'}, ...],  # asked for, known once the
                                        # agent reports its steps
     'disabled': [{'interface', 'step', 'priority', 'argsinfo', 'source',
                   'reason'}, ...],
     'errors': [text, ...],          # empty: the flow would start
     'resume': None or {             # a failed deploy or servicing:
                                     # see resume_view
         'available': bool, 'reason': text,
         'failed_step': {'index', 'interface', 'step'},
         'start_step': {'index', 'interface', 'step'},
         'steps': [{'index', 'interface', 'step', 'priority', 'args',
                    'action': 'kept' | 'runs'}, ...]}}
"""

from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.conductor import deployments
from ironic_steps.conductor import resume_points
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import steps
from ironic_steps.drivers import base

#: The flows a preview knows, and the body key naming their steps.
FLOWS = {base.DEPLOY: 'deploy_steps', base.CLEAN: 'clean_steps',
         base.SERVICE: 'service_steps'}
#: The event that starts the flows that run exactly the caller's steps.
_REQUESTED_FLOW_EVENTS = {base.CLEAN: states.EVENT_CLEAN,
                          base.SERVICE: states.EVENT_SERVICE}


def preview(task, flow, requested_steps=None):
    """The preview of ``flow`` on ``task.node`` (see the module docstring).

    :param requested_steps: the caller's ``deploy_steps`` (None: none),
        ``clean_steps`` (manual cleaning) or ``service_steps`` (both
        required).
    :raises InvalidParameterValue: for an unknown flow.
    """
    if flow not in FLOWS:
        raise exception.InvalidParameterValue(
            err='Unknown flow %r to preview; valid flows: %s' % (
                flow, ', '.join(FLOWS)))
    if flow == base.DEPLOY:
        merged, errors = _deploy(task, requested_steps)
    else:
        merged, errors = _requested_flow(task, flow, requested_steps)
    resume = resume_view(task.node, flow)
    return {'node': task.node.uuid, 'flow': flow,
            'steps': [_planned(step, merged, flow) for step in merged.steps],
            'disabled': [_disabled(step, origin, why)
                         for step, origin, why in merged.disabled],
            'after_agent': [_after_agent(raw, origin)
                            for raw, origin in merged.deferred],
            'errors': errors + merged.errors, 'resume': resume}


def _refusal(check):
    """The text of the refusal ``check()`` raises, or None."""
    try:
        check()
    except exception.IronicStepsException as exc:
        return str(exc)
    return None


def _deploy(task, deploy_steps):
    node = task.node
    event = (states.EVENT_REBUILD if node.provision_state in (
        states.ACTIVE, states.ERROR) else states.EVENT_DEPLOY)
    errors = [error for error in (
        _refusal(lambda: state_machine.next_state(
            node.provision_state, event, node=node.uuid)),
        _refusal(lambda: deployments.validate(task))) if error]
    if not deployments.uses_deploy_steps(task):
        errors.append('Node %s deploys the legacy way (its deploy interface '
                      'offers no deploy steps): no plan to show' % node.uuid)
        return _nothing(base.DEPLOY), errors
    try:
        merged = deployments.merge(task, deploy_steps)
    except exception.Invalid as exc:
        # Not even a list of steps, or traits the node lacks: the deploy
        # would be refused before planning, so there is no plan.
        return _nothing(base.DEPLOY), errors + [str(exc)]
    if not merged.steps and not merged.errors:
        errors.append(str(exception.NoStepsFound(kind='deploy',
                                                 node=node.uuid)))
    return merged, errors


def _requested_flow(task, flow, requested_steps):
    node = task.node
    error = _refusal(lambda: state_machine.next_state(
        node.provision_state, _REQUESTED_FLOW_EVENTS[flow], node=node.uuid))
    return (steps.manual_merge(task, requested_steps, kind=flow),
            [error] if error else [])


def _nothing(kind):
    return steps.Merge(kind=kind, steps=[], origins={}, disabled=[],
                       problems=[])


def _planned(step, merged, flow):
    shown = step.public_dict()
    source = merged.origin(step)
    shown.update(timeout=step.timeout, in_band=step.in_band,
                 source='agent' if step.in_band and source == steps.DRIVER
                 else source)
    if flow == base.DEPLOY:
        shown['resumable'] = step.resumable
    return shown


def _after_agent(raw, origin):
    """A requested step nobody offers yet: the node's agent may, once it
    starts and reports its steps."""
    return {'interface': raw['interface'], 'step': raw['step'],
            'priority': raw.get('priority'), 'source': origin,
            'reason': 'known after the agent starts: the deploy runs it if '
                      'the agent offers it, and fails naming it if not'}


def _disabled(step, origin, why):
    return {'interface': step.interface, 'step': step.name,
            'priority': step.priority, 'argsinfo': step.public_dict()[
                'argsinfo'], 'source': origin, 'reason': why}


def _position(plan, index):
    return {'index': index, 'interface': plan[index].interface,
            'step': plan[index].name}


def resume_view(node, flow_kind):
    """Where a resume of ``node``'s failed ``flow_kind`` would start, and
    which steps it keeps; None when the node has no such failed flow."""
    flow = resume_points.RESUMABLE_FLOWS.get(node.provision_state)
    if flow is None or flow.kind != flow_kind:
        return None
    try:
        _flow, point = resume_points.of_node(node)
    except exception.NothingToResume as exc:
        return {'available': False, 'reason': str(exc)}
    plan = step_runner.load_plan(node, flow)
    return {'available': True, 'reason': point.reason,
            'failed_step': _position(plan, point.failed),
            'start_step': _position(plan, point.start),
            'steps': [{'index': index, 'interface': step.interface,
                       'step': step.name, 'priority': step.priority,
                       'args': dict(step.args),
                       'action': 'kept' if index < point.start else 'runs'}
                      for index, step in enumerate(plan)]}
