"""Fake interfaces: a realistic deploy without hardware.

The default deploy of fake-hardware, highest priority first::

    100  deploy.deploy                  power off, boot the agent ramdisk
     80  deploy.write_image             asynchronous: the fake agent writes
                                        the image, then heartbeats
     60  management.set_instance_boot_device    } tied priority: the
     60  boot.prepare_instance_boot             } interface order decides
     20  power.boot_instance            power on into the new instance
      0  raid.apply_configuration       only when requested (builds its
                                        raid_config argument, else the
                                        node's target_raid_config)
      0  bios.apply_configuration       only when requested; the node's
                                        cached BIOS settings then show them
      0  bios.factory_reset             only when requested; clears them

Automated cleaning runs ``deploy.erase_devices_metadata`` (priority 10);
manual cleaning may also ask for ``deploy.erase_devices`` (asynchronous,
abortable: the fake agent heartbeats when it is done), and for the RAID and
BIOS steps above.

Operators and tests can make any fake step fail by naming it in the node's
``driver_info['fake_fail_step']`` (e.g. ``"boot.prepare_instance_boot"``;
``"power.set_power_state"`` and ``"power.reboot"`` fail those power
actions), and slow every step down with ``[fake] step_delay``.
"""

import time

from oslo_log import log

from ironic_steps.common import boot_modes
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.common import virtual_media
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers import bios
from ironic_steps.drivers import raid
from ironic_steps.drivers.modules import agent_client
from ironic_steps.drivers.modules import agent_config_media
from ironic_steps.drivers.modules import fake_machine
from ironic_steps.drivers import power_cycles
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

FAIL_STEP_KEY = 'fake_fail_step'
#: The boot devices fake management takes (deploys use both).
FAKE_BOOT_DEVICES = ('pxe', 'disk')
#: Where fake management keeps the images attached as virtual media
#: (``driver_internal_info``): {device type: image URL}.
VIRTUAL_MEDIA_KEY = 'fake_virtual_media'


def _fail_if_asked(task, name):
    if (task.node.driver_info or {}).get(FAIL_STEP_KEY) == name:
        raise exception.StepFailed(
            step=name,
            reason="simulated failure (driver_info/%s names this step)"
                   % FAIL_STEP_KEY)


def simulate(task, step_name):
    """Take ``[fake] step_delay`` seconds, failing if asked to."""
    if CONF.fake.step_delay:
        time.sleep(CONF.fake.step_delay)
    _fail_if_asked(task, step_name)


def _remember(task, key, value):
    """Keep what the fake hardware 'did' where operators can see it."""
    info = dict(task.node.driver_internal_info or {})
    info[key] = value
    task.node.driver_internal_info = info


#: How many times the fake machine booted (``driver_internal_info``):
#: something that plays the machine (a test booting a real agent when the
#: node boots its ramdisk) tells a reboot from a machine that stayed on.
BOOTS_KEY = 'fake_boots'


#: How many times the fake machine was powered off
#: (``driver_internal_info``): tells a machine that stayed on (API 1.95's
#: ``disable_power_off``) from one powered off and on.
POWER_OFFS_KEY = 'fake_power_offs'


def _count(task, key):
    _remember(task, key,
              (task.node.driver_internal_info or {}).get(key, 0) + 1)


def _count_boot(task):
    _count(task, BOOTS_KEY)


def _the_agent_finishes(task, label):
    """The running step waits; the fake agent heartbeats once the node
    is parked (its lock released).

    From release 0.14 the machine's agent, when one plays in this process,
    is handed its token with the work, out of band, as a real one is on
    virtual media: the token is made here (saved as the node parks, unless
    the flow has one already) and no lookup can take it first (see
    :mod:`agent_config_media`).  Without one, whoever plays the agent
    looks the node up for it.
    """
    kind, index = base.running_step_index(task, label)
    token = None
    if fake_machine.agent_takes_tokens() and not (
            release_mappings.pinned_before(CONF, '0.14')):
        token = ((task.node.driver_internal_info or {}).get(
            agent_client.TOKEN_KEY)
            or agent_config_media.mint_token(task.node))
    task.call_after_release(fake_machine.expect_heartbeat,
                            task.node.uuid, index, kind, token)
    return base.wait_for_agent(task)


