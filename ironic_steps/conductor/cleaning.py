"""The automated cleaning flow, run when a node is provided or torn down.

The same step runner as deploying, with the clean flow: the clean steps of
priority > 0 run in order, alternating ``cleaning`` / ``clean wait`` for
asynchronous ones.  A node's ``automated_clean`` decides whether they run;
when it is unset (None), ``[conductor] automated_clean`` does.
"""

from oslo_log import log

from ironic_steps.common import states
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import steps
from ironic_steps.conf import CONF
from ironic_steps.drivers import base

LOG = log.getLogger(__name__)


def start_cleaning(task, worker):
    """Move a manageable node into cleaning (``provide``)."""
    task.start_work(states.EVENT_PROVIDE, worker, do_node_clean)


@step_runner.flow_boundary(step_runner.CLEAN)
def do_node_clean(task):
    """Worker: plan the automated clean steps and run them."""
    plan = (steps.plan(task, base.CLEAN)
            if _automated_clean(task.node) else [])
    step_runner.store_plan(task, step_runner.CLEAN, plan)
    return step_runner.run(task, step_runner.CLEAN)


def _automated_clean(node):
    """The node's own choice, else the conductor's (as Ironic)."""
    if node.automated_clean is None:
        return CONF.conductor.automated_clean
    return node.automated_clean


def continue_node_clean(task, worker):
    """Resume cleaning parked in ``clean wait`` at its next step."""
    step_runner.continue_after_wait(task, worker, step_runner.CLEAN,
                                    _resume)


@step_runner.flow_boundary(step_runner.CLEAN)
def _resume(task):
    return step_runner.resume(task, step_runner.CLEAN)
