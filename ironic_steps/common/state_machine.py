"""The provision state machine: which event moves a node from which state.

The table below is read top to bottom as a node's life: enrol, verify,
inspect, clean, deploy (with its wait call-back loop), service, tear
down.  It is checked when
the module is imported: every state is reachable from ``enroll`` and no
state is a trap without a way out.  Running the work behind a transition is
the conductor's job, not this module's.
"""

from automaton import exceptions as automaton_exc
from automaton import machines

from ironic_steps.common import exception
from ironic_steps.common import states as s

#: Where a node entering a transient state is heading, unless it moves
#: within one flow (cleaning <-> clean wait), which keeps the flow's target;
#: stable and failure states head nowhere.
TARGETS = {
    s.VERIFYING: s.MANAGEABLE,
    s.CLEANING: s.AVAILABLE,
    s.CLEANWAIT: s.AVAILABLE,
    s.DEPLOYING: s.ACTIVE,
    s.DEPLOYWAIT: s.ACTIVE,
    s.DELETING: s.AVAILABLE,
    s.INSPECTING: s.MANAGEABLE,
    s.INSPECTWAIT: s.MANAGEABLE,
    s.ADOPTING: s.ACTIVE,
    s.RESCUING: s.RESCUE,
    s.RESCUEWAIT: s.RESCUE,
    s.UNRESCUING: s.ACTIVE,
    s.DEPLOYHOLD: s.ACTIVE,
    s.CLEANHOLD: s.AVAILABLE,
    s.SERVICING: s.ACTIVE,
    s.SERVICEWAIT: s.ACTIVE,
    s.SERVICEHOLD: s.ACTIVE,
}

