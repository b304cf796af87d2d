"""What a driver author writes against: step decorators and interfaces.

A *step* is a method of a driver interface, marked with :func:`deploy_step`,
:func:`clean_step` or :func:`service_step`, that the conductor may run
while deploying, cleaning or servicing a node.  The decorators are front
doors to one machinery: they validate their arguments when applied, so a
driver with a bad declaration fails at import time with a message naming
the method, and they record a :class:`StepMark` on the function.
:class:`BaseInterface` gathers the marks of every subclass when the class
is created and offers them through ``get_deploy_steps`` /
``get_clean_steps`` / ``get_service_steps``.

The decorators and the declarations they take (argsinfo, ``timeout``,
``resumable``, ``precheck``, ``requires_ramdisk``) are described in
:mod:`ironic_steps.drivers.step_decorators`; they are named here too,
where driver authors look for them.
"""

import copy

from ironic_steps.common import exception
from ironic_steps.common import interfaces
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.drivers import power_cycles
from ironic_steps.drivers import raid
from ironic_steps.drivers.step_decorators import check_timeout  # noqa
from ironic_steps.drivers.step_decorators import clean_step  # noqa
from ironic_steps.drivers.step_decorators import deploy_step  # noqa
from ironic_steps.drivers.step_decorators import service_step  # noqa
from ironic_steps.drivers.step_decorators import StepMark  # noqa
# A running step's ways to wait and report, named here for driver authors
# (base.poll_step, base.wait_for_agent, ...); they live in flow_helpers.
from ironic_steps.drivers.flow_helpers import AGENT_COMMAND_KEY  # noqa
from ironic_steps.drivers.flow_helpers import DONE  # noqa
from ironic_steps.drivers.flow_helpers import MAX_PROGRESS_MESSAGE  # noqa
from ironic_steps.drivers.flow_helpers import poll_step  # noqa
from ironic_steps.drivers.flow_helpers import POLLING_KEY  # noqa
from ironic_steps.drivers.flow_helpers import PROGRESS_KEY  # noqa
from ironic_steps.drivers.flow_helpers import report_progress  # noqa
from ironic_steps.drivers.flow_helpers import running_flow  # noqa
from ironic_steps.drivers.flow_helpers import running_step_index  # noqa
from ironic_steps.drivers.flow_helpers import update_poll  # noqa
from ironic_steps.drivers.flow_helpers import wait_for_agent  # noqa

# Defined in common, below the API that shares them; named here too, where
# driver authors and the conductor look for them.
DEPLOY = step_kinds.DEPLOY
CLEAN = step_kinds.CLEAN
SERVICE = step_kinds.SERVICE
STEP_KINDS = step_kinds.STEP_KINDS
RESERVED_STEP_NAMES = step_kinds.RESERVED_STEP_NAMES
ALL_INTERFACES = interfaces.ALL_INTERFACES


class BaseInterface:
    """Base of every driver interface; any interface may offer steps.

    Interfaces are shared between tasks and threads: keep per-node state on
    ``task.node``, never on ``self``.
    """

    #: The interface type ('deploy', 'power', ...); set by each base class.
    interface_type = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        marks = {kind: {} for kind in STEP_KINDS}
        for attr in dir(cls):
            for kind, mark in getattr(getattr(cls, attr, None),
                                      '_step_marks', {}).items():
                marks[kind][attr] = mark
        cls._steps_by_kind = marks

    def validate(self, task):
        """Check that ``task.node`` has what this interface needs.

        :raises InvalidParameterValue: or MissingParameterValue.
        """

    def get_properties(self):
        """What this interface reads from ``node.driver_info``.

        :returns: {property name: description}; the description says
            whether it is required.
        """
        return {}

    def get_steps(self, task, kind):
        """The steps of ``kind`` this interface offers, as step dicts."""
        steps = []
        for name, mark in sorted(self._steps_by_kind[kind].items()):
            step = {'interface': self.interface_type, 'step': name,
                    'priority': mark.priority,
                    'argsinfo': copy.deepcopy(mark.argsinfo)}
            if kind != DEPLOY:
                step['abortable'] = mark.abortable
            # Only when declared: a step dict without them is Ironic's.
            if mark.timeout is not None:
                step['timeout'] = mark.timeout
            if not mark.resumable:
                step['resumable'] = False
            steps.append(step)
        return steps

    def precheck_step(self, task, name, kind, args):
        """Run the precheck step ``name`` of ``kind`` declares, if any.

        :raises InvalidParameterValue: or MissingParameterValue, when the
            step could not run on ``task.node`` with ``args``.
        """
        mark = self._steps_by_kind[kind].get(name)
        if mark is not None and mark.precheck is not None:
            mark.precheck(task, **args)

    def step_requires_ramdisk(self, name, kind):
        """Whether step ``name`` of ``kind`` needs the node's agent (a step
        this interface does not declare: True, the safe answer)."""
        mark = self._steps_by_kind[kind].get(name)
        return mark is None or mark.requires_ramdisk

    def execute_step(self, task, step, kind):
        """Run the step method named by ``step`` with ``step['args']``.

        :returns: None when done, or the kind's wait state when the step
            goes on asynchronously.
        :raises InvalidStep: when this interface has no such step.
        """
        name = step['step']
        if name not in self._steps_by_kind[kind]:
            raise exception.InvalidStep(
                reason='%s interface %s has no %s step %s; it offers: %s' % (
                    self.interface_type, type(self).__name__, kind, name,
                    ', '.join(sorted(self._steps_by_kind[kind])) or 'none'))
        return getattr(self, name)(task, **(step.get('args') or {}))

    def get_deploy_steps(self, task):
        """Get the deploy steps this interface can perform on a node."""
        return self.get_steps(task, DEPLOY)

    def execute_deploy_step(self, task, step):
        """Execute a deploy step: None if done, DEPLOYWAIT if it goes on."""
        return self.execute_step(task, step, DEPLOY)

    def get_clean_steps(self, task):
        """Get the clean steps this interface can perform on a node."""
        return self.get_steps(task, CLEAN)

    def execute_clean_step(self, task, step):
        """Execute a clean step: None if done, CLEANWAIT if it goes on."""
        return self.execute_step(task, step, CLEAN)

    def get_service_steps(self, task):
        """Get the service steps this interface can perform on a node."""
        return self.get_steps(task, SERVICE)

    def execute_service_step(self, task, step):
        """Execute a service step: None if done, SERVICEWAIT if it goes
        on."""
        return self.execute_step(task, step, SERVICE)


