"""The conductor's RPC endpoints for the agent running on a machine.

An agent (ironic-python-agent, or fake-hardware's fake agent) looks its
node up once and heartbeats until its work is done, or, booted to inspect
its machine, posts the machine's inventory; the API passes each on to the
conductor that handles the node.  Tokens are checked before any
lock or write (:mod:`agent_token`); what a heartbeat means for the node's
flow is :mod:`agent_heartbeat`'s, what an inventory means
:mod:`inspection`'s.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import step_kinds
from ironic_steps.conductor import agent_heartbeat
from ironic_steps.conductor import agent_token as agent_tokens
from ironic_steps.conductor import endpoint_base
from ironic_steps.conductor import inspection
from ironic_steps import objects

LOG = log.getLogger(__name__)

#: What a heartbeat from an API of a release before agent tokens carries.
_NOT_SENT = object()


class AgentEndpoints:
    """RPC endpoints an agent's requests reach through the API."""

    target = endpoint_base.target()

    def __init__(self, acquire, reserve_worker):
        """:param acquire: ``acquire(context, node_id, **kwargs)``, the
            conductor's exclusive task on a node.
        :param reserve_worker: a context manager reserving a worker of
            the conductor, refused while it stops.
        """
        self._acquire = acquire
        self._reserve_worker = reserve_worker
        self._known_tokens = agent_tokens.KNOWN

    @endpoint_base.expected
    def get_node_with_token(self, context, node_id):
        """An agent's lookup: the node's agent token, handed out once
        (:meth:`agent_token.KnownTokens.look_up`)."""
        return self._known_tokens.look_up(context, node_id)

    @endpoint_base.expected
    def heartbeat(self, context, node_id, callback_url=None,
                  agent_version=None, agent_token=_NOT_SENT,
                  agent_verify_ca=None):
        """An agent reports in; what that means is
        :mod:`agent_heartbeat`'s (a waiting flow usually resumes).

        The token is checked first, before any lock or write: against the
        one this conductor handed out, else against the node's row
        (:class:`agent_token.KnownTokens`).  Then the lock: a heartbeat
        usually finds its node parked and unlocked, so that costs one
        statement.  A heartbeat that finds
        the node busy answers NodeLocked at once if the node is waiting
        (agents heartbeat again shortly, so waiting here only ties a
        thread), and nothing if it is not.  A heartbeat without the node's
        agent token is refused and changes nothing; an API of a release
        from before tokens cannot pass one on (``agent_token`` is not sent
        at all), so during a rolling upgrade its heartbeats go unchecked.
        """
        if agent_token is not _NOT_SENT:
            self._known_tokens.check_before_lock(context, node_id,
                                                 agent_token)
        with self._reserve_worker() as worker:
            try:
                task = self._acquire(context, node_id, retry=False,
                                     purpose='heartbeat')
            except exception.NodeLocked:
                if objects.Node.get_row(context, node_id).provision_state in (
                        step_kinds.WAIT_STATES):
                    raise
                LOG.debug('Heartbeat from busy node %s: nothing to resume',
                          node_id)
                return
            with task:
                if agent_token is not _NOT_SENT:
                    agent_tokens.check_logged(task.node, agent_token)
                agent_heartbeat.handle(
                    task, worker, callback_url=callback_url,
                    agent_version=agent_version,
                    agent_verify_ca=agent_verify_ca)

    @endpoint_base.expected
    def continue_inspection(self, context, node_id, inventory,
                            plugin_data=None):
        """An agent's inventory for a node in ``inspect wait`` (RPC 1.8):
        recorded in a worker (:func:`inspection.continue_inspection`).  A
        node still ``inspecting`` (its agent came up before its worker
        parked it) is locked: waited for as any lock is, else NodeLocked
        (409, and the agent posts again, as ironic-python-agent does); a
        node that does not wait then is not found."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='continue inspection') as task:
            inspection.continue_inspection(task, worker, inventory,
                                           plugin_data or {})
