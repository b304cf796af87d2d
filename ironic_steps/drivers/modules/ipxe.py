"""The ``ipxe`` boot interface: the agent's kernel and ramdisk over HTTP.

As Ironic's boot interface of that name, for the agent's ramdisk (a
deploy, cleaning, inspection or rescue that boots ironic-python-agent):
the machine network-boots iPXE (its DHCP server's business, as with
Ironic), iPXE fetches ``boot.ipxe`` from the web server that serves
``[deploy] http_root``, and that script chains the script of the
machine's MAC, which boots the node's agent::

    <http_root>/boot.ipxe                 chains pxelinux.cfg/${mac:hexhyp}
    <http_root>/pxelinux.cfg/52-54-00-..  a link to ../<node uuid>/config,
                                          one per PXE-enabled port
    <http_root>/<node uuid>/config        kernel driver_info/deploy_kernel,
                                          initrd driver_info/deploy_ramdisk

``prepare_ramdisk`` writes them (through :mod:`common.http_root`) and sets
the node's one-time boot device to the network (for a redfish node, the
BMC's boot override ``Pxe``, once); ``clean_up_ramdisk`` and
``prepare_instance_from_disk`` remove the node's script and links.  The
agent is told where the API is (``ipa-api-url``: ``[api]
public_endpoint``, else the address the API listens on) on the kernel
command line, after ``driver_info/kernel_append_params``.

Not here: booting an instance over the network (an instance boots its
disk; the ``ramdisk`` deploy needs a boot interface that boots an ISO),
Glance image ids (``deploy_kernel`` and ``deploy_ramdisk`` are http(s)
URLs), and serving the files (a web server does).  Since release 0.14.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import http_root
from ironic_steps.drivers import base
from ironic_steps.drivers.modules import agent_config_media

LOG = log.getLogger(__name__)

SINCE_RELEASE = '0.14'
KERNEL, RAMDISK = 'deploy_kernel', 'deploy_ramdisk'
APPEND_PARAMS = 'kernel_append_params'
PROPERTIES = {
    KERNEL: 'The http(s) URL of the kernel of ironic-python-agent\'s '
            'ramdisk, which iPXE boots. Required.',
    RAMDISK: 'The http(s) URL of the initramfs of ironic-python-agent\'s '
             'ramdisk, which iPXE boots. Required.',
    APPEND_PARAMS: 'More kernel parameters for the agent\'s ramdisk. '
                   'Optional.',
}
#: Where the per-MAC links are, and the dispatcher every machine fetches.
LINKS_DIRECTORY = 'pxelinux.cfg'
DISPATCHER = 'boot.ipxe'
#: The dispatcher: iPXE resolves the chained path against its own URL.
DISPATCHER_SCRIPT = """#!ipxe
# Written by ironic-steps: boot the script of this machine's MAC.
chain pxelinux.cfg/${mac:hexhyp} || goto no_config

:no_config
echo No boot configuration for MAC ${mac}; rebooting in 60 seconds.
sleep 60
reboot
"""
#: A node's script; iPXE retries a download that fails, then powers off.
NODE_SCRIPT = """#!ipxe
# Written by ironic-steps for node %(node)s: its agent's ramdisk.
set attempts:int32 10
set i:int32 0

:deploy
imgfree
kernel --timeout 60000 %(kernel)s initrd=deploy_ramdisk %(params)s || goto retry
initrd --name deploy_ramdisk --timeout 60000 %(ramdisk)s || goto retry
boot

:retry
iseq ${i} ${attempts} && goto fail ||
inc i
echo Download failed; retrying in 10 seconds.
sleep 10
goto deploy

