"""Power actions an operator asks for: power on, power off, reboot.

``start_power_action`` (under the node's lock, in the RPC caller's thread)
checks the request with the node's power interface and records where the
node is going (``target_power_state``), so the API shows the work in
progress; a worker then runs :func:`do_power_action`, which asks the power
interface, records the resulting ``power_state`` and clears the target,
or, if the interface failed, clears the target and says why in
``last_error``.  The provision state never changes.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import power_cycles

LOG = log.getLogger(__name__)

#: A power target -> the power state it leaves the node in.
TARGET_STATES = {
    states.POWER_ON: states.POWER_ON,
    states.REBOOT: states.POWER_ON,
    states.SOFT_REBOOT: states.POWER_ON,
    states.POWER_OFF: states.POWER_OFF,
    states.SOFT_POWER_OFF: states.POWER_OFF,
}


def start_power_action(task, worker, new_state, timeout=None):
    """Check the request, show its target, hand the action to ``worker``.

    :raises InvalidParameterValue: for a target the node's power interface
        does not support, or a node it cannot power.
    :raises PowerOffDisabled: (409) for a power off of a node whose
        ``disable_power_off`` is set.
    """
    power_cycles.refuse_power_off(task.node, new_state)
    power = task.driver.power
    power.validate(task)
    supported = power.get_supported_power_states(task)
    if new_state not in supported:
        raise exception.InvalidParameterValue(
            err='The power interface of node %s does not support %r; it '
                'supports: %s' % (task.node.uuid, new_state,
                                  ', '.join(supported)))
    node = task.node
    node.target_power_state = TARGET_STATES[new_state]
    if node.provision_state not in states.FAILURE_STATES:
        node.last_error = None
    node.save()
    task.hand_over(worker, do_power_action, new_state, timeout)


def act(task, new_state, timeout=None):
    """Ask the node's power interface for ``new_state`` (a power target)
    and record the power state it leaves the node in (saved with the
    node's next save).

    :raises PowerOffDisabled: for a power off of a node that must stay on.
    :raises: whatever the power interface raises; nothing is recorded.
    """
    power_cycles.refuse_power_off(task.node, new_state)
    power = task.driver.power
    extra = {} if timeout is None else {'timeout': timeout}
    if new_state == states.REBOOT:
        power.reboot(task, **extra)
    else:
        power.set_power_state(task, new_state, **extra)
    task.node.power_state = TARGET_STATES[new_state]


def do_power_action(task, new_state, timeout=None):
    """Worker: run the power action, record the outcome, drop the lock."""
    node = task.node
    target = TARGET_STATES[new_state]
    try:
        act(task, new_state, timeout)
    except Exception as exc:
        LOG.error('Power action %s on node %s failed: %s', new_state,
                  node.uuid, exc,
                  exc_info=not isinstance(exc, exception.IronicStepsException))
        node.last_error = ("Failed to change the power state of node %s to "
                           "'%s' by '%s': %s" % (node.uuid, target,
                                                 new_state, exc))
    else:
        LOG.info('Node %s is %s after %s', node.uuid, target, new_state)
    node.target_power_state = None
    task.save_and_release()
