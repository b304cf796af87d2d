"""redfish: servers whose BMC speaks Redfish, driven through sushy.

Interfaces carry Ironic's names, so an Ironic user's commands and node
definitions carry over: power and management ``redfish``, boot
``redfish-virtual-media``, deploy ``ramdisk`` (the node boots an ISO; no
agent), bios and raid ``redfish``.  The other interface types get their
no-op implementations.
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
        'deploy': ('ramdisk',),
        'management': ('redfish',),
        'power': ('redfish',),
        'raid': ('redfish',),
    })
