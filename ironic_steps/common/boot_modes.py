"""The boot modes a node may have, as Ironic names them.

Shared by the API (which checks a requested mode), the conductor (which
records the mode a BMC reports) and the drivers (which set it).
"""

UEFI = 'uefi'
LEGACY_BIOS = 'bios'

#: Every boot mode, the default first.
BOOT_MODES = (UEFI, LEGACY_BIOS)