class FakePower(base.PowerInterface):
    """Power that obeys at once; soft power off and soft reboot included."""

    #: What a power target leaves the node in.
    _RESULT = {states.POWER_ON: states.POWER_ON,
               states.POWER_OFF: states.POWER_OFF,
               states.SOFT_POWER_OFF: states.POWER_OFF,
               states.REBOOT: states.POWER_ON,
               states.SOFT_REBOOT: states.POWER_ON}

    reads_hardware = False

    def get_power_state(self, task):
        return task.node.power_state or states.POWER_OFF

    def set_power_state(self, task, power_state, timeout=None):
        if power_state not in self._RESULT:
            raise exception.InvalidParameterValue(
                err='Unknown power state %r; fake power accepts: %s' % (
                    power_state, ', '.join(self._RESULT)))
        _fail_if_asked(task, 'power.set_power_state')
        if (self._RESULT[power_state] == states.POWER_ON
                and task.node.power_state != states.POWER_ON):
            _count_boot(task)
        if (self._RESULT[power_state] == states.POWER_OFF
                and task.node.power_state != states.POWER_OFF):
            _count(task, POWER_OFFS_KEY)
        task.node.power_state = self._RESULT[power_state]

    def reboot(self, task, timeout=None):
        _fail_if_asked(task, 'power.reboot')
        _count_boot(task)
        task.node.power_state = states.POWER_ON

    def get_supported_power_states(self, task):
        return list(self._RESULT)

    @base.deploy_step(priority=20)
    def boot_instance(self, task):
        """Power the node on into the deployed instance."""
        simulate(task, 'power.boot_instance')
        power_cycles.power_on(task)


class FakeManagement(base.ManagementInterface):
    """Remembers the boot device it is given (``fake_boot_device`` and
    ``fake_boot_device_persistent`` in ``driver_internal_info``), and shows
    it; a node never given one boots from ``pxe``, once, as in Ironic's
    fake.  So with the boot mode (``fake_boot_mode``; ``uefi`` until set)
    and secure boot (``fake_secure_boot``; off until set, and only in
    ``uefi``, as firmware allows it), and the images attached as virtual
    media (:data:`VIRTUAL_MEDIA_KEY`)."""

    def get_supported_boot_devices(self, task):
        return list(FAKE_BOOT_DEVICES)

    def set_boot_device(self, task, device, persistent=False):
        if device not in FAKE_BOOT_DEVICES:
            raise exception.InvalidParameterValue(
                err='Unknown boot device %r; fake management supports: %s'
                    % (device, ', '.join(FAKE_BOOT_DEVICES)))
        _remember(task, 'fake_boot_device', device)
        _remember(task, 'fake_boot_device_persistent', bool(persistent))

    def get_boot_device(self, task):
        info = task.node.driver_internal_info or {}
        return {'boot_device': info.get('fake_boot_device', 'pxe'),
                'persistent': info.get('fake_boot_device_persistent',
                                       False)}

    def get_boot_mode(self, task):
        return (task.node.driver_internal_info or {}).get(
            'fake_boot_mode', boot_modes.UEFI)

    def set_boot_mode(self, task, mode):
        if mode not in boot_modes.BOOT_MODES:
            raise exception.InvalidParameterValue(
                err='Unknown boot mode %r; fake management supports: %s'
                    % (mode, ', '.join(boot_modes.BOOT_MODES)))
        if mode != boot_modes.UEFI and self.get_secure_boot_state(task):
            raise exception.InvalidParameterValue(
                err='Node %s has secure boot on, which needs uefi: turn it '
                    'off first' % task.node.uuid)
        _remember(task, 'fake_boot_mode', mode)

    def get_secure_boot_state(self, task):
        return bool((task.node.driver_internal_info or {}).get(
            'fake_secure_boot'))

    def set_secure_boot_state(self, task, state):
        if state and self.get_boot_mode(task) != boot_modes.UEFI:
            raise exception.InvalidParameterValue(
                err='Node %s boots in %s mode: secure boot needs uefi' % (
                    task.node.uuid, self.get_boot_mode(task)))
        _remember(task, 'fake_secure_boot', bool(state))

    def inject_nmi(self, task):
        """Counts the interrupts (``fake_nmi_count``)."""
        _remember(task, 'fake_nmi_count', (task.node.driver_internal_info
                                           or {}).get('fake_nmi_count', 0)
                  + 1)

    def attach_virtual_media(self, task, device_type, image_url):
        media = dict(self._virtual_media(task), **{device_type: image_url})
        _remember(task, VIRTUAL_MEDIA_KEY, media)

    def detach_virtual_media(self, task, device_types=None):
        media = {device: image for device, image
                 in self._virtual_media(task).items()
                 if device_types is not None and device not in device_types}
        _remember(task, VIRTUAL_MEDIA_KEY, media)

    def get_virtual_media(self, task):
        """One device per device type, as a BMC lists them."""
        media = self._virtual_media(task)
        return [{'media_types': list(virtual_media.MEDIA_TYPES[device]),
                 'inserted': device in media, 'image': media.get(device)}
                for device in virtual_media.DEVICE_TYPES]

    @staticmethod
    def _virtual_media(task):
        return (task.node.driver_internal_info or {}).get(
            VIRTUAL_MEDIA_KEY, {})

    @base.deploy_step(priority=60)
    def set_instance_boot_device(self, task):
        """Make the node boot from its local disk from now on."""
        simulate(task, 'management.set_instance_boot_device')
        self.set_boot_device(task, 'disk', persistent=True)


