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

A failed servicing leaves the node ``service failed``: it may be serviced
again, aborted back to ``active`` (the operator judges the instance
fine), rescued or torn down.  Servicing arrives with release 0.12; pinned
to an older one, its conductors would not know it, so it is refused.
"""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import steps
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import firmware
from ironic_steps import release_mappings

#: The release that brought servicing.
SINCE_RELEASE = '0.12'
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


def abort_failed(task):
    """An operator's abort of a failed servicing: the node is active
    again as it stands (its instance judged fine); the servicing's
    bookkeeping goes, its last error stays as the record of what failed.
    """
    step_runner.clear_progress(task.node, FLOW)
    task.process_event(states.EVENT_ABORT)
    task.save_and_release()
