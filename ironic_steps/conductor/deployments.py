"""The deploy flow: start, run, continue and fail a node's deployment.

``start_deploy`` (under the node lock, in the RPC caller's thread) checks
the request, plans the deploy steps (the driver's, overridden by deploy
templates and the caller's ``deploy_steps``) and moves the node to
``deploying`` with the plan; the worker then runs :func:`do_node_deploy`,
which hands the plan to the step runner.  A step that goes on
asynchronously parks the node in ``wait call-back``; the agent's heartbeat
comes back through :func:`continue_node_deploy`, which resumes at the next
step.

A deploy interface written before deploy steps (it offers none) is run the
legacy way, :meth:`DeployInterface.deploy` in one call, with a deprecation
warning logged once per interface class.
"""

import threading

from oslo_log import log

from ironic_steps.common import configdrive
from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.common import x_steps
from ironic_steps.conductor import allocations
from ironic_steps.conductor import cleaning
from ironic_steps.conductor import node_updates
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import steps
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps import objects
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

_warned_legacy = set()
_warned_lock = threading.Lock()


def validate(task):
    """Check that the node can be deployed; raises Invalid if not."""
    for interface_type in ('power', 'management', 'boot', 'deploy'):
        getattr(task.driver, interface_type).validate(task)


def start_deploy(task, worker, rebuild=None, deploy_steps=None,
                 configdrive=None):
    """Check the request, plan the deploy, move the node into deploying.

    Everything a request could get wrong is refused here, under the lock
    and before the node changes: the state, a protected node's rebuild
    (403), the driver's validation, the instance's traits and the steps
    asked for (see :func:`steps.plan`).

    :param rebuild: True to redeploy a node that may hold an instance
        (``rebuild``), False for ``active``; None (a caller of the previous
        release) decides by the node's state, as that release did.
    :param deploy_steps: the caller's deploy steps, or None.
    :param configdrive: the instance's config drive (an object, built into
        an image here; an image or a URL, kept as is), or None.
    """
    node = task.node
    if rebuild is None:
        rebuild = node.provision_state in (states.ACTIVE, states.ERROR)
    event = states.EVENT_REBUILD if rebuild else states.EVENT_DEPLOY
    state_machine.next_state(node.provision_state, event, node=node.uuid)
    if rebuild:
        node_updates.check_not_protected(node, 'rebuilt')
    validate(task)
    step_runner.clear_progress(node, step_kinds.DEPLOY_FLOW)
    _store_configdrive(node, configdrive)
    if uses_deploy_steps(task):
        plan = steps.raise_problems(task, merge(task, deploy_steps))
        if not plan:
            raise exception.NoStepsFound(kind='deploy', node=node.uuid)
        step_runner.store_plan(task, step_kinds.DEPLOY_FLOW, plan)
        step_runner.mark_first_step(task, step_kinds.DEPLOY_FLOW, plan)
        if deploy_steps:
            step_runner.keep_requested(node, step_kinds.DEPLOY_FLOW,
                                       deploy_steps)
    elif deploy_steps:
        raise exception.InvalidParameterValue(
            err='Node %s deploys the legacy way (its deploy interface '
                'offers no deploy steps, or the service is pinned to a '
                'release from before them), so deploy_steps cannot be '
                'used' % node.uuid)
    task.start_work(event, worker, do_node_deploy)


def merge(task, deploy_steps=None):
    """The deploy plan of ``task.node`` with ``deploy_steps``, unrefused:
    the one planner of a deploy, which a preview shows (steps.merge).

    :raises InvalidParameterValue: if the instance's traits or
        ``deploy_steps`` are not even lists of the right things.
    """
    return steps.merge(task, base.DEPLOY,
                       requests=_requests(task, deploy_steps))


#: Where the instance's config drive is kept (Ironic's key), as an image
#: or a URL; masked in every view.
CONFIGDRIVE_KEY = 'configdrive'


def _store_configdrive(node, value):
    """Keep the deploy's config drive in ``instance_info``; a rebuild
    without one writes the one it has."""
    if value:
        node.instance_info = {
            **(node.instance_info or {}),
            CONFIGDRIVE_KEY: configdrive.build(value, node.uuid, node.name)}