class DeployInterface(BaseInterface):
    """Writes the image and makes the node boot it.

    New interfaces offer ``deploy`` (and friends) as deploy steps.  An
    interface written before deploy steps implements only :meth:`deploy`
    and, if that returns DEPLOYWAIT, :meth:`continue_deploy`; the conductor
    still runs it that way, with a deprecation warning.
    """

    interface_type = 'deploy'

    def deploy(self, task):
        """Legacy entry point: the whole deploy in one call.

        :returns: None when done, or ``states.DEPLOYWAIT``.
        """
        raise NotImplementedError(
            '%s implements neither deploy steps nor deploy()'
            % type(self).__name__)

    def continue_deploy(self, task):
        """Legacy: finish a deploy that ``deploy()`` left waiting.

        Called when the agent heartbeats for a node deployed the old way.
        :returns: None when done, or ``states.DEPLOYWAIT`` to keep waiting.
        """

    def adopt_waiting(self, node_uuid, kind, step_index):
        """This conductor now owns a node whose step ``step_index`` of a
        ``kind`` flow (deploy, clean) waits for this interface's agent:
        the node's conductor died or restarted.

        A real agent runs on the node and heartbeats to whichever conductor
        owns it, so there is nothing to do (the default); an interface
        whose agent lives in the conductor's process must start serving
        the node here.  Called without a lock, at start-up and at each
        take-over; it must be idempotent.
        """

    def tear_down(self, task):
        """Undo the deploy: power off (see
        :func:`power_cycles.power_off_or_reboot`) and remove what was
        written."""
        power_cycles.power_off_or_reboot(task)

    # --- an agent on the node -------------------------------------------
    #: Whether this interface drives an agent that offers steps of its own
    #: (in-band steps, see conductor/agent_steps.py).
    uses_agent = False

    def heartbeat(self, task):
        """The node's agent heartbeated while a step waits for it.

        :returns: :data:`DONE` when the waiting step is done (the flow goes
            on), None while it is not (the node goes on waiting).
        :raises StepFailed: when the step failed, with the reason.

        By default a heartbeat means the agent finished its work.
        """
        return DONE

    def agent_steps(self, task, kind):
        """The steps of ``kind`` the node's agent offers, as it reports
        them, asked at its first heartbeat in a flow; only called when
        :attr:`uses_agent`."""
        raise NotImplementedError()

    def execute_in_band_step(self, task, step, kind):
        """Have the node's agent run ``step`` (a step dict, ``in_band``).

        :returns: the flow's wait state (see :func:`wait_for_agent`): the
            agent's heartbeats say when it is done.
        """
        raise exception.InvalidStep(
            reason='%s deploy interface %s drives no agent, so it cannot run '
                   'in-band %s step %s.%s' % (
                       task.node.uuid, type(self).__name__, kind,
                       step['interface'], step['step']))

    def prepare_cleaning(self, task):
        """Before a node's clean steps: boot what runs them.

        :returns: None to run the clean steps now, or the clean wait
            state (:func:`wait_for_agent`) when the steps wait for an
            agent to boot and report them.
        """

    def tear_down_cleaning(self, task):
        """After the clean steps: power off what ran them."""

    def prepare_service(self, task):
        """Before an active node's service steps: boot what runs them.

        :returns: None to run the service steps now, or the service wait
            state (:func:`wait_for_agent`) when they wait for an agent.
        """

    def tear_down_service(self, task):
        """After the service steps: the node runs its instance again."""


