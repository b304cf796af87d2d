"""redfish: servers whose BMC speaks Redfish, driven through sushy.

Interfaces carry Ironic's names, so an Ironic user's commands and node
definitions carry over: power and management ``redfish``, boot
``redfish-virtual-media``, bios and raid ``redfish``, and deploy:

* ``ramdisk``, the default: the node boots ``instance_info/boot_iso``
  from the virtual CD drive; no agent;
* ``direct``: the node boots ironic-python-agent from
  ``driver_info/deploy_iso`` in the virtual CD drive, the agent writes
  the image, and the node boots its disk.

Ironic's default is not ours: its redfish nodes get ``direct`` (since
Ironic 35.0, 2026.1: ``autodetect``, which chooses by the image and
falls back to ``direct``).  ``ramdisk`` stays
the default here because it was the only deploy interface before: a node
enrolled without a deploy interface keeps deploying as it did.

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
        'boot': ('redfish-virtual-media',),
        'deploy': ('ramdisk', 'direct'),
        'firmware': ('redfish', 'no-firmware'),
        'inspect': ('redfish', 'agent', 'no-inspect'),
        'management': ('redfish',),
        'power': ('redfish',),
        'raid': ('redfish',),
        'rescue': ('no-rescue', 'agent'),
    })
