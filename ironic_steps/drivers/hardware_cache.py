"""Reading what a node's hardware reports into the node's caches.

Ironic refreshes a node's cached views of its hardware (BIOS settings,
firmware versions) whenever the node is managed, inspected or cleaned
(its ``node_update_cache``), through the interface that can read them.
:func:`read` is that refresh for one cache: it asks the node's interface
to read, and never fails the caller -- a node whose BIOS or firmware
cannot be read is still manageable, as in Ironic -- logging why instead.
The interfaces write the caches themselves, through
:mod:`ironic_steps.drivers.bios` and :mod:`ironic_steps.drivers.firmware`.
"""

from oslo_log import log

from ironic_steps.common import exception

LOG = log.getLogger(__name__)


def read(task, interface_type, method, what) -> bool:
    """Have the node's ``interface_type`` interface call ``method`` (which
    reads ``what`` from the hardware into its cache), if it has one.

    :returns: whether the interface read it (False: none can, or it
        failed, which is logged).
    :raises NodeLockLost: the node was taken over: the caller must stop.
    """
    interface = getattr(task.driver, interface_type, None)
    reader = getattr(interface, method, None)
    if reader is None:
        return False   # the node's interface of that type cannot read it
    try:
        interface.validate(task)
        reader(task)
    except exception.UnsupportedDriverExtension:
        LOG.debug('Node %s has no %s interface to read its %s with',
                  task.node.uuid, interface_type, what)
        return False
    except exception.NodeLockLost:
        raise
    except Exception as exc:
        LOG.warning('Could not read the %s of node %s: %s', what,
                    task.node.uuid, exc,
                    exc_info=not isinstance(
                        exc, exception.IronicStepsException))
        return False
    return True
