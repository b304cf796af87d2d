"""The ``example-hardware`` hardware type: which interfaces its nodes use."""

import types

from ironic_steps.drivers import hardware_type


class ExampleHardware(hardware_type.AbstractHardwareType):
    """Fake power, boot and management; its own deploy interface.

    Every name below is an entry point name in the
    ``ironic_steps.hardware.interfaces.<type>`` namespace; the first name of
    each type is what a new node gets by default.  ``fake`` interfaces come
    with ironic-steps, ``example`` comes from this package.
    """

    supported_interfaces = types.MappingProxyType({
        'bios': ('fake',),
        'boot': ('fake',),
        'deploy': ('example', 'fake'),
        'management': ('fake',),
        'power': ('fake',),
        'raid': ('fake',),
        'vendor': ('fake',),
    })
