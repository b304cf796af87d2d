"""Hardware types: which interface implementations a node may use."""

import types

#: What a node gets for an interface type ironic-steps does not run, when
#: its hardware type does not say otherwise (Ironic's no-op names; see
#: :mod:`ironic_steps.drivers.modules.noop`).
NOOP_INTERFACES = types.MappingProxyType({
    'console': 'no-console',
    'firmware': 'no-firmware',
    'inspect': 'no-inspect',
    'network': 'noop',
    'rescue': 'no-rescue',
    'storage': 'noop',
})


class AbstractHardwareType:
    """A family of machines and the interface implementations it supports.

    ``supported_interfaces`` maps each interface type (see
    :data:`ironic_steps.common.interfaces.ALL_INTERFACES`) to the entry point
    names of the implementations a node of this type may use; the first is
    the default.  An interface type the hardware type does not list gets
    its no-op implementation from :data:`NOOP_INTERFACES`, or, for the
    others, the step-less stand-in of the matching base class.

    ``former_defaults`` maps an interface type whose default changed to
    ``(release, former default)``: while the services are pinned to a
    release before ``release``, a node enrolled without that interface
    gets the former default (a rolling upgrade must not change how new
    nodes behave until every service has the new release).
    """

    supported_interfaces = types.MappingProxyType({})
    former_defaults = types.MappingProxyType({})

    def supported(self, interface_type):
        names = self.supported_interfaces.get(interface_type)
        if names is None and interface_type in NOOP_INTERFACES:
            return (NOOP_INTERFACES[interface_type],)
        return tuple(names or ())

    def default(self, interface_type):
        names = self.supported(interface_type)
        return names[0] if names else None