_TRANSITIONS = (
    # A new node is verified (its power credentials checked) on manage.
    (s.ENROLL, s.EVENT_MANAGE, s.VERIFYING),
    (s.VERIFYING, s.EVENT_DONE, s.MANAGEABLE),
    (s.VERIFYING, s.EVENT_FAIL, s.ENROLL),
    # A manageable node is inspected: its hardware read and recorded.
    (s.MANAGEABLE, s.EVENT_INSPECT, s.INSPECTING),
    # Read at once (out of band), it is manageable again.
    (s.INSPECTING, s.EVENT_DONE, s.MANAGEABLE),
    (s.INSPECTING, s.EVENT_FAIL, s.INSPECTFAIL),
    # Or the hardware reports later (in band): the node waits for it.
    (s.INSPECTING, s.EVENT_WAIT, s.INSPECTWAIT),
    (s.INSPECTWAIT, s.EVENT_RESUME, s.INSPECTING),
    (s.INSPECTWAIT, s.EVENT_DONE, s.MANAGEABLE),
    (s.INSPECTWAIT, s.EVENT_FAIL, s.INSPECTFAIL),
    # An operator may stop an inspection that waits for the hardware.
    (s.INSPECTWAIT, s.EVENT_ABORT, s.INSPECTFAIL),
    # A node that failed inspection goes back to the operator, or is
    # inspected again.
    (s.INSPECTFAIL, s.EVENT_MANAGE, s.MANAGEABLE),
    (s.INSPECTFAIL, s.EVENT_INSPECT, s.INSPECTING),
    # provide runs automated cleaning before a node becomes available.
    (s.MANAGEABLE, s.EVENT_PROVIDE, s.CLEANING),
    (s.CLEANING, s.EVENT_WAIT, s.CLEANWAIT),
    (s.CLEANWAIT, s.EVENT_RESUME, s.CLEANING),
    (s.CLEANING, s.EVENT_DONE, s.AVAILABLE),
    (s.CLEANING, s.EVENT_FAIL, s.CLEANFAIL),
    (s.CLEANWAIT, s.EVENT_FAIL, s.CLEANFAIL),
    # Manual cleaning: the operator's clean steps, back to manageable.
    (s.MANAGEABLE, s.EVENT_CLEAN, s.CLEANING),
    (s.CLEANING, s.EVENT_MANAGE, s.MANAGEABLE),
    # A hold step parks the flow until an operator's unhold, which goes on
    # with the next step (through the wait state, as a heartbeat would).
    (s.CLEANING, s.EVENT_HOLD, s.CLEANHOLD),
    (s.CLEANHOLD, s.EVENT_UNHOLD, s.CLEANWAIT),
    (s.CLEANHOLD, s.EVENT_ABORT, s.CLEANFAIL),
    # An operator may stop a flow that waits for its agent.
    (s.CLEANWAIT, s.EVENT_ABORT, s.CLEANFAIL),
    # A node that failed cleaning goes back to the operator.
    (s.CLEANFAIL, s.EVENT_MANAGE, s.MANAGEABLE),
    (s.AVAILABLE, s.EVENT_MANAGE, s.MANAGEABLE),
    # Deploying alternates with wait call-back for every asynchronous step.
    (s.AVAILABLE, s.EVENT_DEPLOY, s.DEPLOYING),
    (s.DEPLOYING, s.EVENT_WAIT, s.DEPLOYWAIT),
    (s.DEPLOYWAIT, s.EVENT_RESUME, s.DEPLOYING),
    (s.DEPLOYING, s.EVENT_DONE, s.ACTIVE),
    (s.DEPLOYING, s.EVENT_FAIL, s.DEPLOYFAIL),
    (s.DEPLOYWAIT, s.EVENT_FAIL, s.DEPLOYFAIL),
    (s.DEPLOYWAIT, s.EVENT_ABORT, s.DEPLOYFAIL),
    # A deploy waiting for its agent may be torn down (as in Ironic:
    # Metal3 deletes a host stuck so before abort there, API 1.110).
    (s.DEPLOYWAIT, s.EVENT_DELETE, s.DELETING),
    (s.DEPLOYING, s.EVENT_HOLD, s.DEPLOYHOLD),
    (s.DEPLOYHOLD, s.EVENT_UNHOLD, s.DEPLOYWAIT),
    (s.DEPLOYHOLD, s.EVENT_ABORT, s.DEPLOYFAIL),
    # A failed deploy may be retried, or the node torn down.
    (s.DEPLOYFAIL, s.EVENT_DEPLOY, s.DEPLOYING),
    (s.DEPLOYFAIL, s.EVENT_REBUILD, s.DEPLOYING),
    (s.DEPLOYFAIL, s.EVENT_DELETE, s.DELETING),
    # Adoption: a node already running its workload becomes active
    # without a deploy; a failed adoption is retried, or given back.
    (s.MANAGEABLE, s.EVENT_ADOPT, s.ADOPTING),
    (s.ADOPTING, s.EVENT_DONE, s.ACTIVE),
    (s.ADOPTING, s.EVENT_FAIL, s.ADOPTFAIL),
    (s.ADOPTFAIL, s.EVENT_ADOPT, s.ADOPTING),
    (s.ADOPTFAIL, s.EVENT_MANAGE, s.MANAGEABLE),
    # Rescue: an active node boots its rescue environment; unrescue boots
    # its instance again.  Either may be retried after a failure, or the
    # node torn down.  A rescue environment with an agent is waited for
    # (rescue wait) until the agent calls back and takes the password.
    (s.ACTIVE, s.EVENT_RESCUE, s.RESCUING),
    (s.RESCUING, s.EVENT_DONE, s.RESCUE),
    (s.RESCUING, s.EVENT_FAIL, s.RESCUEFAIL),
    (s.RESCUING, s.EVENT_WAIT, s.RESCUEWAIT),
    (s.RESCUEWAIT, s.EVENT_RESUME, s.RESCUING),
    (s.RESCUEWAIT, s.EVENT_FAIL, s.RESCUEFAIL),
    (s.RESCUEWAIT, s.EVENT_ABORT, s.RESCUEFAIL),
    (s.RESCUE, s.EVENT_RESCUE, s.RESCUING),
    (s.RESCUE, s.EVENT_UNRESCUE, s.UNRESCUING),
    (s.UNRESCUING, s.EVENT_DONE, s.ACTIVE),
    (s.UNRESCUING, s.EVENT_FAIL, s.UNRESCUEFAIL),
    (s.RESCUEFAIL, s.EVENT_RESCUE, s.RESCUING),
    (s.RESCUEFAIL, s.EVENT_UNRESCUE, s.UNRESCUING),
    (s.UNRESCUEFAIL, s.EVENT_RESCUE, s.RESCUING),
    (s.UNRESCUEFAIL, s.EVENT_UNRESCUE, s.UNRESCUING),
    (s.RESCUE, s.EVENT_DELETE, s.DELETING),
    (s.RESCUEFAIL, s.EVENT_DELETE, s.DELETING),
    (s.UNRESCUEFAIL, s.EVENT_DELETE, s.DELETING),
    # Servicing: an active node runs the operator's service steps,
    # alternating with service wait, and is active again.  A failed
    # servicing is serviced again, aborted back to active (the operator
    # decides the node is fine), rescued or torn down.
    (s.ACTIVE, s.EVENT_SERVICE, s.SERVICING),
    (s.SERVICING, s.EVENT_WAIT, s.SERVICEWAIT),
    (s.SERVICEWAIT, s.EVENT_RESUME, s.SERVICING),
    (s.SERVICING, s.EVENT_DONE, s.ACTIVE),
    (s.SERVICING, s.EVENT_FAIL, s.SERVICEFAIL),
    (s.SERVICEWAIT, s.EVENT_FAIL, s.SERVICEFAIL),
    (s.SERVICEWAIT, s.EVENT_ABORT, s.SERVICEFAIL),
    (s.SERVICING, s.EVENT_HOLD, s.SERVICEHOLD),
    (s.SERVICEHOLD, s.EVENT_UNHOLD, s.SERVICEWAIT),
    (s.SERVICEHOLD, s.EVENT_ABORT, s.SERVICEFAIL),
    (s.SERVICEFAIL, s.EVENT_SERVICE, s.SERVICING),
    (s.SERVICEFAIL, s.EVENT_ABORT, s.ACTIVE),
    (s.SERVICEFAIL, s.EVENT_RESCUE, s.RESCUING),
    (s.SERVICEFAIL, s.EVENT_DELETE, s.DELETING),
    # An active node can be redeployed in place or torn down.
    (s.ACTIVE, s.EVENT_REBUILD, s.DEPLOYING),
    (s.ACTIVE, s.EVENT_DELETE, s.DELETING),
    # Tear down ends in cleaning, so the next user gets a clean machine.
    (s.DELETING, s.EVENT_CLEAN, s.CLEANING),
    (s.DELETING, s.EVENT_FAIL, s.ERROR),
    (s.ERROR, s.EVENT_REBUILD, s.DEPLOYING),
    (s.ERROR, s.EVENT_DELETE, s.DELETING),
)


