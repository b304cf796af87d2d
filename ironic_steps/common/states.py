"""Provision states and the events that move a node between them.

The strings are Ironic's, so that existing clients and scripts read them
unchanged.  This module only names things; the legal moves live in
:mod:`ironic_steps.common.state_machine`.
"""

# Stable states: a node rests here until someone asks for something.
ENROLL = 'enroll'
MANAGEABLE = 'manageable'
AVAILABLE = 'available'
ACTIVE = 'active'
ERROR = 'error'

# Transient states: a conductor is working on the node.
VERIFYING = 'verifying'
CLEANING = 'cleaning'
DEPLOYING = 'deploying'
DELETING = 'deleting'
INSPECTING = 'inspecting'
ADOPTING = 'adopting'
RESCUING = 'rescuing'
UNRESCUING = 'unrescuing'
# Servicing: an active node runs the operator's service steps (API 1.87).
SERVICING = 'servicing'

# Waiting for an asynchronous step to call back (agent heartbeat).
CLEANWAIT = 'clean wait'
DEPLOYWAIT = 'wait call-back'
SERVICEWAIT = 'service wait'
# Held by a ``hold`` step until an operator's ``unhold`` (API 1.85).
DEPLOYHOLD = 'deploy hold'
CLEANHOLD = 'clean hold'
SERVICEHOLD = 'service hold'
# Waiting for the hardware to report what it has (an inspection that
# finishes later, such as one a ramdisk reports to).
INSPECTWAIT = 'inspect wait'
# Rescue: the node runs its rescue environment instead of its instance;
# its user logs in with the rescue password.
RESCUE = 'rescue'
# Waiting for the agent of a rescue environment to call back.
RESCUEWAIT = 'rescue wait'

# Failure states: the last operation failed; last_error says why.
CLEANFAIL = 'clean failed'
DEPLOYFAIL = 'deploy failed'
INSPECTFAIL = 'inspect failed'
ADOPTFAIL = 'adopt failed'
RESCUEFAIL = 'rescue failed'
UNRESCUEFAIL = 'unrescue failed'
SERVICEFAIL = 'service failed'

#: A node may be deleted only when nothing runs on it and no user has it;
#: its volume records change freely there too (elsewhere, powered off).
DELETE_ALLOWED_STATES = (ENROLL, MANAGEABLE, AVAILABLE, CLEANFAIL,
                         ADOPTFAIL)

# An allocation (not a node) is being processed until it holds a node
# (ACTIVE) or failed to find one (ERROR, its last_error says why).
ALLOCATING = 'allocating'
ALLOCATION_STATES = (ALLOCATING, ACTIVE, ERROR)

#: No target: the node is not moving towards anything.
NOSTATE = None

STABLE_STATES = (ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, ERROR, RESCUE)
FAILURE_STATES = (CLEANFAIL, DEPLOYFAIL, INSPECTFAIL, ADOPTFAIL, RESCUEFAIL,
                  UNRESCUEFAIL, SERVICEFAIL, ERROR)
#: A conductor holds (or held, if it died) the node's lock in these states.
WORKING_STATES = (VERIFYING, CLEANING, DEPLOYING, DELETING, INSPECTING,
                  ADOPTING, RESCUING, UNRESCUING, SERVICING)

# Events.  API "targets" map onto these in the API layer.
EVENT_MANAGE = 'manage'
EVENT_PROVIDE = 'provide'
EVENT_DEPLOY = 'deploy'
EVENT_ADOPT = 'adopt'
EVENT_RESCUE = 'rescue'
EVENT_UNRESCUE = 'unrescue'
EVENT_SERVICE = 'service'
EVENT_HOLD = 'hold'
EVENT_UNHOLD = 'unhold'
EVENT_REBUILD = 'rebuild'
EVENT_DELETE = 'delete'
EVENT_CLEAN = 'clean'
EVENT_INSPECT = 'inspect'
EVENT_WAIT = 'wait'
EVENT_RESUME = 'resume'
EVENT_DONE = 'done'
EVENT_FAIL = 'fail'
EVENT_ABORT = 'abort'

#: Power states, as Ironic spells them.
POWER_ON = 'power on'
POWER_OFF = 'power off'
#: Power targets that are actions rather than states a node rests in.
REBOOT = 'rebooting'
SOFT_REBOOT = 'soft rebooting'
SOFT_POWER_OFF = 'soft power off'

#: Why a node was put in maintenance by the service itself (``node.fault``),
#: as Ironic names the reasons.  ironic-steps sets none of them yet; they
#: are the values the ``fault`` list filter accepts.
FAULTS = ('power failure', 'clean failure', 'rescue abort failure',
          'service failure')