class FakeBoot(base.BootInterface):

    def prepare_ramdisk(self, task):
        """Boot the agent's ramdisk from the network; once the node is
        parked, the fake machine's agent starts (and reports its inventory
        if the node is inspected in band)."""
        task.driver.management.set_boot_device(task, 'pxe')
        task.call_after_release(fake_machine.ramdisk_booted, task.node.uuid)

    @base.deploy_step(priority=60)
    def prepare_instance_boot(self, task):
        """Install the boot loader of the new instance."""
        simulate(task, 'boot.prepare_instance_boot')


class FakeDeploy(base.DeployInterface):

    @base.deploy_step(priority=100)
    def deploy(self, task):
        """Power off and boot the agent ramdisk."""
        simulate(task, 'deploy.deploy')
        with power_cycles.booting(task):
            task.driver.management.set_boot_device(task, 'pxe')

    @base.deploy_step(priority=80)
    def write_image(self, task):
        """Ask the agent to write the image; it heartbeats when done."""
        simulate(task, 'deploy.write_image')
        return _the_agent_finishes(task, 'deploy.write_image')

    def tear_down_service(self, task):
        """Nothing to give back (no agent was booted); fails if asked."""
        _fail_if_asked(task, 'deploy.tear_down_service')

    def adopt_waiting(self, node_uuid, kind, step_index):
        # The fake agent plays the machine's: the node's new conductor
        # takes its heartbeats over.
        fake_machine.adopt(node_uuid, step_index, kind)

    @base.clean_step(priority=10)
    def erase_devices_metadata(self, task):
        """Wipe partition tables so the next user starts clean."""
        simulate(task, 'deploy.erase_devices_metadata')

    @base.clean_step(priority=0, abortable=True, argsinfo={
        'passes': {'description': 'How many times to overwrite every '
                                  'disk (int, default 1).',
                   'required': False}})
    def erase_devices(self, task, passes=1):
        """Ask the agent to overwrite every disk; it heartbeats when done.

        Off unless requested (manual cleaning): it takes a real agent hours.
        """
        if not isinstance(passes, int) or isinstance(passes, bool) or (
                passes < 1):
            raise exception.InvalidParameterValue(
                err='passes must be a positive integer, got %r' % (passes,))
        simulate(task, 'deploy.erase_devices')
        _remember(task, 'fake_erase_passes', passes)
        return _the_agent_finishes(task, 'deploy.erase_devices')


class FakeLegacyDeploy(base.DeployInterface):
    """A deploy interface written before deploy steps: only deploy()."""

    def deploy(self, task):
        task.driver.power.set_power_state(task, states.POWER_ON)


