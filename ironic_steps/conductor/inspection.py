"""The inspect flow: a node's hardware read, and what was found recorded
(the ``inspect`` provision target, API 1.6; release 0.11).

1. **Start** (:func:`start_inspection`, under the node's lock, in the
   request): the node's power and inspect interfaces must be able to
   (their validation: ``no-inspect`` cannot), and the node be
   ``manageable`` or ``inspect failed``; it moves to ``inspecting`` with
   ``inspection_started_at`` now, and a worker takes over.
2. **Inspect** (:func:`do_inspection`, in the worker): the inspect
   interface reads the hardware (see :mod:`ironic_steps.drivers.inspection`
   for what it returns).  What it found is recorded
   (:mod:`inventory_records`: properties, ports, the stored inventory),
   its firmware versions read into its component cache (as Ironic does,
   while the node is on; never failing the inspection), and the node is
   ``manageable`` again, with ``inspection_finished_at``.  An
   interface whose hardware reports later leaves it in ``inspect wait``.
   Anything that goes wrong leaves it ``inspect failed``, the error its
   ``last_error``; from there it may be managed or inspected again.
3. **Wait** ends when the hardware reports (:func:`continue_inspection`,
   in the request: the ``agent`` interface's agent posted its inventory to
   ``/v1/continue_inspection``, API 1.84; the node is ``inspecting`` again
   and a worker records what the interface makes of the report, as in
   step 2), with an operator's :func:`abort`, or when ``[conductor]
   inspect_wait_timeout`` passes (:func:`fail_timed_out`, run by the
   conductor's housekeeping), both to ``inspect failed``.  The agent token
   its agent was handed (:mod:`agent_token`) is forgotten however the
   inspection ends.

Nothing is inspected while the services are pinned to a release before
0.11: its conductors know no such flow, and its nodes no inventory; nor
in band before 0.12.
"""

import functools

from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import agent_token
from ironic_steps.conductor import inventory_records
from ironic_steps.conductor import wait_timeouts
from ironic_steps.conf import CONF
from ironic_steps.drivers import firmware
from ironic_steps.drivers import inspection
from ironic_steps import objects

LOG = log.getLogger(__name__)

#: Plugin data key of the agent's logs, which are not stored.
LOGS_KEY = 'logs'


def start_inspection(task, worker):
    """Check the node can be inspected, then hand the work to ``worker``.

    :raises UnsupportedDriverExtension: for a node with ``no-inspect``.
    :raises InvalidParameterValue: (or MissingParameterValue) for a node
        its power or inspect interface could not reach.
    :raises InvalidStateRequested: unless the node is ``manageable`` or
        ``inspect failed``.
    :raises NotInPinnedRelease: while pinned to a release before 0.11.
    """
    objects.NodeInventory.check_in_pinned_release('Inspection')
    task.driver.power.validate(task)
    task.driver.inspect.validate(task)
    task.node.inspection_started_at = timeutils.utcnow()
    task.node.inspection_finished_at = None
    task.start_work(states.EVENT_INSPECT, worker, do_inspection)


def do_inspection(task):
    """Worker: inspect, record what was found, drop the lock."""
    _inspect(task, lambda: task.driver.inspect.inspect_hardware(task))


def continue_inspection(task, worker, inventory, plugin_data):
    """The hardware of a node in ``inspect wait`` reported: hand what it
    said to a worker that records it (see the module's docstring).

    :raises InspectedNodeNotFound: (saying nothing of the node, whose
        report may come from anyone) unless it waits in ``inspect wait``.
    """
    node = task.node
    if node.provision_state != states.INSPECTWAIT:
        LOG.warning('Inspection data for node %s refused: it is %s, not '
                    'waiting in %s', node.uuid, node.provision_state,
                    states.INSPECTWAIT)
        raise exception.InspectedNodeNotFound()
    LOG.info('Node %s: its hardware reported; inspection goes on',
             node.uuid)
    # The ramdisk's logs (ironic-python-agent sends them, compressed) can
    # be large and are nobody's inventory: Ironic does not store them with
    # it either.
    plugin_data = {key: value for key, value in plugin_data.items()
                   if key != LOGS_KEY}
    task.start_work(states.EVENT_RESUME, worker, functools.partial(
        do_continue_inspection, inventory=inventory,
        plugin_data=plugin_data))


def do_continue_inspection(task, inventory, plugin_data):
    """Worker: what the interface makes of the report, recorded."""
    _inspect(task, lambda: task.driver.inspect.continue_inspection(
        task, inventory, plugin_data))


def _inspect(task, inspect):
    """Run ``inspect()`` (an interface's answer, see
    :mod:`ironic_steps.drivers.inspection`) and move the node by it."""
    node = task.node
    try:
        found = inspect()
        if found == inspection.WAIT:
            task.process_event(states.EVENT_WAIT)
            task.save_and_release()
            LOG.info('Node %s waits for its hardware to report', node.uuid)
            return
        inventory_records.record(task, found)
        firmware.read_into_cache(task)
    except exception.NodeLockLost:
        raise   # taken over: what the new holder does stands
    except Exception as exc:
        LOG.error('Inspection of node %s failed: %s', node.uuid, exc,
                  exc_info=not isinstance(exc, exception.IronicStepsException))
        _fail(task, 'Failed to inspect hardware of node %s: %s' % (
            node.uuid, _reason(exc)))
        return
    node.inspection_finished_at = timeutils.utcnow()
    agent_token.forget(node)
    task.process_event(states.EVENT_DONE)
    task.save_and_release()
    LOG.info('Node %s inspected: %s', node.uuid, ', '.join(
        '%s=%s' % (key, node.properties.get(key))
        for key in ('cpus', 'cpu_arch', 'memory_mb', 'local_gb')))


def _reason(exc):
    """What ``exc`` says, without repeating who failed."""
    if isinstance(exc, exception.HardwareInspectionFailure):
        return exc.kwargs.get('error', str(exc))
    return str(exc) or type(exc).__name__


def _fail(task, error):
    task.node.last_error = error
    agent_token.forget(task.node)
    task.process_event(states.EVENT_FAIL)
    task.save_and_release()


def abort(task):
    """Stop an inspection that waits for the hardware, at the operator's
    request: the node is ``inspect failed``."""
    node = task.node
    task.driver.inspect.abort(task)
    node.last_error = 'Inspection of node %s aborted by request' % node.uuid
    agent_token.forget(node)
    task.process_event(states.EVENT_ABORT)
    task.save_and_release()
    LOG.info('Inspection of node %s aborted by request', node.uuid)


def _stop_waiting(task):
    """Have the interface stop what it started (an agent powered off);
    a failure to is logged: the inspection fails anyway."""
    try:
        task.driver.inspect.abort(task)
    except Exception as exc:
        LOG.warning('Node %s: could not stop what its inspection started: '
                    '%s', task.node.uuid, exc)


def fail_timed_out(context, acquire, owns):
    """Fail the inspections of this conductor's nodes (``owns(uuid,
    driver)``) that waited longer than ``[conductor]
    inspect_wait_timeout``; ``acquire`` takes a task on a node."""
    def fail(task, timeout):
        LOG.warning('Inspection of node %s timed out', task.node.uuid)
        _stop_waiting(task)
        _fail(task, 'Timeout reached while inspecting node %s: its hardware '
                    'did not report within %s seconds' % (task.node.uuid,
                                                          timeout))
    wait_timeouts.fail_overdue(
        context, acquire, owns, states.INSPECTWAIT,
        CONF.conductor.inspect_wait_timeout, fail, 'inspection timeout')
