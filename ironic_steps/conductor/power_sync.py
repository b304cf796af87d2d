"""Keeping each node's recorded power state true to its hardware.

Someone may press a server's power button, or a BMC may reset it; the
recorded ``power_state`` then lies.  Every ``[conductor]
sync_power_state_interval`` seconds the conductor reads the power state of
each node it owns (hash ring) from its power interface and records what
the hardware says when that differs, and its boot mode and secure boot
(:mod:`boot_settings`) and hardware health (:mod:`node_health`)
likewise.  Reads run at most ``[conductor] sync_power_state_workers`` at
once, each without the node's lock; only a
node whose state must change is locked, and only if nobody else holds it
and its recorded state did not change meanwhile.  Nodes in maintenance,
locked, in ``enroll`` (their credentials are not checked yet) or in a
flow (which owns the power then) are skipped, as are nodes whose power
interface only records what it was told (fake hardware): there is nothing
to read.
"""

from concurrent import futures

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import boot_settings
from ironic_steps.conductor import node_health
from ironic_steps.conf import CONF
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

LOG = log.getLogger(__name__)

#: Where a node rests between flows, its power free to be read.
SYNCED_STATES = frozenset([states.MANAGEABLE, states.AVAILABLE,
                           states.ACTIVE, states.DEPLOYFAIL,
                           states.CLEANFAIL, states.ERROR])
_COLUMNS = ('uuid', 'driver', 'power_interface', 'power_state',
            'provision_state', 'boot_mode', 'secure_boot', 'health')


def _reads_hardware(row):
    try:
        power = driver_factory.interface_for('power', row.driver,
                                             row.power_interface)
    except exception.IronicStepsException:
        return False   # validation will say what is wrong with the node
    return power.reads_hardware


class PowerStateSync:
    """The periodic check of one conductor.

    :param acquire: ``acquire(context, node_uuid, **kwargs)``, the
        conductor's task factory.
    :param owns: ``owns(node_uuid, driver)``, whether the node is this
        conductor's.
    """

    def __init__(self, acquire, owns):
        self._acquire = acquire
        self._owns = owns

    def run(self, context):
        rows = [row for row in objects.Node.list_fields(
                    context, _COLUMNS,
                    filters={'maintenance': False, 'reservation': None})
                if row.provision_state in SYNCED_STATES
                and _reads_hardware(row)
                and self._owns(row.uuid, row.driver)]
        if not rows:
            return 0
        with futures.ThreadPoolExecutor(
                CONF.conductor.sync_power_state_workers,
                thread_name_prefix='power-sync') as pool:
            return sum(pool.map(lambda row: self._sync(context, row), rows))

    def _sync(self, context, row):
        """:returns: 1 if the recorded power state was corrected, else 0.

        The boot settings are read too (:mod:`boot_settings`), and
        recorded when they changed; a BMC that cannot tell them leaves
        them alone.
        """
        boot = (row.boot_mode, row.secure_boot)
        health = node_health.UNREAD
        try:
            with self._acquire(context, row.uuid, shared=True,
                               purpose='power state sync') as task:
                actual = task.driver.power.get_power_state(task)
                if boot_settings.recorded():
                    boot = _boot_settings(task, boot)
                health = node_health.read(task)
        except exception.NodeNotFound:
            return 0
        except Exception as exc:
            LOG.warning('Power state sync: cannot read the power state of '
                        'node %s: %s', row.uuid, exc)
            return 0
        power_changed = actual is not None and actual != row.power_state
        if not power_changed and boot == (row.boot_mode, row.secure_boot) \
                and health in (node_health.UNREAD, row.health):
            return 0
        try:
            with self._acquire(context, row.uuid, retry=False,
                               purpose='power state sync') as task:
                node = task.node
                if (node.power_state != row.power_state
                        or node.provision_state not in SYNCED_STATES
                        or node.maintenance):
                    return 0   # changed while we read: the next check sees
                boot_settings.record(task, *boot)
                node_health.record(task, health)
                if power_changed:
                    LOG.warning('Node %s is %s according to its hardware, '
                                'but was recorded %s; recording %s',
                                node.uuid, actual, node.power_state, actual)
                    node.power_state = actual
                task.save_and_release()
                return int(power_changed)
        except (exception.NodeLocked, exception.NodeNotFound):
            return 0


def _boot_settings(task, recorded):
    """The node's boot settings as its BMC tells them; ``recorded`` where
    it cannot (logged: the power state matters more here)."""
    try:
        return boot_settings.read(task)
    except Exception as exc:
        LOG.warning('Power state sync: cannot read the boot mode of node '
                    '%s: %s', task.node.uuid, exc)
        return recorded