class FakeRaid(base.RAIDInterface):

    @base.deploy_step(priority=0, argsinfo=raid.APPLY_CONFIGURATION_ARGSINFO,
                      precheck=raid.check_apply_configuration)
    @base.clean_step(priority=0, argsinfo=raid.APPLY_CONFIGURATION_ARGSINFO,
                     precheck=raid.check_apply_configuration,
                     requires_ramdisk=False)
    @base.service_step(priority=0,
                       argsinfo=raid.APPLY_CONFIGURATION_ARGSINFO,
                       precheck=raid.check_apply_configuration,
                       requires_ramdisk=False)
    def apply_configuration(self, task, raid_config=None,
                            delete_existing=True):
        """Build the requested logical disks (by default the node's target
        RAID configuration) and record them in ``node.raid_config``."""
        raid_config = raid.layout_to_build(task, raid_config)
        simulate(task, 'raid.apply_configuration')
        _remember(task, 'fake_raid_config', raid_config)
        task.node.raid_config = raid_config


def _fake_registry_entry(attribute_type, **facts):
    return dict({'attribute_type': attribute_type, 'read_only': False,
                 'reset_required': True, 'unique': False}, **facts)


_ON_OFF = ['Enabled', 'Disabled']
#: What the fake BMC's attribute registry says of the settings it knows
#: (shown from API 1.74); a setting of any other name has no known facts.
FAKE_BIOS_REGISTRY = {
    'BootMode': _fake_registry_entry('Enumeration',
                                     allowable_values=['Uefi', 'Bios']),
    'LogicalProc': _fake_registry_entry('Enumeration',
                                        allowable_values=_ON_OFF),
    'ProcTurboMode': _fake_registry_entry('Enumeration',
                                          allowable_values=_ON_OFF),
    'ProcVirtualization': _fake_registry_entry('Enumeration',
                                               allowable_values=_ON_OFF),
    'SriovEnable': _fake_registry_entry('Enumeration',
                                        allowable_values=_ON_OFF),
    'PowerOnDelay': _fake_registry_entry('Integer', lower_bound=0,
                                         upper_bound=120),
    'AssetTag': _fake_registry_entry('String', min_length=0, max_length=32,
                                     unique=True),
}


class FakeBios(base.BiosInterface):
    """BIOS settings kept by the fake BMC, cached as a real BMC's are.

    A fake node starts with no cached settings.  ``apply_configuration``
    sets the named settings and leaves the others as they were, as a BMC
    does; ``factory_reset`` forgets them all (the fake BMC has no
    defaults to report).  After each, the node's cached settings (``GET
    /v1/nodes/{node}/bios``) are what the fake BMC holds, written in one
    transaction, except while the services are pinned to a release
    without the cache (then nothing is cached, as before).  The fake BMC
    describes the settings it knows in a small attribute registry
    (:data:`FAKE_BIOS_REGISTRY`); it checks no value against it.
    ``driver_internal_info['fake_bios_settings']`` keeps the last
    ``settings`` applied, as it always has.
    """

    @base.deploy_step(priority=0, argsinfo=bios.APPLY_CONFIGURATION_ARGSINFO)
    @base.clean_step(priority=0, argsinfo=bios.APPLY_CONFIGURATION_ARGSINFO,
                     requires_ramdisk=False)
    @base.service_step(priority=0, argsinfo=bios.APPLY_CONFIGURATION_ARGSINFO,
                       requires_ramdisk=False)
    def apply_configuration(self, task, settings):
        """Apply the requested BIOS settings."""
        applied = bios.requested_settings(settings)
        simulate(task, 'bios.apply_configuration')
        _remember(task, 'fake_bios_settings', settings)
        held = bios.cached_settings(task)
        held.update(applied)
        bios.cache_settings(task, bios.with_registry(
            held, FAKE_BIOS_REGISTRY, task.node.uuid))

    @base.deploy_step(priority=0)
    @base.clean_step(priority=0, requires_ramdisk=False)
    @base.service_step(priority=0, requires_ramdisk=False)
    def factory_reset(self, task):
        """Reset every BIOS setting to the factory's."""
        simulate(task, 'bios.factory_reset')
        _remember(task, 'fake_bios_settings', [])
        bios.cache_settings(task, {})


class FakeVendor(base.VendorInterface):
    """Offers no steps: proof that an interface may offer none."""
