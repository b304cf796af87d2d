"""The adopt flow: ``adopt`` makes a manageable node active without a
deploy, for a machine already running its workload (Ironic's adoption,
API 1.17).

Nothing is written to the machine and its power is left alone: the
conductor only checks that it can manage the node (its power and boot
interfaces validate, its power state reads) and records what it read.
A node that fails is ``adopt failed``, ``last_error`` saying why and its
power state unknown (what was read may be wrong); ``adopt`` tries again,
``manage`` gives it back to the operator.

Arrived with release 0.11: while the services are pinned before it,
adoption is refused (the conductors of that release do not know it).
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import boot_settings
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: The release that brought adoption.
RELEASE = '0.11'


def check_release(node_uuid):
    """:raises NotInPinnedRelease: while pinned before :data:`RELEASE`."""
    if release_mappings.pinned_before(CONF, RELEASE):
        raise exception.NotInPinnedRelease(
            feature='Adopting node %s' % node_uuid, needed=RELEASE,
            pinned=CONF.pin_release_version)


def start_adoption(task, worker):
    check_release(task.node.uuid)
    task.start_work(states.EVENT_ADOPT, worker, do_node_adoption)


def do_node_adoption(task):
    """Worker: the node is active if the conductor can manage it."""
    node = task.node
    try:
        task.driver.power.validate(task)
        task.driver.boot.validate(task)
        node.power_state = task.driver.power.get_power_state(task)
        boot_settings.cache(task)
    except Exception as exc:
        LOG.warning('Adoption of node %s failed: %s', node.uuid, exc)
        node.last_error = 'Failed to adopt node %s: %s' % (node.uuid, exc)
        node.power_state = None
        task.process_event(states.EVENT_FAIL)
    else:
        LOG.info('Node %s adopted: active, its power %s', node.uuid,
                 node.power_state)
        node.last_error = None
        task.process_event(states.EVENT_DONE)
    task.save_and_release()
