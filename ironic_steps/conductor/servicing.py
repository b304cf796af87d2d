"""Servicing: an active node runs the operator's service steps (API 1.87).

Day-2 work on a server in use (a BIOS setting, a RAID change, a firmware
update) without giving it back: ``service`` with ``service_steps`` on an
``active`` node runs exactly those steps, in the order given, with the
same step runner as deploying and cleaning, alternating ``servicing`` /
``service wait``, and the node is ``active`` again.  The steps are checked
before the node moves (a step the node does not offer is 400, never a
failed servicing); with ``disable_ramdisk`` the agent is not booted and
every step must run without it.  The deploy interface boots what runs
in-band steps (``prepare_service``) and gives the machine back to its
instance afterwards (``tear_down_service``).

A failed servicing leaves the node ``service failed``, its agent still up
for the operator to look into: it may be serviced again, resumed from the
failed step (the x-steps extension, release 0.13), aborted back to
``active`` (the operator judges the instance fine; the machine is given
back to it as after a servicing), rescued or torn down.  Servicing
arrives with release 0.12; pinned to an older one, its conductors would
not know it, so it is refused.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import steps
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import firmware
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: The release that brought servicing.
SINCE_RELEASE = '0.12'
#: The release whose conductors resume a failed servicing.
RESUME_SINCE_RELEASE = '0.13'
FLOW = step_kinds.SERVICE_FLOW


def start_servicing(task, worker, service_steps, disable_ramdisk=False):
    """Check the operator's service steps, then move into servicing.

    :raises NotInPinnedRelease: while pinned before release 0.12.
    :raises InvalidRequestedSteps: before anything changes, if a step
        cannot run on this node.
    :raises InvalidStateRequested: unless the node is active (or its last
        servicing failed).
    """
    if release_mappings.pinned_before(CONF, SINCE_RELEASE):
        raise exception.NotInPinnedRelease(
            feature='Servicing', needed=SINCE_RELEASE,
            pinned=CONF.pin_release_version)
    step_runner.start_requested(
        task, worker, FLOW, states.EVENT_SERVICE, states.ACTIVE,
        service_steps, disable_ramdisk, _run)


@step_runner.flow_boundary(FLOW)
def _run(task):
    # What the firmware is before the steps (a firmware update's
    # initial_version), as Ironic reads it.
    firmware.read_into_cache(task)
    return step_runner.prepare_then_run(task, FLOW)


def start_resume(task, worker, point):
    """Service the node again from ``point`` (:mod:`resume_points`) of its
    failed servicing: the steps before it are kept, the rest run as a
    servicing of their own would (checked first, the agent booted again
    for them unless the servicing ran without it).

    :raises NotInPinnedRelease: while pinned before release 0.13.
    :raises InvalidRequestedSteps: before anything changes.
    """
    if release_mappings.pinned_before(CONF, RESUME_SINCE_RELEASE):
        raise exception.NotInPinnedRelease(
            feature='Resuming a servicing', needed=RESUME_SINCE_RELEASE,
            pinned=CONF.pin_release_version)
    node = task.node
    remaining = [{'interface': step.interface, 'step': step.name,
                  'args': dict(step.args)}
                 for step in step_runner.load_plan(node, FLOW)[point.start:]]
    LOG.info('Resuming the servicing of node %s at step %d: %s',
             node.uuid, point.start, point.reason)
    node.last_error = None
    step_runner.start_requested(
        task, worker, FLOW, states.EVENT_SERVICE, states.ACTIVE, remaining,
        FLOW.without_ramdisk(node), _run)


def replan(task):
    """The servicing's plan made again, once its agent reported its
    steps: the operator's steps, checked against them."""
    requested = (task.node.driver_internal_info or {}).get(
        FLOW.requested_key)
    return steps.manual_plan(task, requested, kind=base.SERVICE)


def continue_node_service(task, worker):
    """Resume servicing parked in ``service wait`` at its next step."""
    step_runner.continue_after_wait(task, worker, FLOW, run_after_wait)


@step_runner.flow_boundary(FLOW)
def run_after_wait(task):
    """Worker: the steps after the one that waited."""
    return step_runner.resume(task, FLOW)


def abort_failed(task, worker):
    """An operator's abort of a failed servicing: the node is active again
    at once (its instance judged fine), and a worker gives the machine
    back to its instance as a finished servicing would: the agent powered
    off, the disk booted (``tear_down_service``; nothing to do when the
    servicing ran without its agent).  The servicing's bookkeeping goes;
    its last error stays as the record of what failed.
    """
    node = task.node
    with_agent = not FLOW.without_ramdisk(node)
    step_runner.clear_progress(node, FLOW)
    task.process_event(states.EVENT_ABORT)
    if with_agent:
        task.hand_over(worker, _back_to_the_instance)
    else:
        task.save_and_release()


def _back_to_the_instance(task):
    node = task.node
    try:
        task.driver.deploy.tear_down_service(task)
    except Exception as exc:
        # Active, but perhaps not running its instance: flagged for the
        # operator rather than hidden.
        LOG.exception('Node %s: giving the machine back to its instance '
                      'after an aborted servicing failed', node.uuid)
        node.last_error = node.maintenance_reason = (
            'Servicing aborted, but giving the machine back to its '
            'instance failed: %s' % exc)
        node.maintenance = True
    task.save_and_release()
