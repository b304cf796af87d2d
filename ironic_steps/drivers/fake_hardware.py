"""fake-hardware: every interface simulated, for tests, demos and CI."""

import types

from ironic_steps.drivers import hardware_type


class FakeHardware(hardware_type.AbstractHardwareType):
    supported_interfaces = types.MappingProxyType({
        'bios': ('fake',),
        'boot': ('fake',),
        'deploy': ('fake', 'fake-legacy'),
        'management': ('fake',),
        'power': ('fake',),
        'raid': ('fake',),
        'vendor': ('fake',),
    })
