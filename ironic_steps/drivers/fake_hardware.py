"""fake-hardware: every interface simulated, for tests, demos and CI."""

import types

from ironic_steps.drivers import hardware_type


class FakeHardware(hardware_type.AbstractHardwareType):
    supported_interfaces = types.MappingProxyType({
        'bios': ('fake',),
        'boot': ('fake',),
        'console': ('no-console',),
        'deploy': ('fake', 'fake-legacy', 'direct', 'custom-agent'),
        'firmware': ('fake', 'no-firmware'),
        'inspect': ('fake', 'agent', 'no-inspect'),
        'management': ('fake',),
        'network': ('noop', 'flat'),
        'power': ('fake',),
        'raid': ('fake',),
        'rescue': ('fake', 'no-rescue', 'agent'),
        'storage': ('noop',),
        'vendor': ('fake',),
    })
