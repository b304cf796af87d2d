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
"""

from oslo_log import log

LOG = log.getLogger(__name__)

_plugged = None


def plug(agent):
    """Make ``agent`` the one every fake machine runs.

    ``agent`` has ``expect_heartbeat(node_uuid, step_index, kind)`` and
    ``adopt(node_uuid, step_index, kind)`` (see
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


def expect_heartbeat(node_uuid, step_index, kind):
    """The step at ``step_index`` of ``node_uuid``'s ``kind`` flow waits,
    its node parked: the agent does the work, then heartbeats."""
    agent = _agent(node_uuid)
    if agent is not None:
        agent.expect_heartbeat(node_uuid, step_index, kind)


def adopt(node_uuid, step_index, kind):
    """This conductor took over ``node_uuid``, whose step waits for the
    agent: the agent, on the machine, heartbeats here from now on."""
    agent = _agent(node_uuid)
    if agent is not None:
        agent.adopt(node_uuid, step_index, kind)
