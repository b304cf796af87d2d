"""Booting from virtual media through a Redfish BMC.

The BMC presents an ISO image, fetched from a URL, as the node's CD drive;
the node boots from it once.  Two ISOs go through that drive, as in
Ironic's ``redfish-virtual-media`` boot interface:

* the agent's: for a deploy interface that drives ironic-python-agent
  (``direct``), ``prepare_ramdisk`` inserts the deploy ISO named by
  ``driver_info/deploy_iso`` (:func:`deploy_iso`) and sets the one-time
  boot from CD; once the image is written, ``prepare_instance_from_disk``
  ejects it (the deploy interface then has the management interface boot
  the disk from now on), and ``clean_up_ramdisk`` ejects it when the agent
  is powered off;
* the instance's: for the ``ramdisk`` deploy, ``prepare_instance`` inserts
  ``instance_info/boot_iso`` and sets the one-time boot from CD;
  ``clean_up_instance`` ejects it when the instance goes.

With ``[deploy] http_url`` set, the agent's ramdisk gets a second medium:
the config image holding its token (:mod:`agent_config_media`), inserted
in the BMC's floppy device, else its USB stick, before the node boots, and
ejected and removed with the deploy ISO.  A BMC without either device
boots the agent without it (its first lookup gets the token, logged).

The CD drive is found as :mod:`virtual_media` finds devices.  ISOs are
given as http(s) URLs: this module builds only the config image (Ironic
can build the deploy ISO too, from ``deploy_kernel`` and
``deploy_ramdisk``) and reads no Glance image ids.
"""

from oslo_log import log
import sushy

from ironic_steps.common import exception
from ironic_steps.common import virtual_media as common_virtual_media
from ironic_steps.drivers import base
from ironic_steps.drivers.modules import agent_config_media
from ironic_steps.drivers.modules import ramdisk
from ironic_steps.drivers.modules.redfish import utils
from ironic_steps.drivers.modules.redfish import virtual_media

LOG = log.getLogger(__name__)

#: Ironic's name of the agent's ISO in ``driver_info``, and the name it
#: had before Ironic's Xena release, still read (with a warning) when the
#: first is not set.
DEPLOY_ISO = 'deploy_iso'
DEPRECATED_DEPLOY_ISO = 'redfish_deploy_iso'
DEPLOY_PROPERTIES = {
    DEPLOY_ISO: 'The http(s) URL of the ISO image of ironic-python-agent\'s '
                'ramdisk, booted from the virtual CD drive. Required by '
                'deploy interfaces that drive the agent, such as direct.',
    DEPRECATED_DEPLOY_ISO: 'Deprecated name of deploy_iso, read when '
                           'deploy_iso is not set.',
}


def deploy_iso(node, needed_by=None):
    """The URL of the ISO a node boots ironic-python-agent from.

    :param needed_by: what boots the agent, for the error (default: the
        node's deploy interface).
    :raises MissingParameterValue: or InvalidParameterValue, naming the
        ``driver_info`` key.
    """
    info = node.driver_info or {}
    key = DEPLOY_ISO if info.get(DEPLOY_ISO) else DEPRECATED_DEPLOY_ISO
    url = info.get(key)
    if not url:
        raise exception.MissingParameterValue(
            err='driver_info/%s (or its deprecated name, driver_info/%s) is '
                'missing: the http(s) URL of the ISO of the agent\'s ramdisk '
                'node %s boots for %s' % (
                    DEPLOY_ISO, DEPRECATED_DEPLOY_ISO, node.uuid,
                    needed_by or 'its %s deploy interface'
                    % node.deploy_interface))
    if not isinstance(url, str) or not url.startswith(
            ('http://', 'https://')):
        raise exception.InvalidParameterValue(
            err='driver_info/%s of node %s must be an http(s) URL'
                % (key, node.uuid))
    if key == DEPRECATED_DEPLOY_ISO:
        LOG.warning('Node %s: driver_info/%s is deprecated; use %s',
                    node.uuid, DEPRECATED_DEPLOY_ISO, DEPLOY_ISO)
    return url


