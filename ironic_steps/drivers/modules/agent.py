"""The agent's deploy interfaces: ``direct`` and ``custom-agent``.

``direct``: ironic-python-agent writes the image to disk.  Ironic's
deploy interface of that name, with its core steps::

    100  deploy.deploy                 power off, boot the agent's ramdisk
                                       (the boot interface prepares it),
                                       power on; waits for the agent
     80  deploy.write_image            the agent's in-band write_image:
                                       image, then config drive
     60  deploy.prepare_instance_boot  boot from the disk from now on
     40  deploy.tear_down_agent        sync the disks through the agent,
                                       then power off out of band
     20  deploy.boot_instance          power on into the instance

``custom-agent`` (release 0.14, Ironic's name; Metal3's
``customDeploy``) is the same without an image of its own: it has the
steps above less ``write_image`` and ``prepare_instance_boot``, so the
agent boots, only the deploy steps the user gives (``deploy_steps``, a
deploy template) run, in band or out of band, and the node powers on
into whatever they left it to boot.  ``direct`` is built on it
(:class:`AgentDeploy` subclasses :class:`CustomAgentDeploy`), as in
Ironic.

A node whose ``disable_power_off`` is set (API 1.95) is never powered off
(:mod:`power_cycles`): it reboots into the ramdisk, its agent is locked
down (IPA's ``system.lockdown``) where the deploy and servicing would
power it off, and it reboots into its instance, as in Ironic.

The agent's own steps (reported at its first heartbeat in each flow, see
``conductor/agent_steps.py``) join these as in-band steps; this interface
runs them: :meth:`execute_in_band_step` starts the agent's command and the
node waits; each heartbeat asks the agent about that command
(:meth:`heartbeat`), and its failure is the agent's message.  Cleaning
boots the agent first (:meth:`prepare_cleaning`) so that its clean steps
(IPA: ``erase_devices_metadata`` at 99, ``erase_devices`` at 10) can be
planned and run; the ramdisk is powered off when they are done.

What a ``direct`` deploy's image is comes from ``instance_info``,
Ironic's keys: ``image_source`` (an http, https or file URL), its checksum
(``image_os_hash_algo`` and ``image_os_hash_value``, or
``image_checksum``: a hex digest, its algorithm told by its length, or a
URL of a checksum file), ``image_disk_format`` (optional), and for a
partition image (``image_type: partition``, or a ``kernel`` and
``ramdisk``) ``root_gb``.  The config drive the deploy was given is in
``instance_info/configdrive``.  ``properties/capabilities`` with
``boot_mode:bios`` needs no boot loader installed; with UEFI, a
whole-disk image's boot entry is set by the agent.

The agent is reached only through :mod:`agent_client`, at the URL its
heartbeat gave and with the node's agent token.
"""

import threading
import urllib.parse

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps.drivers.modules import agent_client
from ironic_steps.drivers import power_cycles
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: The first release with the direct interface: refused while pinned
#: before.
SINCE_RELEASE = '0.8'
#: The first release with the custom-agent interface.
CUSTOM_AGENT_SINCE_RELEASE = '0.14'
#: The agent command a waiting in-band step runs:
#: ``{'id': command id, 'step': 'interface.step'}``.
COMMAND_KEY = base.AGENT_COMMAND_KEY
#: Root device hint keys ironic-python-agent understands.
ROOT_DEVICE_HINTS = frozenset([
    'size', 'model', 'wwn', 'serial', 'vendor', 'wwn_with_extension',
    'wwn_vendor_extension', 'name', 'rotational', 'hctl', 'by_path'])
_IMAGE_SCHEMES = ('http', 'https', 'file')
#: The node fields an agent reads, as Ironic sends them.
_NODE_FIELDS = ('uuid', 'name', 'properties', 'instance_info',
                'driver_info', 'driver_internal_info', 'target_raid_config',
                'raid_config')

_clients = threading.local()


def _client():
    """This thread's agent client (a client is not thread-safe)."""
    if not hasattr(_clients, 'client'):
        _clients.client = agent_client.AgentClient()
    return _clients.client


def endpoint(node):
    """Where the node's agent listens, and its token (from its lookup
    and heartbeat)."""
    return agent_client.AgentEndpoint.from_driver_internal_info(
        node.uuid, node.driver_internal_info)


def _node_dict(node):
    return {field: getattr(node, field, None) for field in _NODE_FIELDS}


