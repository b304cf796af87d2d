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
3. **Wait** ends with an operator's :func:`abort` or when
   ``[conductor] inspect_wait_timeout`` passes (:func:`fail_timed_out`,
   run by the conductor's housekeeping), both to ``inspect failed``.  No
   interface here is called back yet (Ironic's ``continue_inspection``,
   API 1.84, is not served): only ``fake``'s test mode waits.

Nothing is inspected while the services are pinned to a release before
0.11: its conductors know no such flow, and its nodes no inventory.
"""

import datetime

from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import inventory_records
from ironic_steps.conf import CONF
from ironic_steps.drivers import firmware
from ironic_steps.drivers import inspection
from ironic_steps import objects

LOG = log.getLogger(__name__)


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
    node = task.node
    try:
        found = task.driver.inspect.inspect_hardware(task)
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
    task.process_event(states.EVENT_FAIL)
    task.save_and_release()


def abort(task):
    """Stop an inspection that waits for the hardware, at the operator's
    request: the node is ``inspect failed``."""
    node = task.node
    task.driver.inspect.abort(task)
    node.last_error = 'Inspection of node %s aborted by request' % node.uuid
    task.process_event(states.EVENT_ABORT)
    task.save_and_release()
    LOG.info('Inspection of node %s aborted by request', node.uuid)


def fail_timed_out(context, acquire, owns):
    """Fail the inspections of this conductor's nodes (``owns(uuid,
    driver)``) that waited longer than ``[conductor]
    inspect_wait_timeout``; ``acquire`` takes a task on a node."""
    timeout = CONF.conductor.inspect_wait_timeout
    if not timeout:
        return
    before = timeutils.utcnow() - datetime.timedelta(seconds=timeout)
    rows = objects.Node.list_fields(
        context, ('uuid', 'driver'), filters={
            'provision_state': states.INSPECTWAIT, 'reservation': None,
            'provisioned_before': before})
    for row in rows:
        if not owns(row.uuid, row.driver):
            continue
        try:
            with acquire(context, row.uuid, retry=False,
                         purpose='inspection timeout') as task:
                node = task.node
                if (node.provision_state != states.INSPECTWAIT
                        or timeutils.normalize_time(
                            node.provision_updated_at) >= before):
                    continue   # it moved on meanwhile
                LOG.warning('Inspection of node %s timed out', node.uuid)
                _fail(task, 'Timeout reached while inspecting node %s: its '
                            'hardware did not report within %s seconds' % (
                                node.uuid, timeout))
        except (exception.NodeLocked, exception.NodeNotFound):
            pass   # busy or gone: not ours to fail now
