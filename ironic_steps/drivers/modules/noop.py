"""No-op interfaces: what a node has for the interface types ironic-steps
does not run (console, network, rescue, storage) or that it does not use
(firmware, inspect), and the ``flat`` network interface, which needs no more.

They carry Ironic's names (``no-console``, ``no-firmware``,
``no-inspect``, ``noop``,
``no-rescue``, ``noop``) so that a node's ``*_interface`` fields read as
they would in Ironic.  As there, the ``no-*`` ones fail validation (the
node cannot do that) while the network and storage ``noop`` pass (a node
needs no switch or volume set-up to be deployed).  None offers steps.
"""

from ironic_steps.common import exception
from ironic_steps.drivers import base


class _Unsupported:
    """Validation says the node cannot do what this interface type does."""

    name = None

    def validate(self, task):
        raise exception.UnsupportedDriverExtension(
            node=task.node.uuid, extension=self.interface_type,
            interface=self.name)


class NoConsole(_Unsupported, base.ConsoleInterface):
    name = 'no-console'


class NoFirmware(_Unsupported, base.FirmwareInterface):
    name = 'no-firmware'


class NoInspect(_Unsupported, base.InspectInterface):
    name = 'no-inspect'


class NoRescue(_Unsupported, base.RescueInterface):
    name = 'no-rescue'


class NoopNetwork(base.NetworkInterface):
    """No switch ports to configure: the node's network is set up out of
    band, and VIFs are accepted and forgotten (as Ironic's ``noop``)."""


class FlatNetwork(base.NetworkInterface):
    """One flat network shared by every node: nothing to configure, but a
    VIF attached to the node is recorded on a free port or portgroup (the
    API's business, see ``api/controllers/node_resources.py``)."""

    records_vifs = True


class NoopStorage(base.StorageInterface):
    """No remote volumes: the node boots from its own disks."""