class PowerInterface(BaseInterface):
    """Reads and changes a node's power.

    ``set_power_state`` and ``reboot`` take ``timeout`` (seconds, or None
    for the interface's default) only when a caller gives one, so an
    interface written without that argument keeps working for plain
    power on, power off and reboot.
    """

    interface_type = 'power'

    #: Whether ``get_power_state`` asks the hardware.  False for an
    #: interface that only records what it was told (fake hardware): the
    #: conductor's power state sync then has nothing to read.
    reads_hardware = True

    def get_power_state(self, task):
        raise NotImplementedError

    def set_power_state(self, task, power_state):
        raise NotImplementedError

    def reboot(self, task):
        self.set_power_state(task, states.POWER_OFF)
        self.set_power_state(task, states.POWER_ON)

    def get_supported_power_states(self, task):
        """The power targets this interface accepts (states.POWER_*)."""
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT]


#: A server's overall health, Redfish's (and Ironic's) words.
HEALTH_STATES = ('OK', 'Warning', 'Critical')


class ManagementInterface(BaseInterface):
    """The node's BMC beyond power: its boot device, boot mode, secure
    boot and virtual media.

    A boot device is one of Ironic's names (``pxe``, ``disk``, ``cdrom``,
    ``bios``, ``safe``, ...); each interface says which it supports.  A
    boot mode is ``uefi`` or ``bios``.  An interface that cannot read or
    change the boot mode, secure boot or virtual media leaves those
    methods as they are here: they raise
    :class:`UnsupportedDriverExtension`.
    """

    interface_type = 'management'

    def get_supported_boot_devices(self, task):
        """The boot devices :meth:`set_boot_device` takes, a list."""
        raise NotImplementedError

    def set_boot_device(self, task, device, persistent=False):
        """:raises InvalidParameterValue: for an unsupported ``device``."""
        raise NotImplementedError

    def get_boot_device(self, task):
        """``{'boot_device': name or None, 'persistent': bool or None}``
        (None: not known)."""
        raise NotImplementedError

    def _unsupported(self, task, what):
        raise exception.UnsupportedDriverExtension(
            node=task.node.uuid, extension=what,
            interface=task.node.management_interface)

    def inject_nmi(self, task):
        """Send the machine a non-maskable interrupt (API 1.29): its
        operating system's crash dump or debugger takes over."""
        self._unsupported(task, 'injecting an NMI')

    def get_boot_mode(self, task):
        """``uefi`` or ``bios``; None if the BMC does not say."""
        self._unsupported(task, 'reading the boot mode')

    def set_boot_mode(self, task, mode):
        """:raises InvalidParameterValue: for a mode it cannot set."""
        self._unsupported(task, 'setting the boot mode')

    def get_secure_boot_state(self, task):
        """Whether secure boot is on (for the next boot)."""
        self._unsupported(task, 'reading secure boot')

    def get_health(self, task):
        """The server's overall health as the BMC reports it: one of
        :data:`HEALTH_STATES`; None if the BMC does not say."""
        self._unsupported(task, 'reading the hardware health')

    def set_secure_boot_state(self, task, state):
        """Turn secure boot on (True) or off (False)."""
        self._unsupported(task, 'setting secure boot')

    # Virtual media (see common/virtual_media.py for the device types and
    # what a listing holds).

    def attach_virtual_media(self, task, device_type, image_url):
        """Present ``image_url`` as a ``device_type`` device, in place of
        what such a device held."""
        self._unsupported(task, 'virtual media')

    def detach_virtual_media(self, task, device_types=None):
        """Eject the devices of ``device_types`` (every one if None)."""
        self._unsupported(task, 'virtual media')

    def get_virtual_media(self, task):
        """The node's virtual media devices, a list."""
        self._unsupported(task, 'virtual media')


class BootInterface(BaseInterface):
    interface_type = 'boot'


class BiosInterface(BaseInterface):
    interface_type = 'bios'


