"""How a flow turns a node's power around, and the rule of API 1.95.

Owns what a node's ``disable_power_off`` means: the conductor never powers
such a node off (its power may also feed what must stay up: a DPU, a
switch, the BMC itself).  As in Ironic:

* a power off asked by an operator, a reserved ``power_off`` step or
  anything else is refused (:func:`refuse_power_off`, 409);
* where a flow powers the node off, prepares what it boots next and powers
  it on (:func:`booting`), it prepares and then reboots the node instead;
* where a flow only powers it off (:func:`power_off`), the node stays on:
  the deploy interface then locks the agent's ramdisk down, or reboots the
  node, where Ironic does (see ``drivers/modules/agent.py``).

Owns neither the power interfaces (``drivers/modules/*/power.py``) nor the
operator's power actions (``conductor/power.py``, which asks here first).
"""

import contextlib

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states

LOG = log.getLogger(__name__)

#: The power targets that leave a node powered off.
POWER_OFF_TARGETS = frozenset([states.POWER_OFF, states.SOFT_POWER_OFF])


def stays_on(node) -> bool:
    """Whether ``node`` must never be powered off (``disable_power_off``);
    None, from a peer that predates the field, means it may be."""
    return bool(node.disable_power_off)


def refuse_power_off(node, target: str) -> None:
    """:raises PowerOffDisabled: (409) if ``target`` would power off a
    node that must stay on."""
    if target in POWER_OFF_TARGETS and stays_on(node):
        raise exception.PowerOffDisabled(pstate=target, node=node.uuid)


def power_off(task) -> bool:
    """Power the node off, unless it must stay on.

    :returns: whether it was powered off.
    """
    if stays_on(task.node):
        LOG.info('Node %s has disable_power_off set: not powering it off',
                 task.node.uuid)
        return False
    task.driver.power.set_power_state(task, states.POWER_OFF)
    return True


@contextlib.contextmanager
def booting(task):
    """Power the node off, let the body prepare what it boots next, power
    it on; a node that must stay on is rebooted once the body is done."""
    powered_off = power_off(task)
    yield
    if powered_off:
        task.driver.power.set_power_state(task, states.POWER_ON)
    else:
        task.driver.power.reboot(task)


def power_off_or_reboot(task) -> None:
    """Stop what the node runs: power it off, or reboot a node that must
    stay on (it then no longer runs it, as after Ironic's tear down)."""
    if not power_off(task):
        task.driver.power.reboot(task)


def power_on(task) -> None:
    """Start what the node now boots: power it on, or, for a node that
    must stay on (still running what it ran), reboot it."""
    if stays_on(task.node):
        task.driver.power.reboot(task)
    else:
        task.driver.power.set_power_state(task, states.POWER_ON)
