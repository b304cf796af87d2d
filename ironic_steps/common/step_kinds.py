"""The kinds of step a driver offers, and the flow that runs each kind.

A step's kind names the flow that runs it (``deploy`` here is a kind of
step, not the deploy interface).  The step decorators mark methods with a
kind (:mod:`ironic_steps.drivers.base`, which re-exports these names for
driver authors), the conductor plans and records steps by kind, and the
API filters the step history by it: all import them from here, below all.

What tells one flow from another (the states it runs and waits in, where
its progress is kept in ``driver_internal_info``, its timeout option) is
declared once, in :data:`FLOWS`: the conductor runs every flow from it,
and a driver that needs to know which flow its step belongs to reads it
too (:func:`running_in`), never a table of its own.  Servicing was one
more entry.
"""

import dataclasses
import types

from ironic_steps.common import interfaces
from ironic_steps.common import states

DEPLOY = 'deploy'
CLEAN = 'clean'
SERVICE = 'service'
STEP_KINDS = (DEPLOY, CLEAN, SERVICE)
#: Step names Ironic reserves for the conductor, whatever the interface
#: (``ironic_steps.conductor.reserved_steps``): no driver step has one.
RESERVED_STEP_NAMES = frozenset(['hold', 'power_off', 'power_on', 'reboot',
                                 'wait'])


def labels(interface, step):
    """The labels (``interface.step``) a rule about this step may name.

    A reserved step runs the same whatever interface a request names it
    on, so a rule naming it on one interface (``power.reboot`` in a
    disallow list or a policy rule) covers every spelling of it
    (``management.reboot``); any other step has its one label.
    """
    if step in RESERVED_STEP_NAMES:
        return tuple('%s.%s' % (name, step) for name in sorted(
            set(interfaces.ALL_INTERFACES) | {interface}))
    return ('%s.%s' % (interface, step),)


@dataclasses.dataclass(frozen=True)
class Flow:
    """One flow of steps: what distinguishes it from the others."""

    kind: str
    #: The state a node runs this flow's steps in, the one it waits in,
    #: and the one a ``hold`` step parks it in until an operator's unhold.
    running_state: str
    wait_state: str
    hold_state: str
    #: How log and error messages name the whole flow.
    name: str
    #: The [conductor] option: seconds a step may wait for its agent.
    timeout_option: str
    #: Whether an abort must wait for a step that is not abortable.
    abort_needs_abortable_step: bool
    #: The deploy interface's methods that boot what runs the flow's steps
    #: (its agent) before them, and undo that when every step is done
    #: (None: the flow's own code does it).
    prepare: str | None = None
    tear_down: str | None = None
    #: Where ``driver_internal_info`` says the flow runs without booting
    #: the agent (``disable_ramdisk``; None: the flow cannot).
    disable_ramdisk_key: str | None = None

    @property
    def under_way(self):
        """The states a node is in while this flow is under way."""
        return (self.running_state, self.wait_state)

    @property
    def step_field(self):
        """The node field that shows the running step."""
        return '%s_step' % self.kind

    @property
    def steps_key(self):
        """Where the plan is kept in ``driver_internal_info``."""
        return '%s_steps' % self.kind

    @property
    def index_key(self):
        """Where the running step's index in the plan is kept."""
        return '%s_step_index' % self.kind

    @property
    def requested_key(self):
        """Where the caller's own steps are kept while the flow runs, to
        plan it again once the agent reports its steps (Ironic's
        ``user_deploy_steps``)."""
        return 'user_%s_steps' % self.kind

    def without_ramdisk(self, node):
        """Whether ``node`` runs this flow without booting its agent."""
        return bool(self.disable_ramdisk_key and (
            node.driver_internal_info or {}).get(self.disable_ramdisk_key))

    @property
    def title(self):
        return self.kind.capitalize()


DEPLOY_FLOW = Flow(kind=DEPLOY, running_state=states.DEPLOYING,
                   wait_state=states.DEPLOYWAIT,
                   hold_state=states.DEPLOYHOLD, name='Deploy',
                   timeout_option='deploy_callback_timeout',
                   abort_needs_abortable_step=False)
CLEAN_FLOW = Flow(kind=CLEAN, running_state=states.CLEANING,
                  wait_state=states.CLEANWAIT, hold_state=states.CLEANHOLD,
                  name='Cleaning',
                  timeout_option='clean_callback_timeout',
                  abort_needs_abortable_step=True,
                  prepare='prepare_cleaning',
                  tear_down='tear_down_cleaning',
                  disable_ramdisk_key='cleaning_disable_ramdisk')
# Servicing (release 0.12) runs only the steps an operator asks for, on
# an active node, as manual cleaning does on a manageable one; any
# waiting step may be aborted (Ironic 35+), the node then being whole.
SERVICE_FLOW = Flow(kind=SERVICE, running_state=states.SERVICING,
                    wait_state=states.SERVICEWAIT,
                    hold_state=states.SERVICEHOLD, name='Servicing',
                    timeout_option='service_callback_timeout',
                    abort_needs_abortable_step=False,
                    prepare='prepare_service',
                    tear_down='tear_down_service',
                    disable_ramdisk_key='service_disable_ramdisk')

#: Every flow, by the kind of step it runs.
FLOWS = types.MappingProxyType({flow.kind: flow for flow in (
    DEPLOY_FLOW, CLEAN_FLOW, SERVICE_FLOW)})

#: The states a node waits in, for its agent or a poll, in some flow.
WAIT_STATES = tuple(flow.wait_state for flow in FLOWS.values())
#: The states a hold step parks a node in, in some flow.
HOLD_STATES = tuple(flow.hold_state for flow in FLOWS.values())
#: A node is on its way somewhere in these states: a conductor works on
#: it, or it waits (for its agent, a poll, the hardware, an operator's
#: unhold).  Its driver and interfaces stay as they are meanwhile.
UNDER_WAY_STATES = (states.WORKING_STATES + WAIT_STATES + HOLD_STATES
                    + (states.INSPECTWAIT, states.RESCUEWAIT))
#: An agent serves the node in these states (a flow's running, waiting
#: and held states, and a rescue environment's wait), and may look it up.
AGENT_STATES = tuple(state for flow in FLOWS.values()
                     for state in (*flow.under_way, flow.hold_state)) + (
    states.RESCUEWAIT,)
#: An agent may look its node up in these states: those of the flows it
#: serves, and those of an inspection in band, which it serves too (an
#: agent's inventory is answered with the token, as a lookup is).
LOOKUP_STATES = AGENT_STATES + (states.INSPECTING, states.INSPECTWAIT)


def running_in(provision_state):
    """The flow whose steps run in ``provision_state``, or None."""
    for flow in FLOWS.values():
        if flow.running_state == provision_state:
            return flow
    return None
