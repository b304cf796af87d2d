"""The verify flow: ``manage`` on an enrolled node checks its power access
and records its boot settings (:mod:`boot_settings`) and, as Ironic does
(its ``node_update_cache``), its BIOS settings and firmware versions
(:func:`ironic_steps.drivers.bios.read_into_cache`,
:func:`ironic_steps.drivers.firmware.read_into_cache`, which never fail
the verification)."""

from oslo_log import log

from ironic_steps.common import states
from ironic_steps.conductor import boot_settings
from ironic_steps.drivers import bios
from ironic_steps.drivers import firmware

LOG = log.getLogger(__name__)


def start_verify(task, worker):
    task.start_work(states.EVENT_MANAGE, worker, do_node_verify)


def do_node_verify(task):
    """Worker: the node is manageable if its power interface answers."""
    node = task.node
    try:
        task.driver.power.validate(task)
        node.power_state = task.driver.power.get_power_state(task)
        boot_settings.cache(task)
        bios.read_into_cache(task)
        firmware.read_into_cache(task)
    except Exception as exc:
        LOG.warning('Verification of node %s failed: %s', node.uuid, exc)
        node.last_error = 'Failed to verify node %s: %s' % (node.uuid, exc)
        task.process_event(states.EVENT_FAIL)
    else:
        task.process_event(states.EVENT_DONE)
    task.save_and_release()