def _boot_once_from_cd(task, url):
    """Insert ``url`` into the virtual CD drive, in place of what it held,
    and boot from it once."""
    system = virtual_media.insert(task, common_virtual_media.CDROM, url)
    with utils.bmc_call(task.node, 'boot once from virtual media %s' % url):
        system.set_system_boot_options(
            target=sushy.BOOT_SOURCE_TARGET_CD,
            enabled=sushy.BOOT_SOURCE_ENABLED_ONCE)


def _eject(task):
    """Eject whatever the virtual CD drive holds."""
    operation = 'eject virtual media'
    _system, drive = virtual_media.device(task, common_virtual_media.CDROM,
                                          operation)
    with utils.bmc_call(task.node, operation):
        virtual_media.eject_drive(drive)


#: Where the config image goes, in order of preference (Ironic's).
_CONFIG_DEVICES = (common_virtual_media.FLOPPY, common_virtual_media.DISK)


def _config_device(task):
    """The device type the config image goes in; None if the BMC has
    none of :data:`_CONFIG_DEVICES`."""
    operation = 'find a virtual media device for the agent\'s config'
    system = utils.get_system(task.node, operation)
    with utils.bmc_call(task.node, operation):
        for device_type in _CONFIG_DEVICES:
            if virtual_media.devices(system, device_type):
                return device_type
    return None


def _insert_agent_config(task):
    """Hand the agent its token on a config image (see the module)."""
    if not agent_config_media.enabled():
        return
    device_type = _config_device(task)
    if device_type is None:
        LOG.warning('Node %s: the BMC has no floppy or USB virtual media '
                    'device for the agent\'s config image; its agent gets '
                    'its token at its first lookup.', task.node.uuid)
        return
    url = agent_config_media.publish(task.node)
    try:
        virtual_media.insert(task, device_type, url)
    except exception.BMCError:
        agent_config_media.forget_token(task.node)
        raise


def _eject_agent_config(task):
    """Eject and remove the config image, if any."""
    if agent_config_media.enabled():
        virtual_media.eject(task, _CONFIG_DEVICES)
    agent_config_media.withdraw(task.node)


class RedfishVirtualMediaBoot(utils.BMCInterface, base.BootInterface):

    def get_properties(self):
        return {**super().get_properties(), **DEPLOY_PROPERTIES}

    def validate(self, task):
        """The BMC's parameters; and the deploy ISO, if the node's deploy
        interface boots the agent."""
        super().validate(task)
        if getattr(task.driver.deploy, 'uses_agent', False):
            deploy_iso(task.node)

    def validate_inspection(self, task):
        """The deploy ISO, which an inspection in band boots."""
        deploy_iso(task.node, needed_by='its agent inspect interface')

    # --- the agent's ramdisk --------------------------------------------

    def prepare_ramdisk(self, task):
        """Insert the agent's config image (with ``[deploy] http_url``)
        and the deploy ISO, and boot from the ISO once."""
        _insert_agent_config(task)
        _boot_once_from_cd(task, deploy_iso(task.node))

    def clean_up_ramdisk(self, task):
        """Eject the deploy ISO and the config image."""
        _eject(task)
        _eject_agent_config(task)

    def prepare_instance_from_disk(self, task):
        """The image is written: eject the deploy ISO and the config
        image, as Ironic does before the node boots its disk."""
        _eject(task)
        _eject_agent_config(task)

    # --- an instance booted from an ISO ---------------------------------

    def prepare_instance(self, task):
        """Insert the instance's ISO and boot from it once."""
        _boot_once_from_cd(task, ramdisk.boot_iso(task.node))

    def clean_up_instance(self, task):
        """Eject whatever the virtual CD drive holds."""
        _eject(task)
