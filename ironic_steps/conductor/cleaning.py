"""The cleaning flows: automated (on provide and tear down) and manual.

The same step runner as deploying, with the clean flow: steps run in
order, alternating ``cleaning`` / ``clean wait`` for asynchronous ones.

* Automated cleaning runs the clean steps of priority > 0, highest first,
  and ends ``available``.  A node's ``automated_clean`` decides whether
  they run; when it is unset (None), ``[conductor] automated_clean`` does.
* Manual cleaning (``target: clean`` on a manageable node) runs exactly the
  operator's ``clean_steps``, in the order given, checked before the node
  moves, and ends back in ``manageable``.  With ``disable_ramdisk`` (API
  1.70) the agent is not booted (nor torn down): every step must run
  without it, or the request is refused before the node moves.

Before its steps run, a cleaning reads the node's firmware versions into
its component cache, as Ironic does (so a firmware update records the
version it replaced); that never fails the cleaning.
"""

from oslo_log import log

from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import steps
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import firmware

LOG = log.getLogger(__name__)


def start_cleaning(task, worker):
    """Move a manageable node into cleaning (``provide``)."""
    task.start_work(states.EVENT_PROVIDE, worker, do_node_clean)


@step_runner.flow_boundary(step_kinds.CLEAN_FLOW)
def do_node_clean(task):
    """Worker: plan the automated clean steps and run them."""
    step_runner.clear_progress(task.node, step_kinds.CLEAN_FLOW)
    automated = _automated_clean(task.node)
    plan = steps.plan(task, base.CLEAN) if automated else []
    step_runner.store_plan(task, step_kinds.CLEAN_FLOW, plan)
    if automated:
        firmware.read_into_cache(task)
        return step_runner.prepare_then_run(task, step_kinds.CLEAN_FLOW)
    return step_runner.run(task, step_kinds.CLEAN_FLOW)


def replan(task):
    """The cleaning's plan made again (its agent reported its steps):
    the operator's steps for manual cleaning, else the automated ones."""
    requested = (task.node.driver_internal_info or {}).get(
        step_kinds.CLEAN_FLOW.requested_key)
    if requested is not None:
        return steps.manual_plan(task, requested, kind=base.CLEAN)
    return steps.plan(task, base.CLEAN)


def _automated_clean(node):
    """The node's own choice, else the conductor's (as Ironic)."""
    if node.automated_clean is None:
        return CONF.conductor.automated_clean
    return node.automated_clean


def start_manual_cleaning(task, worker, clean_steps, disable_ramdisk=False):
    """Check the operator's clean steps, then move into cleaning.

    :param disable_ramdisk: run them without booting the agent.
    :raises InvalidRequestedSteps: before anything changes, if a step
        cannot run on this node (or needs the agent ``disable_ramdisk``
        leaves off).
    """
    step_runner.start_requested(
        task, worker, step_kinds.CLEAN_FLOW, states.EVENT_CLEAN,
        states.MANAGEABLE, clean_steps, disable_ramdisk, _run_manual)


@step_runner.flow_boundary(step_kinds.CLEAN_FLOW)
def _run_manual(task):
    firmware.read_into_cache(task)
    return step_runner.prepare_then_run(task, step_kinds.CLEAN_FLOW)


def continue_node_clean(task, worker):
    """Resume cleaning parked in ``clean wait`` at its next step."""
    step_runner.continue_after_wait(task, worker, step_kinds.CLEAN_FLOW,
                                    run_after_wait)


@step_runner.flow_boundary(step_kinds.CLEAN_FLOW)
def run_after_wait(task):
    """Worker: the steps after the one that waited."""
    return step_runner.resume(task, step_kinds.CLEAN_FLOW)
