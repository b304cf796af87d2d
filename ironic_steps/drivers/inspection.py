"""What an inspect interface hands the conductor: the hardware it found.

An inspect interface implements ``inspect_hardware(task)`` (see
:class:`ironic_steps.drivers.base.InspectInterface`), which returns one of:

* a :class:`Found`: the inspection is over (out of band, from the BMC);
  the conductor records it and the node is ``manageable`` again;
* :data:`WAIT`: the hardware reports later (in band, from a ramdisk);
  the node waits in ``inspect wait`` until it does, an operator aborts,
  or ``[conductor] inspect_wait_timeout`` passes.

It raises :class:`~ironic_steps.common.exception.HardwareInspectionFailure`
(or any error: a BMC's) when it cannot tell; the node goes to ``inspect
failed`` with the error as its ``last_error``.

*An inventory* is ironic-python-agent's format, which Ironic's redfish
inspection writes too, and which ``GET /v1/nodes/{node}/inventory``
(API 1.81) shows as it was recorded.  The keys the conductor reads (see
:data:`SCHEMA`, checked before anything is recorded)::

    {"cpu": {"count": 32, "architecture": "x86_64", ...},
     "memory": {"physical_mb": 65536},
     "disks": [{"name": "Physical disk 0", "size": 480000000000}, ...],
     "interfaces": [{"name": "eth0", "mac_address": "52:54:00:12:34:56",
                     "ipv4_address": null, ...}, ...],
     "system_vendor": {"manufacturer": ..., "product_name": ...,
                       "serial_number": ...},
     "boot": {"current_boot_mode": "uefi", "pxe_interface": null}}

Other keys are kept as they are.  *Plugin data* is a free-form JSON object
an inspection may add (Ironic's hooks write theirs there).

An interface never saves the node, writes ports or stores the inventory:
what that means for the node (its properties, its ports, the stored
inventory) is the conductor's business (``conductor/inspection.py``).
"""

import dataclasses

from ironic_steps.common import inventory_format
from ironic_steps.common import states

#: Returned by ``inspect_hardware`` whose hardware reports later.
WAIT = states.INSPECTWAIT

#: The parts of an inventory the conductor reads, as a JSON schema.
SCHEMA = inventory_format.SCHEMA


@dataclasses.dataclass(frozen=True)
class Found:
    """What an inspection found: an inventory and plugin data."""

    inventory: dict
    plugin_data: dict = dataclasses.field(default_factory=dict)
