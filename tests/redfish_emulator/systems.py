"""The emulated computer systems: our extension of sushy-tools' fake driver.

sushy-tools' ``FakeDriver`` keeps systems in a small persistent store and
gives them power, boot device and mode, secure boot and NICs.  What it lacks
for the redfish hardware type's tests, this subclass adds:

- N systems with stable ids (``system_uuid(i)``) and names (``node-i``);
- power changes after a configurable delay (0 by default, so tests see the
  new state at once; ``'random'`` keeps the stock 1-11 s), and more reset
  types (PowerCycle, PushPowerButton, Nmi);
- a *boot*: every Off -> On transition.  A boot applies pending BIOS
  settings (``bios.apply_pending``), consumes a one-time boot override and
  counts (``boots``), which lets tasks wait for the next reset; what each
  boot booted from is kept (``boot_sources``: the override's target, or
  ``None`` for the firmware's own order);
- boot override frequency (Once / Continuous / Disabled), which the stock
  views ignore (they always read back Continuous);
- BIOS attributes and firmware versions (``BiosVersion``, and the
  Manager's ``BmcVersion``), processors and memory.

Everything is kept in the system's record in the stock persistent store
(``SUSHY_EMULATOR_STATE_DIR``), so a restarted emulator keeps it.  Request
serialisation (one request at a time) is the server's job, not this one's.
"""

import random
import time

from sushy_tools.emulator.resources.systems import fakedriver

from tests.redfish_emulator import bios
from tests.redfish_emulator import errors

POWER_DELAY = 'EMULATOR_POWER_DELAY'
"""Config key: seconds before a power change shows, or 'random' (1-11)."""
FIRST_BIOS_VERSION = '1.0.0'
#: What a Manager (the BMC) runs until a BMC image is flashed; sushy-tools'
#: own value.
FIRST_BMC_VERSION = '1.00'

RESET_TYPES = ('On', 'ForceOn', 'ForceOff', 'GracefulShutdown',
               'GracefulRestart', 'ForceRestart', 'PowerCycle',
               'PushPowerButton', 'Nmi')
BOOT_OVERRIDES = ('Once', 'Continuous', 'Disabled')


def system_uuid(index: int) -> str:
    """The stable UUID of system ``index`` (1-based)."""
    return '5e7f0000-0000-4000-8000-%012d' % index


def system_name(index: int) -> str:
    return 'node-%d' % index


def fake_systems(count: int) -> list:
    """The stock driver's ``SUSHY_EMULATOR_FAKE_SYSTEMS`` for N systems."""
    return [{'uuid': system_uuid(i), 'name': system_name(i),
             'power_state': 'Off', 'external_notifier': False,
             'nics': [{'mac': '52:54:00:00:%02x:%02x' % divmod(i, 256),
                       'ip': '127.0.0.1'}]}
            for i in range(1, count + 1)]