def _ports(task):
    """The node's ports as the agent reads them (address, pxe_enabled)."""
    return [{'uuid': port.uuid, 'address': port.address,
             'pxe_enabled': port.pxe_enabled,
             'local_link_connection': port.local_link_connection,
             'physical_network': port.physical_network}
            for port in task.ports]


def boot_mode(node):
    """``bios`` or ``uefi``, from ``properties/capabilities``."""
    capabilities = (node.properties or {}).get('capabilities') or ''
    if isinstance(capabilities, dict):
        found = capabilities.get('boot_mode')
    else:
        found = dict(item.partition(':')[::2]
                     for item in str(capabilities).split(',')
                     if ':' in item).get('boot_mode')
    return 'bios' if found == 'bios' else 'uefi'


def image_info(node):
    """What the agent's write_image needs, from ``instance_info``.

    :raises MissingParameterValue: or InvalidParameterValue, naming the
        ``instance_info`` key.
    """
    info = node.instance_info or {}
    source = info.get('image_source')
    if not source:
        raise exception.MissingParameterValue(
            err='instance_info/image_source is missing: the URL of the '
                'image the agent writes to node %s' % node.uuid)
    if (not isinstance(source, str)
            or urllib.parse.urlsplit(source).scheme not in _IMAGE_SCHEMES):
        raise exception.InvalidParameterValue(
            err='instance_info/image_source of node %s must be an http, '
                'https or file URL' % node.uuid)
    image = {'id': source.rstrip('/').rsplit('/', 1)[-1] or node.uuid,
             'urls': [source], 'node_uuid': node.uuid,
             'stream_raw_images': CONF.agent.stream_raw_images,
             'deploy_boot_mode': boot_mode(node)}
    algo, value = info.get('image_os_hash_algo'), info.get(
        'image_os_hash_value')
    if algo or value:
        if not (isinstance(algo, str) and algo and isinstance(value, str)
                and value):
            raise exception.InvalidParameterValue(
                err='instance_info/image_os_hash_algo and '
                    'image_os_hash_value of node %s go together, both '
                    'non-empty strings' % node.uuid)
        image.update(os_hash_algo=algo, os_hash_value=value)
    elif info.get('image_checksum'):
        if not isinstance(info['image_checksum'], str):
            raise exception.InvalidParameterValue(
                err='instance_info/image_checksum of node %s must be a '
                    'string (a hex digest or a URL)' % node.uuid)
        image['checksum'] = info['image_checksum']
    elif not source.startswith('file:'):
        raise exception.MissingParameterValue(
            err='node %s: the image at instance_info/image_source needs a '
                'checksum: instance_info/image_checksum, or '
                'image_os_hash_algo and image_os_hash_value' % node.uuid)
    disk_format = info.get('image_disk_format')
    if disk_format is not None:
        if disk_format not in CONF.conductor.permitted_image_formats:
            raise exception.InvalidParameterValue(
                err='instance_info/image_disk_format of node %s is %r; '
                    'permitted: %s' % (
                        node.uuid, disk_format,
                        ', '.join(CONF.conductor.permitted_image_formats)))
        image['disk_format'] = disk_format
    if info.get('image_type') == 'partition' or (
            info.get('kernel') and info.get('ramdisk')):
        image.update(_partition_sizes(node, info))
    return image


def _partition_sizes(node, info):
    sizes = {'image_type': 'partition'}
    for key, size_key, required in (('root_gb', 'root_mb', True),
                                    ('swap_mb', 'swap_mb', False),
                                    ('ephemeral_gb', 'ephemeral_mb', False)):
        value = info.get(key)
        if value is None:
            if required:
                raise exception.MissingParameterValue(
                    err='instance_info/root_gb of node %s is missing: a '
                        'partition image needs the size of its root '
                        'partition' % node.uuid)
            continue
        if (not isinstance(value, int) or isinstance(value, bool)
                or value < (1 if required else 0)):
            raise exception.InvalidParameterValue(
                err='instance_info/%s of node %s must be a %s integer, got '
                    '%r' % (key, node.uuid,
                            'positive' if required else 'non-negative',
                            value))
        sizes[size_key] = value * 1024 if key.endswith('_gb') else value
    return sizes


def check_root_device_hints(node):
    """:raises InvalidParameterValue: for hints the agent cannot read."""
    for where in ('properties', 'instance_info'):
        hints = (getattr(node, where) or {}).get('root_device')
        if hints is None or hints == {}:
            continue   # no hints; {} is Metal3's "none", as Ironic reads it
        if not isinstance(hints, dict):
            raise exception.InvalidParameterValue(
                err='%s/root_device of node %s must be an object of root '
                    'device hints' % (where, node.uuid))
        unknown = sorted(set(hints) - ROOT_DEVICE_HINTS)
        if unknown:
            raise exception.InvalidParameterValue(
                err='%s/root_device of node %s has unknown hint(s) %s; '
                    'hints: %s' % (where, node.uuid, ', '.join(unknown),
                                   ', '.join(sorted(ROOT_DEVICE_HINTS))))


