"""redfish: servers whose BMC speaks Redfish, driven through sushy.

Interfaces carry Ironic's names, so an Ironic user's commands and node
definitions carry over: power and management ``redfish``, bios and raid
``redfish``, boot:

* ``redfish-virtual-media``, the default: ISOs through the BMC's virtual
  CD drive;
* ``ipxe`` (release 0.14): the node network-boots the agent's kernel and
  ramdisk through an iPXE script the conductor writes under ``[deploy]
  http_root`` (:mod:`ironic_steps.drivers.modules.ipxe`), as Metal3 enrols
  a plain ``redfish://`` BMC;

and deploy:

* ``direct``, the default (release 0.14, as Ironic's): the node boots
  ironic-python-agent, the agent writes the image, and the node boots its
  disk;
* ``ramdisk``: the node boots ``instance_info/boot_iso`` from the virtual
  CD drive; no agent;
* ``custom-agent`` (release 0.14): the agent boots and runs only the
  deploy steps the user gives (Metal3's ``customDeploy``).

``ramdisk`` was the default before release 0.14 (the only deploy
interface at first), and stays it while the services are pinned to an
earlier release: a rolling upgrade does not change how new nodes deploy
until every conductor can run ``direct``.  Ironic's is ``direct`` (since
Ironic 35.0, 2026.1: ``autodetect``, which chooses by the image and falls
back to ``direct``).

Inspect is ``redfish`` (release 0.11: the BMC's view of the hardware, as
Ironic's redfish inspection reads it), ``agent`` (release 0.12: the agent,
booted from ``driver_info/deploy_iso``, reports it) or ``no-inspect``;
rescue is ``no-rescue`` unless ``agent`` is asked for (release 0.12: the
agent's ramdisk as the rescue environment).  Firmware is ``redfish``
(release 0.12: ``firmware.update`` through the BMC's UpdateService, and
the BIOS and BMC versions it reports) or ``no-firmware``.  The other
interface types get their no-op implementations.
"""

import types

from ironic_steps.drivers import hardware_type


class RedfishHardware(hardware_type.AbstractHardwareType):

    #: The first release that has this hardware type: while pinned to an
    #: older one, nodes cannot use it (its conductors would not load it).
    since_release = '0.4'

    supported_interfaces = types.MappingProxyType({
        'bios': ('redfish',),
        'boot': ('redfish-virtual-media', 'ipxe'),
        'deploy': ('direct', 'ramdisk', 'custom-agent'),
        'firmware': ('redfish', 'no-firmware'),
        'inspect': ('redfish', 'agent', 'no-inspect'),
        'management': ('redfish',),
        'power': ('redfish',),
        'raid': ('redfish',),
        'rescue': ('no-rescue', 'agent'),
    })
    former_defaults = types.MappingProxyType({
        'deploy': ('0.14', 'ramdisk'),
    })