class EmulatedSystems(fakedriver.FakeDriver):
    """The fake driver, plus what a BMC of the redfish hardware type does."""

    def __init__(self):
        super().__init__()
        for uuid in self.systems:
            system = self._systems[uuid]
            if 'bios' not in system:  # first start, not a restart
                system.update(bios.initial_state())
                system.update(versions={'BiosVersion': FIRST_BIOS_VERSION,
                                        'BmcVersion': FIRST_BMC_VERSION},
                              boot_override='Disabled', boot_device='None',
                              boots=0, last_boot=None, boot_sources=[])
                self._systems[uuid] = system

    # Power and boots.

    def _power_delay(self):
        delay = self._config.get(POWER_DELAY, 0)
        if delay == 'random':
            return random.randint(1, 11)
        return float(delay)

    def set_power_state(self, identity, state):
        system = self._get(identity)
        if state not in RESET_TYPES:
            raise errors.value_not_in_list('ResetType', state, RESET_TYPES)
        if state == 'Nmi':
            return  # a diagnostic interrupt: the power state stays
        if state == 'PushPowerButton':
            state = 'On' if system['power_state'] == 'Off' else 'ForceOff'
        if state in ('GracefulRestart', 'ForceRestart', 'PowerCycle'):
            # Down at once; up (a boot) once the delay has passed.
            system['power_state'] = 'Off'
            target = 'On'
        else:
            target = 'On' if state in ('On', 'ForceOn') else 'Off'
        if target == system['power_state']:
            self._update(system, pending_power=None)
            return
        self._update(system, pending_power={
            'power_state': target,
            'apply_time': time.time() + self._power_delay()})
        self._update_if_needed(system)

    def _update_if_needed(self, system):
        # Called by the stock _get() on every read: a power change lands
        # when its time has come, and an Off -> On change is a boot.
        pending = system.get('pending_power')
        if pending and time.time() >= pending['apply_time']:
            changes = {'power_state': pending['power_state'],
                       'pending_power': None}
            if system['power_state'] == 'Off' and changes['power_state'] \
                    == 'On':
                changes.update(self._boot(system, pending['apply_time']))
            self._update(system, **changes)
        return system

    def _boot(self, system, now):
        source = (system['boot_device']
                  if system['boot_override'] != 'Disabled' else 'None')
        changes = {'boots': system['boots'] + 1, 'last_boot': now,
                   'boot_sources': system['boot_sources'] + [source]}
        applied = bios.apply_pending(system, now)
        changes.update(applied)
        if 'BootMode' in applied.get('bios', {}):
            changes['boot_mode'] = _boot_mode_of(applied['bios']['BootMode'])
        if system['boot_override'] == 'Once':
            changes.update(boot_override='Disabled', boot_device='None')
        return changes

    def boot_count(self, identity):
        """(boots so far, time of the last boot) of a system."""
        system = self._get(identity)
        return system['boots'], system['last_boot']

    def boot_sources(self, identity):
        """What each boot of a system booted from, in order."""
        return list(self._get(identity)['boot_sources'])

    # Boot device, frequency and mode.

    def get_boot_device(self, identity):
        return self._get(identity).get('boot_device', 'None')

    def get_boot_override(self, identity):
        return self._get(identity).get('boot_override', 'Disabled')

    def set_boot_override(self, identity, enabled):
        if enabled not in BOOT_OVERRIDES:
            raise errors.value_not_in_list(
                'Boot/BootSourceOverrideEnabled', enabled, BOOT_OVERRIDES)
        changes = {'boot_override': enabled}
        if enabled == 'Disabled':
            changes['boot_device'] = 'None'
        self._update(identity, **changes)

    def set_boot_mode(self, identity, boot_mode):
        if boot_mode not in ('UEFI', 'Legacy'):
            raise errors.value_not_in_list(
                'Boot/BootSourceOverrideMode', boot_mode, ('UEFI', 'Legacy'))
        system = self._get(identity)
        current = dict(system['bios'],
                       BootMode='Uefi' if boot_mode == 'UEFI' else 'Bios')
        self._update(system, boot_mode=boot_mode, bios=current)

    # BIOS and firmware.

    def get_bios(self, identity):
        return self._get(identity)['bios']

    def bios_state(self, identity):
        return self._get(identity)

    def stage_bios(self, identity, attributes, apply_time):
        system = self._get(identity)
        self._update(system, **bios.stage(system, attributes, apply_time))
        if apply_time == 'Immediate':
            system = self._get(identity)
            applied = bios.apply_pending(system, time.time())
            if 'BootMode' in applied['bios']:
                applied['boot_mode'] = _boot_mode_of(
                    applied['bios']['BootMode'])
            self._update(system, **applied)

    def stage_bios_reset(self, identity):
        system = self._get(identity)
        self._update(system, **bios.stage_reset(system))

    # Health (Status/Health of the System), set by tests.

    def get_health(self, identity):
        return self._get(identity).get('health', 'OK')

    def set_health(self, identity, health):
        self._update(self._get(identity), health=health)

    def get_versions(self, identity):
        return self._get(identity)['versions']

    def set_versions(self, identity, firmware_versions):
        system = self._get(identity)
        self._update(system, versions=dict(system['versions'],
                                           **firmware_versions))

    # Inventory the stock fake driver answers 501 for.

    def get_total_memory(self, identity):
        self._get(identity)
        return 64

    def get_total_cpus(self, identity):
        return len(self.get_processors(identity))

    def get_processors(self, identity):
        self._get(identity)
        return [{'id': 'CPU%d' % i, 'Id': 'CPU%d' % i,
                 'socket': 'CPU %d' % i, 'vendor': 'Intel(R) Corporation',
                 'model': 'Emulated Xeon', 'cores': 8, 'threads': 16}
                for i in range(2)]


def _boot_mode_of(bios_boot_mode):
    return 'UEFI' if bios_boot_mode == 'Uefi' else 'Legacy'
