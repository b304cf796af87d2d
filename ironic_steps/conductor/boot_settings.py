"""A node's boot mode and secure boot: recorded as its BMC reports them,
changed at an operator's request (API 1.75, 1.76).

``node.boot_mode`` (``uefi`` or ``bios``) and ``node.secure_boot`` are a
cache, as in Ironic: what the management interface last read, None where
it cannot tell (an interface without the methods says so by raising
UnsupportedDriverExtension).  They are read when a node is verified
(``manage`` from ``enroll``), by the power-state sync for nodes whose
hardware is read, and after a change.  A change runs in a worker, under
the node's lock: the BMC is asked, then read back, and a failure is the
node's ``last_error``, the provision state untouched.

While the services are pinned to a release before 0.10 nothing is read or
recorded: that release's nodes have no such fields.
"""

from oslo_log import log

from ironic_steps.common import boot_modes
from ironic_steps.common import exception
from ironic_steps.common import step_kinds
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: States a change would interfere with: a flow or verification runs.
_MOVING_STATES = step_kinds.UNDER_WAY_STATES
#: The release that brought the fields.
_RELEASE = '0.10'


def recorded():
    """Whether the fields are read and recorded (not pinned before them)."""
    return not release_mappings.pinned_before(CONF, _RELEASE)


def _read(task, method):
    # A hardware type without a management interface has no such method.
    read = getattr(task.driver.management, method, None)
    if read is None:
        return None
    try:
        return read(task)
    except exception.UnsupportedDriverExtension:
        return None


def read(task):
    """(boot mode, secure boot) as the node's BMC reports them.

    :raises: whatever the management interface raises when it cannot ask.
    """
    return (_read(task, 'get_boot_mode'),
            _read(task, 'get_secure_boot_state'))


def record(task, boot_mode, secure_boot):
    """Set the node's fields (saved with its next save); whether they
    changed."""
    node = task.node
    if (node.boot_mode, node.secure_boot) == (boot_mode, secure_boot):
        return False
    shown = {True: 'on', False: 'off'}.get(secure_boot, 'unknown')
    LOG.info('Node %s boots in %s mode, secure boot %s', node.uuid,
             boot_mode, shown)
    node.boot_mode, node.secure_boot = boot_mode, secure_boot
    return True


def cache(task):
    """Read and record the node's boot settings; a BMC that cannot answer
    leaves them as they were (logged), never failing the caller."""
    if not recorded():
        return
    try:
        boot_mode, secure_boot = read(task)
    except Exception as exc:
        LOG.warning('Cannot read the boot mode of node %s: %s',
                    task.node.uuid, exc,
                    exc_info=not isinstance(exc, exception.IronicStepsException))
        return
    record(task, boot_mode, secure_boot)


def check_boot_mode(mode):
    """:raises InvalidParameterValue: for a mode that is not one."""
    if mode not in boot_modes.BOOT_MODES:
        raise exception.InvalidParameterValue(
            err='Unknown boot mode %r; choose one of: %s' % (
                mode, ', '.join(boot_modes.BOOT_MODES)))


def start_change(task, worker, boot_mode=None, secure_boot=None):
    """Check the node can be asked, clear its last error, hand the change
    (of one of the two) to ``worker``.

    :raises InvalidParameterValue: for a bad target, or a management
        interface whose validation fails.
    :raises NodeInWrongState: (409) while the node is moving between
        states: a flow's steps may be setting up its boot (as Ironic).
    """
    if boot_mode is not None:
        check_boot_mode(boot_mode)
    node = task.node
    if node.provision_state in _MOVING_STATES:
        raise exception.NodeInWrongState(
            node=node.uuid, state=node.provision_state,
            action='given a new %s' % (
                'boot mode' if boot_mode is not None else 'secure boot'))
    management = task.driver.management
    if not hasattr(management, 'set_boot_mode'):
        raise exception.UnsupportedDriverExtension(
            node=node.uuid, extension='boot settings',
            interface=node.management_interface or 'none')
    management.validate(task)
    task.node.last_error = None
    task.node.save()
    task.hand_over(worker, _change, boot_mode, secure_boot)


def _change(task, boot_mode, secure_boot):
    """Worker: ask the BMC, read the outcome back, drop the lock."""
    node = task.node
    management = task.driver.management
    if boot_mode is not None:
        what = 'set the boot mode to %s' % boot_mode
    else:
        what = 'turn secure boot %s' % ('on' if secure_boot else 'off')
    try:
        if boot_mode is not None:
            if _read(task, 'get_boot_mode') != boot_mode:
                management.set_boot_mode(task, boot_mode)
        else:
            management.set_secure_boot_state(task, secure_boot)
        record(task, *read(task))
    except Exception as exc:
        LOG.error('Node %s: failed to %s: %s', node.uuid, what, exc,
                  exc_info=not isinstance(exc, exception.IronicStepsException))
        node.last_error = 'Failed to %s on node %s: %s' % (
            what, node.uuid, exc)
    else:
        LOG.info('Node %s: did %s', node.uuid, what)
    task.save_and_release()