# --- power and boot ---------------------------------------------------------


def boot_agent(task):
    """Boot the node into its agent's ramdisk (through its boot
    interface, else from the network)."""
    with power_cycles.booting(task):
        prepare = getattr(task.driver.boot, 'prepare_ramdisk', None)
        if prepare is not None:
            prepare(task)
        else:
            task.driver.management.set_boot_device(task, 'pxe')


def boot_from_disk(task):
    """Make the node boot its instance from its disk next time."""
    prepare = getattr(task.driver.boot, 'prepare_instance_from_disk',
                      None)
    if prepare is not None:
        prepare(task)
    task.driver.management.set_boot_device(task, 'disk',
                                           persistent=True)


def power_off_agent(task):
    """Power the agent's machine off; its ramdisk is cleaned up.  A node
    that must stay on keeps running the agent until it next boots."""
    power_cycles.power_off(task)
    clean_up = getattr(task.driver.boot, 'clean_up_ramdisk', None)
    if clean_up is not None:
        clean_up(task)


def lock_down_agent(task, gone_is_fine=False):
    """Have the agent of a node that must stay on lock itself down (it
    stops serving its API until the node boots again), rather than power
    the node off.

    :param gone_is_fine: an agent that cannot be reached any more is
        locked down already (servicing, whose agent may have gone).
    :raises AgentError: when it cannot be asked (unless gone is fine).
    """
    LOG.info('Node %s has disable_power_off set: locking its agent down '
             'instead of powering it off', task.node.uuid)
    try:
        _client().lock_down(endpoint(task.node))
    except exception.AgentConnectionFailed as exc:
        if not gone_is_fine:
            raise
        LOG.info('Node %s: its agent is gone already: %s', task.node.uuid,
                 exc)


def back_to_the_instance(task):
    """From the agent's ramdisk (servicing, rescue) back to the node's
    instance: the agent powered off, the disk booted."""
    power_off_agent(task)
    boot_from_disk(task)
    power_cycles.power_on(task)