def replan(task):
    """The deploy's plan made again (its agent reported its steps), from
    the same requests: the node's templates and the caller's steps."""
    requested = (task.node.driver_internal_info or {}).get(
        step_kinds.DEPLOY_FLOW.requested_key)
    return steps.raise_problems(task, merge(task, requested))


def _requests(task, deploy_steps):
    """The sources of requested steps, weakest first (see steps.plan)."""
    requests = []
    templates = _templates(task)
    if templates:
        requests.append(steps.Request(
            source='deploy template(s) %s' % ', '.join(
                template.name for template in templates),
            steps=[{key: step[key] for key in _template_step_keys(step)}
                   for template in templates for step in template.steps],
            origins=['template %s' % template.name
                     for template in templates for _step in template.steps]))
    if deploy_steps is not None:
        if not isinstance(deploy_steps, list):
            raise exception.InvalidParameterValue(
                err='deploy_steps must be a list of steps, got %s'
                    % steps.shown(deploy_steps))
        requests.append(steps.Request(source='deploy_steps',
                                      steps=deploy_steps,
                                      origins=['user'] * len(deploy_steps)))
    return requests


_TEMPLATE_STEP_KEYS = ('interface', 'step', 'args', 'priority')


def _template_step_keys(step):
    """What of a template step the plan takes: its timeout only while the
    extension is on (pinned, the older conductors would ignore it)."""
    if 'timeout' in step and x_steps.enabled():
        return _TEMPLATE_STEP_KEYS + ('timeout',)
    return _TEMPLATE_STEP_KEYS


def _templates(task):
    """The deploy templates named by the instance's traits.

    The instance asks for traits in ``instance_info['traits']``; they must
    be traits of the node (as in Ironic), and each that names a deploy
    template brings that template's steps.
    """
    node = task.node
    wanted = (node.instance_info or {}).get('traits')
    if not wanted or not templates_supported():
        return []
    if not isinstance(wanted, list) or not all(isinstance(t, str)
                                               for t in wanted):
        raise exception.InvalidParameterValue(
            err="instance_info/traits of node %s must be a list of trait "
                "names, got %s" % (node.uuid, steps.shown(wanted)))
    missing = sorted(set(wanted) - set(node.traits or ()))
    if missing:
        raise exception.InvalidParameterValue(
            err='instance_info/traits of node %s names trait(s) the node '
                'does not have: %s; its traits: %s' % (
                    node.uuid, ', '.join(missing),
                    ', '.join(sorted(node.traits or ())) or 'none'))
    return objects.DeployTemplate.list_by_names(task.context, wanted)


def templates_supported():
    """Whether deploy templates apply: not while pinned to a release from
    before them (its conductors would deploy without them)."""
    pinned = release_mappings.pinned_release(CONF)
    return pinned is None or 'DeployTemplate' in pinned['objects']


def pinned_before_deploy_steps():
    """Whether the pinned release predates deploy steps (rolling upgrade).

    Derived from the Node object's history: a release whose Node has no
    ``deploy_step`` field cannot represent a deploy made of steps.
    """
    return 'deploy_step' in objects.Node.fields_unknown_under_pin()


def uses_deploy_steps(task):
    """True unless pinned before deploy steps or the interface predates them.
    """
    if pinned_before_deploy_steps():
        return False
    getter = getattr(task.driver.deploy, 'get_deploy_steps', None)
    return bool(getter and getter(task))


def start_resume(task, worker, point):
    """Resume a failed deploy at ``point`` (:mod:`resume_points`), keeping
    what the steps before it did (the x-steps extension; a plain deploy
    starts over)."""
    validate(task)
    LOG.info('Resuming the deploy of node %s at step %d: %s',
             task.node.uuid, point.start, point.reason)
    task.process_event(states.EVENT_DEPLOY)
    task.node.last_error = None
    task.node.save()
    task.hand_over(worker, _run_resumed, point.start)


