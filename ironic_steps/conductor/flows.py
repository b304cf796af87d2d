"""The flows a node can wait in, by the state it waits in.

A node parked in a wait state is treated the same whatever the flow: its
agent's heartbeat or a poll that finds its step done resumes it, a timeout
fails it, an operator's abort stops it.  The conductor finds what to do
through this table, never through a chain of per-flow cases, so every flow
gets every behaviour; a new flow (servicing, verifying with an agent) is
one more entry.
"""

import dataclasses
import types
import typing

from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import cleaning
from ironic_steps.conductor import deployments
from ironic_steps.conductor import servicing
from ironic_steps.conf import CONF


@dataclasses.dataclass(frozen=True)
class WaitingFlow:
    flow: step_kinds.Flow
    #: ``resume(task, worker)``: go on with the step after the one waiting.
    resume: typing.Callable
    #: ``run_rest(task)``: the same, in the worker already running, once
    #: the node moved out of the wait (a poll that found its step done).
    run_rest: typing.Callable
    #: ``replan(task)``: the flow's plan made again, once the node's agent
    #: reported its steps (:mod:`agent_heartbeat`); raises the refusal.
    replan: typing.Callable

    @property
    def timeout(self):
        """Seconds a step may wait for its agent; 0 waits forever."""
        return getattr(CONF.conductor, self.flow.timeout_option)


BY_WAIT_STATE = types.MappingProxyType({
    waiting.flow.wait_state: waiting for waiting in (
        WaitingFlow(step_kinds.DEPLOY_FLOW, deployments.continue_node_deploy,
                    deployments.run_after_wait, deployments.replan),
        WaitingFlow(step_kinds.CLEAN_FLOW, cleaning.continue_node_clean,
                    cleaning.run_after_wait, cleaning.replan),
        WaitingFlow(step_kinds.SERVICE_FLOW, servicing.continue_node_service,
                    servicing.run_after_wait, servicing.replan))})
#: The same, by the state a ``hold`` step parks the node in.
BY_HOLD_STATE = types.MappingProxyType({
    waiting.flow.hold_state: waiting
    for waiting in BY_WAIT_STATE.values()})


def unhold(task, worker):
    """An operator's unhold: the held flow goes on with the step after
    the hold, at once (through its wait state, as if its agent had
    called back).

    :raises InvalidStateRequested: if the node is not held.
    """
    task.process_event(states.EVENT_UNHOLD)
    BY_WAIT_STATE[task.node.provision_state].resume(task, worker)


def replan(task, flow):
    """The plan of ``flow`` (a step_kinds.Flow) on ``task.node``, made
    again with what its agent reported."""
    return BY_WAIT_STATE[flow.wait_state].replan(task)
