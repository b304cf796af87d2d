"""The ``ramdisk`` deploy: boot an ISO as the instance, no agent needed.

As Ironic's ``ramdisk`` deploy interface: nothing is written to the
node's disks; its boot interface makes it boot ``instance_info/boot_iso``
(for ``redfish-virtual-media``, from the BMC's virtual CD drive), and the
node is active once powered on.  Tearing down powers off and has the boot
interface forget the image.
"""

from ironic_steps.common import exception
from ironic_steps.drivers import base
from ironic_steps.drivers import power_cycles


class RamdiskDeploy(base.DeployInterface):

    def get_properties(self):
        return {}

    def validate(self, task):
        boot = task.driver.boot
        if not hasattr(boot, 'prepare_instance'):
            raise exception.InvalidParameterValue(
                err='The ramdisk deploy of node %s needs a boot interface '
                    'that can boot an ISO, such as redfish-virtual-media; '
                    'node has %s' % (task.node.uuid, task.node.boot_interface))
        boot_iso(task.node)

    @base.deploy_step(priority=100)
    def deploy(self, task):
        """Boot the node from its ISO: power off, present it, power on."""
        boot_iso(task.node)
        with power_cycles.booting(task):
            task.driver.boot.prepare_instance(task)

    def tear_down(self, task):
        power_cycles.power_off_or_reboot(task)
        clean_up = getattr(task.driver.boot, 'clean_up_instance', None)
        if clean_up is not None:
            clean_up(task)


def boot_iso(node):
    """The ISO URL a node boots its instance from.

    :raises MissingParameterValue: or InvalidParameterValue, naming
        ``instance_info/boot_iso``.
    """
    url = (node.instance_info or {}).get('boot_iso')
    if not url:
        raise exception.MissingParameterValue(
            err='instance_info/boot_iso is missing: the http(s) URL of the '
                'ISO image node %s boots from' % node.uuid)
    if not isinstance(url, str) or not url.startswith(
            ('http://', 'https://')):
        raise exception.InvalidParameterValue(
            err='instance_info/boot_iso of node %s must be an http(s) URL'
                % node.uuid)
    return url
