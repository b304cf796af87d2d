"""Hardware types: which interface implementations a node may use."""

import types


class AbstractHardwareType:
    """A family of machines and the interface implementations it supports.

    ``supported_interfaces`` maps each interface type (see
    :data:`ironic_steps.drivers.base.ALL_INTERFACES`) to the entry point
    names of the implementations a node of this type may use; the first is
    the default.  An interface type the hardware type does not list gets the
    no-op implementation of the matching base class.
    """

    supported_interfaces = types.MappingProxyType({})

    def supported(self, interface_type):
        return tuple(self.supported_interfaces.get(interface_type, ()))

    def default(self, interface_type):
        names = self.supported(interface_type)
        return names[0] if names else None