class CustomAgentDeploy(base.DeployInterface):
    """``custom-agent``: the agent boots and runs the deploy steps the
    user gives; see the module docstring."""

    uses_agent = True
    #: Not offered, nor set on a node, while pinned before it.
    since_release = CUSTOM_AGENT_SINCE_RELEASE
    #: The name a node gives it, for errors.
    name = 'custom-agent'

    def get_properties(self):
        return {}

    def validate(self, task):
        if release_mappings.pinned_before(CONF, self.since_release):
            raise exception.InvalidParameterValue(
                err='Node %s: the %s deploy interface arrives in release '
                    '%s; the services are pinned to %s, whose conductors '
                    'cannot run it' % (task.node.uuid, self.name,
                                       self.since_release,
                                       CONF.pin_release_version))
        check_root_device_hints(task.node)

    # --- the deploy steps -----------------------------------------------

    @base.deploy_step(priority=100)
    def deploy(self, task):
        """Boot the node into the agent's ramdisk; wait for the agent."""
        boot_agent(task)
        return base.wait_for_agent(task)

    @base.deploy_step(priority=40)
    def tear_down_agent(self, task):
        """Flush the disks through the agent, then power off out of band
        (lock the agent down, which flushes them too, for a node that
        must stay on)."""
        if power_cycles.stays_on(task.node):
            lock_down_agent(task)
        else:
            try:
                _client().sync(endpoint(task.node))
            except exception.AgentError as exc:
                # The write itself was confirmed; a power off without the
                # sync is what Ironic falls back to as well.
                LOG.warning('Node %s: could not sync its disks through the '
                            'agent before powering off: %s', task.node.uuid,
                            exc)
        power_off_agent(task)

    @base.deploy_step(priority=20)
    def boot_instance(self, task):
        """Power the node on into its instance (reboot one that must
        stay on)."""
        power_cycles.power_on(task)

    def tear_down(self, task):
        power_cycles.power_off_or_reboot(task)

    # --- the agent ------------------------------------------------------

    def agent_steps(self, task, kind):
        return _client().get_steps(endpoint(task.node), kind,
                                   _node_dict(task.node),
                                   _ports(task))['command_result']

    def execute_in_band_step(self, task, step, kind):
        node = task.node
        label = '%s.%s' % (step['interface'], step['step'])
        result = _client().execute_step(
            endpoint(node), kind,
            {key: step.get(key) for key in ('interface', 'step', 'priority',
                                            'args', 'reboot_requested')
             if key in step}, _node_dict(node), _ports(task))
        node.driver_internal_info = {
            **(node.driver_internal_info or {}),
            COMMAND_KEY: {'id': result['id'], 'step': label,
                          'reboot_requested': bool(
                              step.get('reboot_requested'))}}
        LOG.info('Node %s: the agent runs %s step %s (command %s)',
                 node.uuid, kind, label, result['id'])
        return base.wait_for_agent(task)

    def heartbeat(self, task):
        """Done when no command waits (the agent is up), or when the
        agent's command for the waiting step ended well; a step whose
        agent asked for a reboot is done once the rebooted agent
        heartbeats."""
        node = task.node
        command = (node.driver_internal_info or {}).get(COMMAND_KEY)
        if not command:
            return base.DONE
        result = _client().get_command(endpoint(node), command['id'])
        status = result['command_status']
        if status == agent_client.RUNNING:
            return None
        node.driver_internal_info = {
            key: value for key, value in node.driver_internal_info.items()
            if key != COMMAND_KEY}
        if status != agent_client.SUCCEEDED:
            raise exception.StepFailed(
                step=command['step'], reason='the agent says: %s' % (
                    agent_client.command_error(result)
                    or 'command %s ended %s' % (command['id'], status)))
        if command.get('reboot_requested'):
            self._reboot_into_agent(task, command['step'])
            return None
        return base.DONE

    @staticmethod
    def _reboot_into_agent(task, label):
        """The agent asked for a reboot after ``label``: the rebooted
        machine's agent looks up afresh (new token, new URL), and its
        first heartbeat finishes the step."""
        node = task.node
        LOG.info('Node %s: the agent asked for a reboot after step %s; '
                 'rebooting into the agent', node.uuid, label)
        node.driver_internal_info = {
            key: value for key, value in node.driver_internal_info.items()
            if key not in (agent_client.TOKEN_KEY, agent_client.URL_KEY)}
        task.driver.power.reboot(task)

    # --- cleaning -------------------------------------------------------

    def prepare_cleaning(self, task):
        """Boot the agent: its clean steps run once it reports them."""
        boot_agent(task)
        return base.wait_for_agent(task)

    def tear_down_cleaning(self, task):
        power_off_agent(task)
        if power_cycles.stays_on(task.node):
            # As Ironic: the node leaves the cleaning ramdisk by a reboot.
            task.driver.power.reboot(task)

    # --- servicing ------------------------------------------------------

    def prepare_service(self, task):
        """Boot the agent on the active node: its service steps run once
        it reports them."""
        boot_agent(task)
        return base.wait_for_agent(task)

    def tear_down_service(self, task):
        """Power the agent off and boot the node's instance again from
        its disk, as the deploy left it; the agent of a node that must
        stay on is locked down first."""
        if power_cycles.stays_on(task.node):
            lock_down_agent(task, gone_is_fine=True)
        back_to_the_instance(task)


class AgentDeploy(CustomAgentDeploy):
    """``direct``: the custom-agent steps and the agent writing the image
    (see the module docstring)."""

    since_release = SINCE_RELEASE
    name = 'direct'

    def validate(self, task):
        super().validate(task)
        if task.node.provision_state in (states.AVAILABLE, states.ACTIVE,
                                         states.DEPLOYFAIL):
            image_info(task.node)

    @base.deploy_step(priority=80)
    def write_image(self, task):
        """Have the agent write the image, then the config drive."""
        node = task.node
        args = {'image_info': image_info(node),
                'configdrive': (node.instance_info or {}).get('configdrive')}
        return self.execute_in_band_step(task, {
            'interface': 'deploy', 'step': 'write_image', 'priority': 80,
            'args': args}, base.DEPLOY)

    @base.deploy_step(priority=60)
    def prepare_instance_boot(self, task):
        """Make the node boot the written instance from its disk."""
        if boot_mode(task.node) == 'uefi':
            partitions = _client().get_partition_uuids(
                endpoint(task.node))['command_result'] or {}
            _client().install_bootloader(
                endpoint(task.node), partitions.get('root uuid'), 'uefi',
                partitions.get('efi system partition uuid'))
        boot_from_disk(task)