@step_runner.flow_boundary(step_kinds.DEPLOY_FLOW)
def _run_resumed(task, start_index):
    return step_runner.run(task, step_kinds.DEPLOY_FLOW, start_index=start_index)


@step_runner.flow_boundary(step_kinds.DEPLOY_FLOW)
def do_node_deploy(task):
    """Worker: run the planned deploy steps (or deploy the old way)."""
    if not step_runner.has_plan(task.node, step_kinds.DEPLOY_FLOW):
        return _legacy_result(task, task.driver.deploy.deploy)
    return step_runner.run(task, step_kinds.DEPLOY_FLOW, first_marked=True)


def continue_node_deploy(task, worker):
    """Resume a deploy parked in ``wait call-back`` at its next step."""
    step_runner.continue_after_wait(task, worker, step_kinds.DEPLOY_FLOW,
                                    run_after_wait)


@step_runner.flow_boundary(step_kinds.DEPLOY_FLOW)
def run_after_wait(task):
    """Worker: the steps after the one that waited."""
    if not step_runner.has_plan(task.node, step_kinds.DEPLOY_FLOW):
        # Started the old way (by an older conductor, or a legacy
        # interface): it finishes the old way, which records nothing
        # before it runs, so save the move out of the wait first.
        task.node.save()
        return _legacy_result(task, task.driver.deploy.continue_deploy)
    return step_runner.resume(task, step_kinds.DEPLOY_FLOW)


def _warn_legacy_once(interface):
    if pinned_before_deploy_steps():
        LOG.info('Pinned to release %s, from before deploy steps: deploying '
                 'the legacy way', CONF.pin_release_version)
        return
    cls = type(interface)
    with _warned_lock:
        if cls in _warned_legacy:
            return
        _warned_legacy.add(cls)
    LOG.warning('Deploy interface %s.%s offers no deploy steps and is run '
                'the legacy way, through deploy(). This is deprecated and '
                'will be removed: decorate its deploy methods with '
                '@deploy_step.', cls.__module__, cls.__qualname__)


def _legacy_result(task, call):
    """Run a legacy deploy call and move the node by its result."""
    _warn_legacy_once(task.driver.deploy)
    result = call(task)
    if result is None:
        return step_runner.finish(task, step_kinds.DEPLOY_FLOW)
    if result == states.DEPLOYWAIT:
        return step_runner.wait(task, step_kinds.DEPLOY_FLOW)
    return step_runner.fail(
        task, step_kinds.DEPLOY_FLOW,
        'Legacy deploy of node %s returned %r; expected None or %r' % (
            task.node.uuid, result, states.DEPLOYWAIT))


def start_tear_down(task, worker):
    """Move a deployed (or failed, or waiting) node into deleting; a
    deploy waiting for its agent stops where it is."""
    if task.node.provision_state == states.DEPLOYWAIT:
        step_runner.stop_flow(
            task, step_kinds.DEPLOY_FLOW, 'Deploy of node %s torn down by '
            'request while it waited' % task.node.uuid)
    task.start_work(states.EVENT_DELETE, worker, do_node_tear_down)


def do_node_tear_down(task):
    """Worker: undo the deploy, forget it, then clean the node."""
    node = task.node
    try:
        task.driver.deploy.tear_down(task)
    except Exception as exc:
        LOG.error('Tear down of node %s failed: %s', node.uuid, exc,
                  exc_info=not isinstance(exc, exception.IronicStepsException))
        node.last_error = 'Tear down of node %s failed: %s' % (node.uuid,
                                                               exc)
        task.process_event(states.EVENT_FAIL)
        task.save_and_release()
        return step_runner.Outcome.FAILED
    step_runner.clear_progress(node, step_kinds.DEPLOY_FLOW)
    node.instance_info = {}
    node.instance_uuid = None
    node.instance_name = None
    # Before the node moves on: whoever sees it cleaning or available
    # sees it without the allocation, free for the next one (as Ironic).
    allocations.release(task.context, node)
    # A retired node is cleaned for its owner, not for the next user.
    task.process_event(states.EVENT_CLEAN, target=(
        states.MANAGEABLE if node.retired else None))
    node.save()
    return cleaning.do_node_clean(task)
