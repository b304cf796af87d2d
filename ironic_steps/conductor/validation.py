"""What ``GET /v1/nodes/{node}/validate`` reports: each interface's own
check of the node.

Every interface of a node but ``vendor`` is asked, as in Ironic; the
answer per interface is ``{"result": bool, "reason": str or None}``.  An
interface that does not support the node (a ``no-*`` interface, or an
interface type its hardware type lacks) answers false with why.  Nothing
is locked or saved: it is a read.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.drivers import base
from ironic_steps.drivers import driver_factory

LOG = log.getLogger(__name__)

#: The interfaces validated: all but vendor, whose methods are called
#: on their own.
VALIDATED_INTERFACES = tuple(i for i in base.ALL_INTERFACES
                             if i != 'vendor')


def _check(task, interface_type, host):
    interface = getattr(task.driver, interface_type)
    if isinstance(interface, driver_factory.NoInterface):
        return False, ('Hardware type %s has no %s interface'
                       % (task.node.driver, interface_type))
    try:
        interface.validate(task)
    except exception.Invalid as exc:
        return False, str(exc)
    except Exception as exc:
        LOG.exception('Unexpected error validating the %s interface of '
                      'node %s', interface_type, task.node.uuid)
        return False, ('Unexpected error, logged by conductor %s: %s'
                       % (host, exc))
    return True, None


def validate_interfaces(task, host):
    """{interface type: {'result': bool, 'reason': str or None}}."""
    results = {}
    for interface_type in VALIDATED_INTERFACES:
        result, reason = _check(task, interface_type, host)
        results[interface_type] = {'result': result, 'reason': reason}
    return results
