"""The automated cleaning flow, run when a node is provided or torn down.

The same step runner as deploying, with the clean flow: the clean steps of
priority > 0 run in order, alternating ``cleaning`` / ``clean wait`` for
asynchronous ones.  ``[conductor] automated_clean = false`` skips them.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import steps
from ironic_steps.conf import CONF
from ironic_steps.drivers import base

LOG = log.getLogger(__name__)


def start_cleaning(task, worker):
    """Move a manageable node into cleaning (``provide``)."""
    task.process_event(states.EVENT_PROVIDE)
    task.node.last_error = None
    task.node.save()
    task.hand_over(worker, do_node_clean)


def do_node_clean(task):
    """Worker: plan the automated clean steps and run them."""
    try:
        plan = (steps.plan(task, base.CLEAN)
                if CONF.conductor.automated_clean else [])
        step_runner.store_plan(task, step_runner.CLEAN, plan)
        return step_runner.run(task, step_runner.CLEAN)
    except Exception as exc:
        return clean_error_handler(task, exc)


def continue_node_clean(task, worker):
    """Resume cleaning parked in ``clean wait`` at its next step."""
    task.process_event(states.EVENT_RESUME)
    task.node.save()
    task.hand_over(worker, _resume)


def _resume(task):
    try:
        index = step_runner.current_index(task.node, step_runner.CLEAN)
        return step_runner.run(task, step_runner.CLEAN,
                               start_index=0 if index is None else index + 1)
    except Exception as exc:
        return clean_error_handler(task, exc)


def clean_error_handler(task, exc):
    LOG.error('Cleaning of node %s failed: %s', task.node.uuid, exc,
              exc_info=not isinstance(exc, exception.IronicStepsException))
    if task.node.provision_state not in (states.CLEANING, states.CLEANWAIT):
        return step_runner.Outcome.FAILED
    task.node.obj_reset_changes()
    task.node.refresh()
    return step_runner.fail(task, step_runner.CLEAN,
                            'Cleaning of node %s failed: %s' % (
                                task.node.uuid, exc))
