"""The conductor's RPC endpoints about a node's hardware and driver.

Questions and settings that act on the hardware at once, without a flow:
the target RAID layout, interface validation, the boot device, the
console, vendor passthru methods, a driver's properties.  Those that
change the node take its lock; those that only read share it.
"""

from ironic_steps.conductor import endpoint_base
from ironic_steps.conductor import task_manager
from ironic_steps.conductor import validation
from ironic_steps.common import exception
from ironic_steps.drivers import driver_factory


class HardwareEndpoints:
    """RPC endpoints that ask or set something of a node's hardware."""

    target = endpoint_base.target()

    def __init__(self, host, acquire):
        """:param acquire: ``acquire(context, node_id, **kwargs)``, the
            conductor's exclusive task on a node."""
        self.host = host
        self._acquire = acquire

    @endpoint_base.expected
    def set_target_raid_config(self, context, node_id, target_raid_config):
        """Store the RAID layout a node should get, once its RAID interface
        accepted it; ``{}`` clears it.

        :raises UnsupportedDriverExtension: if the node has no RAID.
        :raises InvalidParameterValue: naming what is wrong in the layout.
        """
        with self._acquire(context, node_id,
                           purpose='setting target RAID config') as task:
            raid = task.driver.raid
            if not hasattr(raid, 'validate_raid_config'):
                raise exception.UnsupportedDriverExtension(
                    node=task.node.uuid, extension='RAID',
                    interface=task.node.raid_interface or 'none')
            if target_raid_config:
                raid.validate_raid_config(task, target_raid_config)
            task.node.target_raid_config = target_raid_config
            task.save_and_release()

    @endpoint_base.expected
    def validate_driver_interfaces(self, context, node_id):
        """{interface: {'result': bool, 'reason': str or None}}."""
        with task_manager.acquire(context, node_id, shared=True,
                                  purpose='interface validation') as task:
            return validation.validate_interfaces(task, self.host)

    @endpoint_base.expected
    def get_driver_properties(self, context, driver_name):
        """{property: description} the driver's default interfaces read."""
        return driver_factory.driver_properties(driver_name)

    # --- a node's BMC, console and vendor extensions (RPC 1.3) ----------

    @endpoint_base.expected
    def get_boot_device(self, context, node_id):
        """{'boot_device': name or None, 'persistent': bool or None}."""
        with self._acquire(context, node_id,
                           purpose='getting boot device') as task:
            task.driver.management.validate(task)
            return task.driver.management.get_boot_device(task)

    @endpoint_base.expected
    def set_boot_device(self, context, node_id, device, persistent=False):
        """:raises InvalidParameterValue: for a device the node's
            management does not support."""
        with self._acquire(context, node_id,
                           purpose='setting boot device') as task:
            task.driver.management.validate(task)
            task.driver.management.set_boot_device(task, device,
                                                   persistent=persistent)
            task.save_and_release()

    @endpoint_base.expected
    def inject_nmi(self, context, node_id):
        """Send the node a non-maskable interrupt (RPC 1.9).

        :raises UnsupportedDriverExtension: for a management interface
            that cannot."""
        with self._acquire(context, node_id,
                           purpose='injecting an NMI') as task:
            task.driver.management.validate(task)
            task.driver.management.inject_nmi(task)
            task.save_and_release()

    @endpoint_base.expected
    def get_supported_boot_devices(self, context, node_id):
        with task_manager.acquire(context, node_id, shared=True,
                                  purpose='listing boot devices') as task:
            return task.driver.management.get_supported_boot_devices(task)

    @endpoint_base.expected
    def set_console_mode(self, context, node_id, enabled):
        """Start or stop a node's console.

        :raises UnsupportedDriverExtension: for a console interface that
            cannot (``no-console``, the only one here), as its validation
            says.
        """
        with self._acquire(context, node_id,
                           purpose='setting console mode') as task:
            task.driver.console.validate(task)
            if bool(task.node.console_enabled) == enabled:
                return
            if enabled:
                task.driver.console.start_console(task)
            else:
                task.driver.console.stop_console(task)
            task.node.console_enabled = enabled
            task.save_and_release()

    @endpoint_base.expected
    def get_node_vendor_passthru_methods(self, context, node_id):
        with task_manager.acquire(context, node_id, shared=True,
                                  purpose='listing vendor methods') as task:
            return task.driver.vendor.vendor_routes()

    @endpoint_base.expected
    def get_driver_vendor_passthru_methods(self, context, driver_name):
        return driver_factory.default_interface(
            driver_name, 'vendor').driver_routes()

    @endpoint_base.expected
    def get_raid_logical_disk_properties(self, context, driver_name):
        """{property: description} of a logical disk, for the default RAID
        interface of ``driver_name``."""
        return driver_factory.default_interface(
            driver_name, 'raid').get_logical_disk_properties()