class RAIDInterface(BaseInterface):
    """Builds logical disks; knows which RAID layouts it accepts.

    A layout (``node.target_raid_config``, the argument of RAID steps) has
    the shape :data:`ironic_steps.drivers.raid.RAID_CONFIG_SCHEMA` defines.
    """

    interface_type = 'raid'

    def validate_raid_config(self, task, raid_config):
        """:raises InvalidParameterValue: naming what is wrong."""
        raid.validate_configuration(raid_config)

    def get_logical_disk_properties(self):
        """{property: description} of what a logical disk of a layout may
        say (``openstack baremetal driver raid property list``)."""
        return {name: schema['description'] for name, schema
                in raid.LOGICAL_DISK_PROPERTIES.items()}


class VendorInterface(BaseInterface):
    """Vendor-specific extensions, called through the API's vendor
    passthru.

    A passthru method is described as Ironic describes it: ``{name:
    {'http_methods': [...], 'async': bool, 'attach': bool,
    'require_exclusive_lock': bool, 'description': str}}``.  The in-tree
    vendor interfaces offer none; calling one is not provided.
    """

    interface_type = 'vendor'

    def vendor_routes(self):
        """The passthru methods of a node with this interface."""
        return {}

    def driver_routes(self):
        """The passthru methods of the hardware type itself."""
        return {}


class ConsoleInterface(BaseInterface):
    """A serial console (not run by ironic-steps: only ``no-console``,
    whose validation refuses every console request)."""

    interface_type = 'console'

    def start_console(self, task):
        raise NotImplementedError

    def stop_console(self, task):
        raise NotImplementedError


class FirmwareInterface(BaseInterface):
    """Firmware: updating a node's components (BIOS, BMC) from images, as
    the step ``firmware.update``, and reading which versions they run into
    the node's component cache (see :mod:`ironic_steps.drivers.firmware`,
    which defines the settings an update takes)."""

    interface_type = 'firmware'

    def cache_firmware_components(self, task):
        """Read the versions the node's components run and record them
        (:func:`ironic_steps.drivers.firmware.cache_components`).

        :raises UnsupportedDriverExtension: if the interface cannot read
            them (``no-firmware``).
        """
        raise exception.UnsupportedDriverExtension(
            node=task.node.uuid, extension='firmware', interface=self.name)


class InspectInterface(BaseInterface):
    """Hardware inspection: what a node has (see :mod:`drivers.inspection`
    for what it returns and what the conductor does with it)."""

    interface_type = 'inspect'

    def inspect_hardware(self, task):
        """An ``inspection.Found``, or ``inspection.WAIT``."""
        raise NotImplementedError

    def continue_inspection(self, task, inventory, plugin_data):
        """The hardware reported (in band: the agent's inventory, through
        ``/v1/continue_inspection``) to an inspection that waits.

        :returns: an ``inspection.Found``.
        :raises UnsupportedDriverExtension: for an interface that never
            waits for a report.
        """
        raise exception.UnsupportedDriverExtension(
            node=task.node.uuid, extension='in-band inspection',
            interface=getattr(self, 'name', type(self).__name__))

    def abort(self, task):
        """Stop an inspection that waits for the hardware (nothing to stop
        unless the interface started something)."""


class NetworkInterface(BaseInterface):
    """Switch ports and VIFs (nothing to configure in ironic-steps)."""

    interface_type = 'network'
    #: Whether a VIF attached to the node is recorded on a free port or
    #: portgroup (and listed, and refused without one); if not, attaching
    #: and detaching are accepted and change nothing, as Ironic's ``noop``.
    records_vifs = False


class RescueInterface(BaseInterface):
    """Rescue mode: the node boots an environment its user logs into
    with the rescue password (``instance_info['rescue_password']``), and
    back into its instance on unrescue."""

    interface_type = 'rescue'

    def rescue(self, task):
        """Boot the node into its rescue environment.

        :returns: ``states.RESCUE`` once it runs, or ``states.RESCUEWAIT``
            when its agent still has to call back (then
            :meth:`finish_rescue` runs on the agent's heartbeat).
        """
        raise exception.UnsupportedDriverExtension(
            node=task.node.uuid, extension='rescue', interface=self.name)

    def finish_rescue(self, task):
        """The rescue environment's agent called back: hand it what it
        needs (the hashed password, ``instance_info
        ['hashed_rescue_password']``).

        :returns: ``states.RESCUE``.
        """
        raise exception.UnsupportedDriverExtension(
            node=task.node.uuid, extension='rescue with an agent',
            interface=self.name)

    def clean_up(self, task):
        """A rescue failed or was aborted: undo what :meth:`rescue`
        prepared."""

    def unrescue(self, task):
        """Boot the node back into its instance.

        :returns: ``states.ACTIVE``.
        """
        raise exception.UnsupportedDriverExtension(
            node=task.node.uuid, extension='rescue', interface=self.name)


class StorageInterface(BaseInterface):
    """Remote volumes (not run by ironic-steps: only ``noop``)."""

    interface_type = 'storage'
