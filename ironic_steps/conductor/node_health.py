"""A node's hardware health (API 1.109): read from its BMC, recorded.

``node.health`` is a cache, as in Ironic: what the management interface
last said of the server's overall health (``OK``, ``Warning`` or
``Critical``, see ``drivers.base.HEALTH_STATES``), None where it cannot
tell.  The power-state sync (:mod:`power_sync`) reads it with the power
state, for the nodes whose hardware it reads, when ``[conductor]
enable_health_monitoring`` is on; a change is logged (a warning for
``Warning`` and ``Critical``).  Nothing here fails a caller: a BMC that
cannot answer leaves the recorded health as it was.

While the services are pinned to a release before 0.13 nothing is read or
recorded: that release's nodes have no such field.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: The release that brought the field.
_RELEASE = '0.13'
#: Health worth an operator's attention.
_TROUBLE = frozenset(['Warning', 'Critical'])
#: What :func:`read` answers when nothing could be read.
UNREAD = object()


def monitored():
    """Whether health is read and recorded."""
    return (CONF.conductor.enable_health_monitoring
            and not release_mappings.pinned_before(CONF, _RELEASE))


def read(task):
    """The node's health as its BMC says it (None: it does not say), or
    :data:`UNREAD` when it could not be asked (logged) or is not
    :func:`monitored`."""
    if not monitored():
        return UNREAD
    get_health = getattr(task.driver.management, 'get_health', None)
    if get_health is None:
        return UNREAD
    try:
        return get_health(task)
    except exception.UnsupportedDriverExtension:
        return UNREAD
    except Exception as exc:
        LOG.warning('Cannot read the hardware health of node %s: %s',
                    task.node.uuid, exc)
        return UNREAD


def record(task, health):
    """Set the node's health (saved with its next save) to what
    :func:`read` answered; whether it changed."""
    node = task.node
    if health is UNREAD or health == node.health:
        return False
    log = LOG.warning if health in _TROUBLE else LOG.info
    log('Node %s hardware health: %s (was %s)', node.uuid, health,
        node.health)
    node.health = health
    return True