def _check_shape(transitions):
    """Refuse a table with unreachable states or states with no way out."""
    edges = {}
    for start, _event, end in transitions:
        edges.setdefault(start, set()).add(end)
        edges.setdefault(end, set())
    reached, frontier = {s.ENROLL}, [s.ENROLL]
    while frontier:
        for nxt in edges[frontier.pop()] - reached:
            reached.add(nxt)
            frontier.append(nxt)
    unreachable = sorted(set(edges) - reached)
    traps = sorted(state for state, ends in edges.items() if not ends)
    if unreachable or traps:
        raise RuntimeError('Broken provision state machine: unreachable %s, '
                           'no way out of %s' % (unreachable, traps))


def _build():
    _check_shape(_TRANSITIONS)
    machine = machines.FiniteMachine()
    for start, _event, end in _TRANSITIONS:
        for state in (start, end):
            if state not in machine:
                machine.add_state(state)
    for start, event, end in _TRANSITIONS:
        machine.add_transition(start, end, event)
    machine.default_start_state = s.ENROLL
    machine.freeze()
    return machine


MACHINE = _build()
#: Every provision state a node can be in.
STATES = frozenset(state for start, _event, end in _TRANSITIONS
                   for state in (start, end))


def target_after(old_state, old_target, new_state):
    """The target provision state once a node moved to ``new_state``.

    A flow keeps the target it started with while it moves between its
    transient states: manual cleaning heads back to ``manageable`` through
    ``cleaning`` and ``clean wait``, automated cleaning to ``available``.
    """
    if new_state not in TARGETS:
        return None
    if old_state in TARGETS and old_target is not None:
        return old_target
    return TARGETS[new_state]


def events_from(state):
    """The events a node in ``state`` accepts, sorted."""
    return sorted(event for start, event, _end in _TRANSITIONS
                  if start == state)


def next_state(state, event, node=None):
    """Return the state ``event`` leads to from ``state``.

    :raises InvalidStateRequested: naming the state, the event and the
        events that would have been accepted.
    """
    machine = MACHINE.copy(shallow=True)
    try:
        machine.initialize(state)
        machine.process_event(event)
    except (automaton_exc.NotFound, automaton_exc.InvalidState) as exc:
        raise exception.InvalidStateRequested(
            action=event, node=node or '(unknown)', state=state,
            allowed=', '.join(events_from(state)) or 'none') from exc
    return machine.current_state
