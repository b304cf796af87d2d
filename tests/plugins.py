"""Test-only driver plug-ins, served as if they were installed."""

import types

import fixtures

from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import driver_factory
from ironic_steps.drivers import hardware_type


class SimplePower(base.PowerInterface):
    """Power without steps, so a plan holds only the test's own steps."""

    def get_power_state(self, task):
        return task.node.power_state or states.POWER_OFF

    def set_power_state(self, task, power_state):
        task.node.power_state = power_state


class HardwarePlugin(fixtures.Fixture):
    """Serve a hardware type and its interfaces as if they were installed.

    ``HardwarePlugin('hw', deploy=SomeDeploy())`` makes hardware type ``hw``
    (enabled) whose nodes get the given interface objects, plus
    :class:`SimplePower` unless a power interface is given; interface types
    not given are left out, as a real hardware type may.  The entry point
    loader is the only thing replaced: every other name still loads from
    the installed entry points.
    """

    def __init__(self, name, **interfaces):
        super().__init__()
        self.name = name
        self.interfaces = {'power': SimplePower(), **interfaces}

    def _setUp(self):
        hw_type = hardware_type.AbstractHardwareType()
        hw_type.supported_interfaces = types.MappingProxyType(
            {kind: (self.name,) for kind in self.interfaces})
        plugins = {(driver_factory.HARDWARE_TYPES_NAMESPACE, self.name):
                   hw_type}
        for kind, interface in self.interfaces.items():
            plugins[driver_factory.INTERFACES_NAMESPACE % kind,
                    self.name] = interface
        load = driver_factory._load

        def load_test_plugins_first(namespace, name):
            if (namespace, name) in plugins:
                return plugins[namespace, name]
            return load(namespace, name)

        self.useFixture(fixtures.MockPatchObject(
            driver_factory, '_load', load_test_plugins_first))
        # Loaded plug-ins are cached: forget ours when the test ends.
        driver_factory._cached.cache_clear()
        self.addCleanup(driver_factory._cached.cache_clear)
        enabled = list(CONF.enabled_hardware_types)
        CONF.set_override('enabled_hardware_types', enabled + [self.name])
        self.addCleanup(CONF.clear_override, 'enabled_hardware_types')
