"""What fake-hardware's steps ask of the agent on a fake machine.

On real hardware a step that the agent finishes (writing the image,
erasing disks) powers the machine into its ramdisk and waits; the agent
running there does the work and heartbeats.  A fake machine has no
ramdisk: the agent is played by a program outside the drivers
(:mod:`ironic_steps.fake_agent`), which the service starts and plugs in
here, as a test may plug in its own.  Drivers only tell it, through this
module, which node waits for it; they never import it.

With no agent plugged in, a waiting step waits as for a machine whose
agent never starts: until the flow's timeout.

It also says what a fake machine has (:func:`inventory`): what its
``fake`` inspection finds and what its agent reports when the machine
boots the agent's ramdisk to be inspected in band
(:func:`ramdisk_booted`).
"""

from oslo_log import log

LOG = log.getLogger(__name__)

#: What a fake machine has where its node's properties say nothing.
DEFAULTS = {'cpus': 8, 'cpu_arch': 'x86_64', 'memory_mb': 16384,
            'local_gb': 100}
_GIB = 1024 ** 3


def _number(properties, key):
    value = properties.get(key)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return DEFAULTS[key]


def mac_addresses(node_uuid):
    """The MAC addresses of a fake node's two NICs: locally administered,
    from its UUID, so they differ from node to node."""
    digits = node_uuid.replace('-', '')
    return ['%02x:%s' % (first, ':'.join(
        digits[start + i:start + i + 2] for i in range(0, 10, 2)))
        for first, start in ((0x02, 0), (0x06, 10))]


def inventory(node, boot_mode):
    """The fake machine behind ``node``, in the inventory format (see
    :mod:`ironic_steps.drivers.inspection`)."""
    properties = node.properties or {}
    arch = properties.get('cpu_arch')
    boot_mac, other_mac = mac_addresses(node.uuid)
    address = '192.0.2.%d' % (int(node.uuid[-2:], 16) % 254 + 1)
    return {
        'cpu': {'count': _number(properties, 'cpus'),
                'architecture': arch if isinstance(arch, str) and arch
                else DEFAULTS['cpu_arch'],
                'model_name': 'Fake CPU', 'frequency': '2400'},
        'memory': {'physical_mb': _number(properties, 'memory_mb'),
                   'total': _number(properties, 'memory_mb') * 1024 ** 2},
        'disks': [{'name': '/dev/sda', 'model': 'Fake Disk',
                   'size': (_number(properties, 'local_gb') + 1) * _GIB,
                   'rotational': False,
                   'serial': 'FAKE-%s-0' % node.uuid[:8].upper()}],
        'interfaces': [
            {'name': 'eth0', 'mac_address': boot_mac, 'ipv4_address': address,
             'ipv6_address': None, 'has_carrier': True, 'speed_mbps': 10000},
            {'name': 'eth1', 'mac_address': other_mac, 'ipv4_address': None,
             'ipv6_address': None, 'has_carrier': False,
             'speed_mbps': 10000}],
        'system_vendor': {'manufacturer': 'ironic-steps',
                          'product_name': 'fake-hardware',
                          'serial_number': 'FAKE-%s' % node.uuid[:8].upper()},
        'boot': {'current_boot_mode': boot_mode, 'pxe_interface': boot_mac},
    }


_plugged = None


def plug(agent):
    """Make ``agent`` the one every fake machine runs.

    ``agent`` has ``takes_tokens()``, ``expect_heartbeat(node_uuid,
    step_index, kind, token)`` and
    ``adopt(node_uuid, step_index, kind)``, and may have
    ``ramdisk_booted(node_uuid)`` (see
    :class:`ironic_steps.fake_agent.FakeAgent`).
    """
    global _plugged
    _plugged = agent


def unplug(agent):
    """Unplug ``agent``, if it is still the one plugged in."""
    global _plugged
    if _plugged is agent:
        _plugged = None


def plugged():
    """The agent plugged in, or None."""
    return _plugged


def _agent(node_uuid):
    agent = _plugged
    if agent is None:
        LOG.warning('Node %s waits for the agent of its fake machine, but '
                    'no fake agent runs in this process: it waits until '
                    'its timeout', node_uuid)
    return agent


def agent_takes_tokens():
    """Whether an agent plays the fake machines here and takes its token
    with the work (where none does, whoever plays the agent looks the
    node up for its token)."""
    agent = _plugged
    return agent is not None and agent.takes_tokens()


def expect_heartbeat(node_uuid, step_index, kind, token=None):
    """The step at ``step_index`` of ``node_uuid``'s ``kind`` flow waits,
    its node parked: the agent does the work, then heartbeats (with
    ``token``, its agent token handed over with the work, or the one its
    lookup hands out)."""
    agent = _agent(node_uuid)
    if agent is not None:
        agent.expect_heartbeat(node_uuid, step_index, kind, token=token)


def adopt(node_uuid, step_index, kind):
    """This conductor took over ``node_uuid``, whose step waits for the
    agent: the agent, on the machine, heartbeats here from now on."""
    agent = _agent(node_uuid)
    if agent is not None:
        agent.adopt(node_uuid, step_index, kind)


def ramdisk_booted(node_uuid):
    """``node_uuid``'s machine booted the agent's ramdisk, its node
    parked: the agent starts, and reports the machine's inventory if the
    node is being inspected (as ironic-python-agent does when booted with
    an inspection callback URL)."""
    agent = _agent(node_uuid)
    report = getattr(agent, 'ramdisk_booted', None)
    if report is not None:
        report(node_uuid)
