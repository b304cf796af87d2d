"""The conductor's RPC endpoints for a node's virtual media (API 1.89).

Attaching an image as a device of the node's BMC, detaching devices, and
(API 1.93) listing them, through the node's management interface: what
it does with the BMC is the driver's (redfish: the devices of
:mod:`drivers.modules.redfish.virtual_media`, the ones its virtual media
boot uses; fake: a record in ``driver_internal_info``).  The image URL
goes to the BMC as it is given: this conductor serves no local copy.

Each call runs under the node's lock and answers when the BMC has done
it.  As in Ironic, an attach or detach clears the node's ``last_error``,
and a BMC's failure is recorded there; unlike Ironic, which answers
before the BMC is asked, the caller also gets it: 400
(:class:`VirtualMediaFailed`) for what the BMC refused, 503
(:class:`VirtualMediaUnavailable`) if it could not be reached.
"""

from ironic_steps.common import exception
from ironic_steps.conductor import endpoint_base
from ironic_steps.conductor import task_manager


def _refuse_during_power_failure(node, action):
    # As Ironic: a BMC in power failure is not asked anything.
    if node.maintenance and node.fault == 'power failure':
        raise exception.TemporaryFailure(
            'Cannot %s virtual media of node %s: it is in maintenance for a '
            'power failure' % (action, node.uuid))


def _change(task, action, change, **kwargs):
    """Run ``change(task, **kwargs)``, then save the node with what it
    says of the outcome in ``last_error``.

    :raises VirtualMediaFailed: if the BMC refused it.
    :raises VirtualMediaUnavailable: if the BMC could not be reached.
    """
    try:
        change(task, **kwargs)
    except exception.BMCError as exc:
        kind = (exception.VirtualMediaUnavailable
                if isinstance(exc, exception.BMCUnavailable)
                else exception.VirtualMediaFailed)
        failure = kind(action=action, node=task.node.uuid, error=exc)
        task.node.last_error = str(failure)
        task.save_and_release()
        raise failure from exc
    task.node.last_error = None
    task.save_and_release()


class VirtualMediaEndpoints:
    """RPC endpoints that attach, detach and list a node's virtual
    media."""

    target = endpoint_base.target()

    def __init__(self, acquire):
        """:param acquire: ``acquire(context, node_id, **kwargs)``, the
            conductor's exclusive task on a node."""
        self._acquire = acquire

    @endpoint_base.expected
    def attach_virtual_media(self, context, node_id, device_type, image_url,
                             image_download_source='local'):
        """Present ``image_url`` as the node's ``device_type`` device
        (see :mod:`common.virtual_media`), in place of what it held.

        :param image_download_source: accepted as Ironic names it; the
            BMC is given the URL itself whatever it says.
        :raises UnsupportedDriverExtension: for a management interface
            without virtual media.
        :raises BMCError: naming what the BMC refused.
        """
        with self._acquire(context, node_id,
                           purpose='attaching virtual media') as task:
            task.driver.management.validate(task)
            _refuse_during_power_failure(task.node, 'attach')
            _change(task, 'attach', task.driver.management.attach_virtual_media,
                    device_type=device_type, image_url=image_url)

    @endpoint_base.expected
    def detach_virtual_media(self, context, node_id, device_types=None):
        """Eject what the node's ``device_types`` devices hold (every
        device if None)."""
        with self._acquire(context, node_id,
                           purpose='detaching virtual media') as task:
            task.driver.management.validate(task)
            _refuse_during_power_failure(task.node, 'detach')
            _change(task, 'detach', task.driver.management.detach_virtual_media,
                    device_types=device_types)

    @endpoint_base.expected
    def get_virtual_media(self, context, node_id):
        """The node's virtual media devices: a list of ``{"media_types",
        "inserted", "image"}``."""
        with task_manager.acquire(context, node_id, shared=True,
                                  purpose='listing virtual media') as task:
            task.driver.management.validate(task)
            return task.driver.management.get_virtual_media(task)
