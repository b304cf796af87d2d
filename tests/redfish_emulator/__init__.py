"""A Redfish BMC for tests: sushy-tools' emulator with our own backend.

The redfish hardware type is tested over real HTTP against sushy-tools'
``sushy-emulator``, never against mocks.  Its fake backend, though, answers
501 for BIOS, volumes and processors and 500 for SimpleUpdate, applies power
changes 1-11 s late and always reads a boot override back as Continuous.
This package runs the real emulator application with a backend of ours
that fills those gaps the way real BMCs behave:

- ``fixture.RedfishEmulator``: the test fixture (a process on 127.0.0.1);
- ``server``: the launcher, ``python -m tests.redfish_emulator.server``;
- ``systems``: power with a configurable delay, boots, boot override;
- ``computer_system``: the ComputerSystem resource around the stock view;
- ``bios``: current/pending attributes, applied on the next boot;
- ``storage``: a RAID controller whose volumes are made by tasks;
- ``updates``: SimpleUpdate as a task that changes ``BiosVersion`` (or the
  BMC's version, for a ``bmc*`` image);
- ``managers``: the Manager resource with the BMC's firmware version;
- ``tasks``: the task store and TaskService views;
- ``vmedia``: virtual media that records the URL instead of downloading;
- ``faults``: injected errors and hangs, per system;
- ``errors``: Redfish error bodies that name what was refused.

Importable by tests, ``tools/`` and ``benchmarks/`` alike.
"""

from tests.redfish_emulator.fixture import RedfishEmulator  # noqa: F401