:fail
echo Download failed ${attempts} times; powering off in 30 seconds.
sleep 30
poweroff
"""


def deploy_images(node, needed_by=None):
    """The agent's kernel and ramdisk URLs from ``driver_info``.

    :param needed_by: what boots the agent, for the error.
    :raises MissingParameterValue: naming both keys when either is
        missing; InvalidParameterValue for one that is no http(s) URL.
    """
    info = node.driver_info or {}
    missing = [key for key in (KERNEL, RAMDISK) if not info.get(key)]
    if missing:
        raise exception.MissingParameterValue(
            err='node %s boots the agent with iPXE%s and needs '
                'driver_info/%s and driver_info/%s, the http(s) URLs of '
                'the agent\'s kernel and ramdisk; missing: %s' % (
                    node.uuid, ' for %s' % needed_by if needed_by else '',
                    KERNEL, RAMDISK,
                    ', '.join('driver_info/%s' % key for key in missing)))
    for key in (KERNEL, RAMDISK):
        if not isinstance(info[key], str) or not info[key].startswith(
                ('http://', 'https://')) or any(c.isspace()
                                                for c in info[key]):
            raise exception.InvalidParameterValue(
                err='driver_info/%s of node %s must be an http(s) URL'
                    % (key, node.uuid))
    return info[KERNEL], info[RAMDISK]


def node_script(node) -> str:
    """The iPXE script that boots ``node``'s agent."""
    kernel, ramdisk = deploy_images(node)
    extra = (node.driver_info or {}).get(APPEND_PARAMS) or ''
    if not isinstance(extra, str) or any(
            ord(character) < 0x20 or character == '\x7f'
            for character in extra):
        raise exception.InvalidParameterValue(
            err='driver_info/%s of node %s must be a string of kernel '
                'parameters on one line, without control characters'
                % (APPEND_PARAMS, node.uuid))
    params = ' '.join(part for part in (
        extra.strip(), 'BOOTIF=${mac}',
        'ipa-api-url=%s' % agent_config_media.api_url()) if part)
    return NODE_SCRIPT % {'node': node.uuid, 'kernel': kernel,
                          'ramdisk': ramdisk, 'params': params}


def mac_link_name(address: str) -> str:
    """iPXE's ``${mac:hexhyp}`` of a MAC address."""
    return address.lower().replace(':', '-')


def _node_config(node_uuid):
    return '%s/config' % node_uuid


def _link_target(node_uuid):
    return '../%s' % _node_config(node_uuid)


class IPXEBoot(base.BootInterface):
    """``ipxe``: see the module docstring."""

    #: Not offered, nor set on a node, while pinned before it.
    since_release = SINCE_RELEASE

    def get_properties(self):
        return dict(PROPERTIES)

    def validate(self, task):
        """The agent's kernel and ramdisk, which every agent flow boots."""
        deploy_images(task.node)

    def validate_inspection(self, task):
        deploy_images(task.node, needed_by='its agent inspect interface')

    # --- the agent's ramdisk --------------------------------------------

    def prepare_ramdisk(self, task):
        """Write the node's script and its MACs' links; boot from the
        network once."""
        node = task.node
        script = node_script(node)
        http_root.publish(DISPATCHER, DISPATCHER_SCRIPT)
        http_root.publish(_node_config(node.uuid), script)
        macs = [port.address for port in task.ports if port.pxe_enabled]
        if not macs:
            LOG.warning('Node %s boots with iPXE but has no PXE-enabled '
                        'port: no MAC chains to its script', node.uuid)
        for mac in macs:
            http_root.link('%s/%s' % (LINKS_DIRECTORY, mac_link_name(mac)),
                           _link_target(node.uuid))
        task.driver.management.set_boot_device(task, 'pxe',
                                               persistent=False)

    def clean_up_ramdisk(self, task):
        """Remove the node's script and every link to it."""
        node_uuid = task.node.uuid
        for name in http_root.links_to(LINKS_DIRECTORY,
                                       _link_target(node_uuid)):
            http_root.remove('%s/%s' % (LINKS_DIRECTORY, name))
        http_root.remove(node_uuid)

    def prepare_instance_from_disk(self, task):
        """The image is written: the node no longer boots its agent."""
        self.clean_up_ramdisk(task)
