"""Firmware through a Redfish BMC: the ``redfish`` firmware interface.

``firmware.update`` (Ironic's step, API 1.86) hands each image of its
settings list (see :mod:`ironic_steps.drivers.firmware`) in turn to the
BMC's UpdateService (SimpleUpdate, naming the node's System as the target
when the BMC has several, as Ironic does), and is polled
(:func:`ironic_steps.drivers.base.poll_step`) until the BMC's task for the
last image is done: the node waits in ``clean wait`` without its lock.
How long the whole update may take is ``[redfish] firmware_update_timeout``
(or the timeout an operator gives the step); the agent call-back timeout
does not apply to it, so an update that outlasts ``[conductor]
clean_callback_timeout`` is not cut short (Ironic's bug 2136276).  A BMC
that restarts during its own update answers nothing for a while: the check
is asked again next interval.  A task that ends in error fails the step
with the BMC's messages.  A component's optional ``wait`` holds the next
one back for that many seconds once it is done.

The component cache holds what Ironic's redfish firmware reads: the
System's ``BiosVersion`` (``bios``) and its Manager's ``FirmwareVersion``
and ``Model`` (``bmc``); it is read after an update and when the node is
managed or inspected.
"""

from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import firmware
from ironic_steps.drivers.modules.redfish import utils

LOG = log.getLogger(__name__)


def _read_bmc(node, system):
    """The ``bmc`` component of ``system``'s first Manager, or None."""
    with utils.bmc_call(node, 'read the BMC firmware version'):
        managers = system.managers
        if not managers:
            return None
        manager = managers[0]
        version = manager.firmware_version
        model = manager.model
    if not version:
        return None
    return {'component': firmware.BMC, 'current_version': version,
            'model': model}


class RedfishFirmware(utils.BMCInterface, base.FirmwareInterface):

    name = 'redfish'
    #: Not offered, nor given to new nodes, while pinned before it.
    since_release = '0.12'

    def cache_firmware_components(self, task):
        node = task.node
        system = utils.get_system(node, 'read the firmware versions')
        components = []
        if system.bios_version:
            components.append({'component': firmware.BIOS,
                               'current_version': system.bios_version})
        try:
            bmc = _read_bmc(node, system)
        except exception.BMCError as exc:
            LOG.warning('Could not read the BMC firmware of node %s: %s',
                        node.uuid, exc)
            bmc = None
        if bmc:
            components.append(bmc)
        if not components:
            raise exception.BMCError(
                node=node.uuid, operation='read the firmware versions',
                error='the BMC reports neither the System\'s BiosVersion '
                      'nor its Manager\'s FirmwareVersion')
        firmware.cache_components(task, components)

    @base.clean_step(priority=0, argsinfo=firmware.UPDATE_ARGSINFO,
                     precheck=firmware.precheck_update)
    @base.service_step(priority=0, argsinfo=firmware.UPDATE_ARGSINFO,
                       precheck=firmware.precheck_update,
                       requires_ramdisk=False)
    def update(self, task, settings):
        """Update each component of ``settings`` in turn."""
        updates = firmware.checked_settings(settings)
        monitor = self._start_update(task, updates[0])
        return base.poll_step(task, self.check_update,
                              timeout=CONF.redfish.firmware_update_timeout,
                              monitor=monitor, current=updates[0],
                              pending=updates[1:], wait_until=None)

    def _start_update(self, task, update):
        node = task.node
        operation = '%s firmware update from %s' % (update['component'],
                                                    update['url'])
        params = utils.parse_driver_info(node)
        with utils.bmc_call(node, operation, params):
            client = utils.get_client(node, params)
            targets = None
            if len(client.get_system_collection().members_identities) > 1:
                # Several Systems behind one BMC: name the node's.
                targets = [utils.get_system(node, operation).path]
            service = client.get_update_service()
            return service.simple_update(update['url'],
                                         targets=targets).task_monitor_uri

    def check_update(self, task, monitor, current, pending, wait_until):
        """Polled: done once the BMC's task for the last image is, and
        that component's ``wait`` is over."""
        if wait_until is None:
            finished, status = utils.check_task(
                task.node, monitor, '%s firmware update' %
                current['component'])
            if not finished:
                return status
            if current.get('wait'):
                wait_until = (timeutils.utcnow().timestamp()
                              + current['wait'])
                base.update_poll(task, monitor=monitor, current=current,
                                 pending=pending, wait_until=wait_until)
        if (wait_until is not None
                and timeutils.utcnow().timestamp() < wait_until):
            return 'waiting %d seconds after the %s update' % (
                current['wait'], current['component'])
        if pending:
            base.update_poll(task,
                             monitor=self._start_update(task, pending[0]),
                             current=pending[0], pending=pending[1:],
                             wait_until=None)
            return 'updating %s from %s' % (pending[0]['component'],
                                            pending[0]['url'])
        try:
            self.cache_firmware_components(task)
        except exception.IronicStepsException as exc:
            # The update is done; a BMC slow to report its new versions
            # does not undo it.
            LOG.warning('Firmware of node %s updated, but its versions '
                        'could not be read: %s', task.node.uuid, exc)
        return base.DONE
