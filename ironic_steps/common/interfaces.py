"""The interface types a node has: their names, and nothing else.

The API validates a node's ``*_interface`` fields and lists a driver's
interfaces by these names; drivers implement them (the classes are in
:mod:`ironic_steps.drivers.base`, which re-exports the names for driver
authors).  Both sides import them from here, below both.
"""

#: Every interface type a node has, in the order they are listed on a node
#: (Ironic's: alphabetical).  Console, network, rescue and storage are not
#: run by ironic-steps; nodes get their no-op implementations
#: (:mod:`ironic_steps.drivers.modules.noop`) so that a node's
#: ``*_interface`` fields say what it really has.  Inspect is run
#: (``fake``, ``redfish``; release 0.11), and ``no-inspect`` is there for
#: nodes that are not inspected.  Firmware (``fake``, ``redfish``; release
#: 0.12) has ``no-firmware`` for nodes whose firmware is not managed.
ALL_INTERFACES = ('bios', 'boot', 'console', 'deploy', 'firmware', 'inspect',
                  'management', 'network', 'power', 'raid', 'rescue',
                  'storage', 'vendor')
