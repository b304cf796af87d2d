"""The ``agent`` rescue interface: ironic-python-agent as the rescue
environment (release 0.12).

Rescuing boots the node into the agent's ramdisk the way a deploy with
the ``direct`` interface does (through the node's boot interface), and the
rescue waits (``rescue wait``) until that agent looks its node up and
heartbeats.  Then the conductor calls :meth:`AgentRescue.finish_rescue`:
the agent is given the rescue user's password, hashed (crypt(3), never in
clear), and steps aside for the user to log in; the node is ``rescue``.
Unrescuing powers the rescue environment off and boots the instance from
its disk again.  A rescue that fails or is aborted cleans the ramdisk up.

The agent is reached at the URL its heartbeat gave, with the token its
lookup was handed, as for deploys (:mod:`agent_client`).
"""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers import base
from ironic_steps.drivers.modules import agent
from ironic_steps.drivers.modules import agent_client

#: Where the conductor keeps the hashed rescue password.
HASHED_PASSWORD_KEY = 'hashed_rescue_password'


class AgentRescue(base.RescueInterface):

    name = 'agent'
    #: Not offered, nor given to new nodes, while pinned before it.
    since_release = '0.12'

    def get_properties(self):
        return {}

    def validate(self, task):
        task.driver.boot.validate(task)

    def rescue(self, task):
        """Boot the agent's ramdisk; its heartbeat finishes the rescue."""
        agent.boot_agent(task)
        return states.RESCUEWAIT

    def finish_rescue(self, task):
        """Hand the agent the hashed password; the node is rescued."""
        hashed = (task.node.instance_info or {}).get(HASHED_PASSWORD_KEY)
        if not hashed:
            raise exception.InvalidParameterValue(
                err='Node %s has no hashed rescue password to give its '
                    'rescue agent; rescue it again' % task.node.uuid)
        agent_client.AgentClient().finalize_rescue(
            agent.endpoint(task.node), hashed)
        return states.RESCUE

    def unrescue(self, task):
        """Power the rescue environment off; boot the instance again."""
        agent.back_to_the_instance(task)
        return states.ACTIVE

    def clean_up(self, task):
        clean_up = getattr(task.driver.boot, 'clean_up_ramdisk', None)
        if clean_up is not None:
            clean_up(task)
