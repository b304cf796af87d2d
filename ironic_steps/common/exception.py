"""Every error ironic-steps raises, one class each.

A class carries a message template filled from keyword arguments and, for
errors that reach the REST API, an HTTP status shared by its family:
:class:`Invalid` 400, :class:`ForbiddenAction` 403, :class:`NotFound` 404,
:class:`NotAcceptable` 406, :class:`Conflict` 409, :class:`TemporaryFailure`
503.  Messages are meant for people: they name the bad value and, where
there are any, the valid ones.
"""

import http


class IronicStepsException(Exception):
    """Base class: ``_msg_fmt`` % kwargs, or an explicit message."""

    _msg_fmt = 'An unknown error occurred.'
    code = http.HTTPStatus.INTERNAL_SERVER_ERROR

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self._msg_fmt % kwargs
            except (KeyError, TypeError) as exc:
                # A wrong template argument is our bug; keep the original
                # intent readable rather than failing inside an error path.
                message = '%s (message arguments %r: %s)' % (
                    self._msg_fmt, kwargs, exc)
        super().__init__(message)

    @property
    def message(self):
        return str(self)


# --- 400: the request or the driver input is wrong -------------------------

class Invalid(IronicStepsException):
    _msg_fmt = 'Invalid input.'
    code = http.HTTPStatus.BAD_REQUEST


class InvalidParameterValue(Invalid):
    _msg_fmt = '%(err)s'


class MissingParameterValue(InvalidParameterValue):
    _msg_fmt = '%(err)s'


class InvalidStateRequested(Invalid):
    _msg_fmt = ("The requested action '%(action)s' cannot be performed on "
                "node %(node)s while it is in state '%(state)s'. Actions "
                "allowed in that state: %(allowed)s.")


class InterfaceNotFoundInEntrypoint(Invalid):
    _msg_fmt = ("Interface '%(name)s' of type %(interface_type)s is not "
                "supported by hardware type %(hardware_type)s; it supports: "
                "%(valid)s.")


class InvalidStep(Invalid):
    _msg_fmt = '%(reason)s'


class InvalidUuidOrName(Invalid):
    _msg_fmt = ('%(name)r is neither a UUID nor a valid node name (1-255 '
                "letters, digits, '-', '.', '_' or '~').")


class UnsupportedDriverExtension(Invalid):
    _msg_fmt = ('Node %(node)s does not support %(extension)s: its '
                '%(extension)s interface is %(interface)s.')


class ResourceStillUsed(Invalid):
    _msg_fmt = ('%(what)s %(ident)s cannot be deleted: %(count)d %(users)s '
                'still belong to it (%(some)s); delete or move them first.')


class ReferencedResourceNotFound(Invalid):
    """A request body names a resource that does not exist (400, as
    Ironic answers for a node's chassis or a port's node)."""
    _msg_fmt = '%(what)s %(ident)s named in %(field)s could not be found.'


class NoFreePort(Invalid):
    _msg_fmt = ('Node %(node)s has no free port or portgroup to attach VIF '
                '%(vif)s to: %(why)s')


class NodeIsRetired(Invalid):
    _msg_fmt = ('Node %(node)s cannot be %(action)s because it is retired; '
                'set retired to false first.')


# --- 403: the node forbids it -----------------------------------------------

class ForbiddenAction(IronicStepsException):
    _msg_fmt = 'This action is forbidden.'
    code = http.HTTPStatus.FORBIDDEN


class NodeProtected(ForbiddenAction):
    _msg_fmt = ('Node %(node)s is protected and cannot be %(action)s; set '
                'protected to false first.')


class InvalidTrait(Invalid):
    _msg_fmt = 'Invalid trait: %(reason)s.'


class TooManyTraits(Invalid):
    _msg_fmt = ('Could not modify the traits of node %(node)s: it would have '
                '%(count)d traits, more than the %(max)d a node may have.')


class InvalidRequestedSteps(Invalid):
    _msg_fmt = ('The %(kind)s steps requested for node %(node)s cannot run, '
                'so nothing was changed: %(problems)s.')


class NothingToResume(Invalid):
    _msg_fmt = ('Node %(node)s has no failed deploy or servicing to '
                'resume: %(reason)s. Start it again instead (from its first '
                'step).')


class StepNotAbortable(Invalid):
    _msg_fmt = ('The %(flow)s of node %(node)s cannot be aborted while its '
                'step %(step)s runs: that step is not abortable. Abort once '
                'it is done.')


class InvalidAgentToken(Invalid):
    # Ironic's words, which agents and their operators know.
    _msg_fmt = 'Invalid or missing agent token received.'


# --- 404 --------------------------------------------------------------------

class NotFound(IronicStepsException):
    _msg_fmt = 'Resource could not be found.'
    code = http.HTTPStatus.NOT_FOUND


class NodeNotFound(NotFound):
    _msg_fmt = 'Node %(node)s could not be found.'


class InspectedNodeNotFound(NotFound):
    """The same for every reason, so that an anonymous caller learns
    nothing of the nodes (as Ironic's generic answer)."""
    _msg_fmt = ('No node waiting in "inspect wait" matches the MAC '
                'addresses and BMC address of this inventory.')


class ConductorNotFound(NotFound):
    _msg_fmt = 'Conductor %(conductor)s could not be found.'


class NodeTraitNotFound(NotFound):
    _msg_fmt = "Node %(node)s doesn't have a trait '%(trait)s'."


class BIOSSettingNotFound(NotFound):
    _msg_fmt = ("Node %(node)s has no BIOS setting '%(name)s'; GET "
                "/v1/nodes/%(node)s/bios lists the ones it has.")


class DeployTemplateNotFound(NotFound):
    _msg_fmt = 'Deploy template %(template)s could not be found.'


class RunbookNotApproved(Invalid):
    _msg_fmt = ('Runbook %(runbook)s is not approved for node %(node)s: '
                '%(reason)s')


class RunbookNotFound(NotFound):
    _msg_fmt = 'Runbook %(runbook)s could not be found.'


class InspectionRuleNotFound(NotFound):
    _msg_fmt = 'Inspection rule %(rule)s could not be found.'


class ResourceNotFound(NotFound):
    """A chassis, port, portgroup or volume record named in a URL."""
    _msg_fmt = '%(what)s %(ident)s could not be found.'


class AllocationNotFound(NotFound):
    _msg_fmt = 'Allocation %(allocation)s could not be found.'


class NodeInventoryNotFound(NotFound):
    _msg_fmt = ('Node inventory for node %(node)s could not be found: the '
                'node has not been inspected since it was enrolled.')


class DriverNotFound(NotFound):
    _msg_fmt = ("Hardware type '%(driver_name)s' is not enabled or not "
                "installed; enabled hardware types: %(enabled)s.")


# --- 406 --------------------------------------------------------------------

class NotAcceptable(IronicStepsException):
    _msg_fmt = 'Request not acceptable.'
    code = http.HTTPStatus.NOT_ACCEPTABLE


class NotOwnProject(ForbiddenAction):
    _msg_fmt = ('A caller scoped to project %(project)s may only create '
                '%(what)s its project owns; owner %(owner)s is another '
                'project.')


class RunbookNotOwned(ForbiddenAction):
    _msg_fmt = ('Runbook %(runbook)s is not owned by project %(project)s, '
                'which may change only its own runbooks.')


class NotInPinnedRelease(NotAcceptable):
    _msg_fmt = ('%(feature)s needs release %(needed)s; the services are '
                'pinned to release %(pinned)s ([DEFAULT] '
                'pin_release_version) until the rolling upgrade is over.')


# --- 409 --------------------------------------------------------------------

class Conflict(IronicStepsException):
    _msg_fmt = 'Conflict.'
    code = http.HTTPStatus.CONFLICT


class NodeLocked(Conflict):
    _msg_fmt = ('Node %(node)s is locked by host %(host)s, please retry '
                'after the current operation is completed.')


class NodeLockLost(Conflict):
    """A task's lock was taken from it (its conductor was judged dead and
    the node taken over): its change is not written."""

    _msg_fmt = ('Node %(node)s is no longer locked by %(holder)s (its lock '
                'is held by %(current)s); the change was not saved.')


class PowerOffDisabled(Conflict):
    """A power off of a node whose ``disable_power_off`` is set (API
    1.95): Ironic's PowerStateFailure, with the reason."""

    _msg_fmt = ('Failed to set node power state to %(pstate)s: node '
                '%(node)s has disable_power_off set; it may be rebooted, '
                'never powered off.')


class NodeAlreadyExists(Conflict):
    _msg_fmt = 'A node with UUID %(uuid)s already exists.'


class DuplicateName(Conflict):
    _msg_fmt = 'A node with name %(name)s already exists.'


class DeployTemplateDuplicateName(Conflict):
    _msg_fmt = 'A deploy template with name %(name)s already exists.'


class DeployTemplateAlreadyExists(Conflict):
    _msg_fmt = 'A deploy template with UUID %(uuid)s already exists.'


class RunbookDuplicateName(Conflict):
    _msg_fmt = 'A runbook with name %(name)s already exists.'


class RunbookAlreadyExists(Conflict):
    _msg_fmt = 'A runbook with UUID %(uuid)s already exists.'


class InspectionRuleAlreadyExists(Conflict):
    _msg_fmt = 'An inspection rule with UUID %(uuid)s already exists.'


class ResourceAlreadyExists(Conflict):
    _msg_fmt = 'A %(what)s with %(field)s %(value)s already exists.'


class VifAlreadyAttached(Conflict):
    _msg_fmt = 'VIF %(vif)s is already attached to %(where)s.'


class AllocationDuplicateName(Conflict):
    _msg_fmt = 'An allocation with name %(name)s already exists.'


class AllocationAlreadyExists(Conflict):
    _msg_fmt = 'An allocation with UUID %(uuid)s already exists.'


class NodeAssociated(Conflict):
    _msg_fmt = ('Node %(node)s is associated with instance %(instance)s; '
                'an allocation takes only a node without one.')


class NodeAllocated(Conflict):
    _msg_fmt = ('Node %(node)s is held by allocation %(allocation)s and '
                'cannot be %(action)s; delete the allocation first.')


class NodeInWrongState(Conflict):
    _msg_fmt = ('Node %(node)s cannot be %(action)s while it is in state '
                '%(state)s.')


class NodeHasChildren(Conflict):
    _msg_fmt = ('Node %(node)s cannot be deleted: it is the parent_node of '
                '%(children)s; give those nodes another parent_node (or '
                'none) or delete them first.')


# --- 503 --------------------------------------------------------------------

class TemporaryFailure(IronicStepsException):
    _msg_fmt = 'Resource temporarily unavailable, please retry.'
    code = http.HTTPStatus.SERVICE_UNAVAILABLE


class LockServiceUnavailable(TemporaryFailure):
    _msg_fmt = ('The lock service of node locks is unreachable (%(reason)s); '
                'please retry.')


class NoConductorOnline(TemporaryFailure):
    _msg_fmt = ('No conductor is online to handle the request; start '
                'ironic-steps-conductor or check its heartbeat.')


class NoFreeConductorWorker(TemporaryFailure):
    _msg_fmt = ('Requested action cannot be performed due to lack of free '
                'conductor workers.')


class DependencyUnreachable(TemporaryFailure):
    """A service this one needs is down; the API adds ``Retry-After``."""


class DatabaseUnreachable(DependencyUnreachable):
    _msg_fmt = ('The database is unreachable, so the request could not be '
                'served; retry once it is back.')


class BrokerUnreachable(DependencyUnreachable):
    _msg_fmt = ('The message broker is unreachable, so no conductor could '
                'be asked and nothing was done; retry once it is back.')


class NoConductorListening(DependencyUnreachable):
    _msg_fmt = ('No conductor is listening for requests (the message broker '
                'may have just restarted and the conductors not yet '
                'reconnected), so nothing was done; retry in a few seconds.')


class IdentityUnreachable(DependencyUnreachable):
    _msg_fmt = ('The identity service (Keystone) could not be asked to '
                'validate the token, so nothing was done; retry once it is '
                'back.')


# --- step framework: raised by drivers, caught by the conductor -------------

class AllocationAlreadyDecided(Conflict):
    """A conductor's outcome for an allocation that another conductor
    (one that took it over) decided first."""
    _msg_fmt = 'Allocation %(allocation)s is no longer allocating.'


class AllocationFailed(IronicStepsException):
    """Why an allocation got no node: what lands in its ``last_error``."""
    _msg_fmt = 'Failed to process allocation %(uuid)s: %(error)s.'
    code = http.HTTPStatus.BAD_REQUEST


class StepFailed(IronicStepsException):
    """A step could not complete; the flow that ran it fails the node."""

    _msg_fmt = 'Step %(step)s failed: %(reason)s'


class DeployStepFailed(StepFailed):
    _msg_fmt = 'Deploy step %(step)s failed: %(reason)s'


class CleanStepFailed(StepFailed):
    _msg_fmt = 'Clean step %(step)s failed: %(reason)s'


class DriverStepConflict(Conflict):
    """The driver offers steps that cannot be ordered: a driver bug.

    Found when a flow is planned, before the node moves, so the request is
    refused (409) with the node as it was.
    """

    _msg_fmt = ('Interface %(interface)s offers %(kind)s steps %(steps)s '
                'with the same priority %(priority)s; they cannot be '
                'ordered. This is a bug in the driver.')


class VirtualMediaFailed(Invalid):
    """The BMC refused to attach or detach a node's virtual media (an
    image it cannot fetch, a device it lacks); the node's ``last_error``
    says so too."""

    _msg_fmt = 'Could not %(action)s virtual media of node %(node)s: %(error)s'


class NoStepsFound(Invalid):
    _msg_fmt = 'No %(kind)s steps are offered by the driver of node %(node)s.'


class InvalidStepDefinition(IronicStepsException, ValueError):
    """A step decorator was applied with bad arguments (at import time)."""

    _msg_fmt = '@%(decorator)s on %(function)s: %(reason)s'


class RolesFileInvalid(IronicStepsException, ValueError):
    """``[api] http_basic_roles_file`` cannot be used (at start)."""

    _msg_fmt = '[api] http_basic_roles_file %(path)s: %(problem)s'


# --- hardware: a BMC said no, or did not answer ---------------------------

class BMCError(IronicStepsException):
    """A BMC refused a request, failed it, or could not be reached.

    Its message is the BMC's (or the connection's), never a credential.
    """

    _msg_fmt = 'BMC of node %(node)s: %(operation)s failed: %(error)s'


class BMCUnavailable(BMCError):
    """The BMC could not be reached, or answered that it cannot serve now
    (5xx), as a BMC does while it restarts during a firmware update.

    A polled step's check that raises it is tried again at the next
    interval, until the step's timeout; anything else ends the step.
    """

    transient = True


class BMCTimeout(BMCError):
    _msg_fmt = ('BMC of node %(node)s: %(operation)s did not happen within '
                '%(timeout)s seconds; the BMC last reported %(last)s')


class VirtualMediaUnavailable(TemporaryFailure):
    """The BMC could not be asked to attach or detach a node's virtual
    media; the node's ``last_error`` says so too."""

    _msg_fmt = 'Could not %(action)s virtual media of node %(node)s: %(error)s'


class HardwareInspectionFailure(IronicStepsException):
    """An inspect interface could not tell what the hardware has."""

    _msg_fmt = 'Failed to inspect hardware of node %(node)s: %(error)s'


class InspectionRulesFileInvalid(IronicStepsException):
    """``[inspection_rules] built_in_rules`` cannot be read as rules."""

    _msg_fmt = 'Built-in inspection rules file %(path)s: %(reason)s'


# --- configurations the service refuses to start with -----------------------

class UnauthenticatedCaller(IronicStepsException):
    _msg_fmt = ('This API authenticates nobody (auth_strategy is noauth), '
                'so it serves this machine only; a caller from %(address)s '
                'is refused. Set auth_strategy = http_basic or keystone, '
                'or [api] allow_noauth_off_loopback = true to accept that '
                'anyone who reaches it administers every node.')
    code = http.HTTPStatus.FORBIDDEN


class TooManyFailedLogins(IronicStepsException):
    _msg_fmt = ('%(failures)s failed logins from this address within '
                '%(window)s seconds: try again in %(retry_after)s seconds.')
    code = http.HTTPStatus.TOO_MANY_REQUESTS


class APICannotListen(IronicStepsException):
    _msg_fmt = ('The API cannot listen on %(host)s port %(port)s: '
                '%(reason)s. Another service (another ironic-steps?) may '
                'hold the port: stop it, or set [api] host_ip and port.')


class APICannotServeTLS(IronicStepsException):
    _msg_fmt = ('The API cannot serve TLS ([api] enable_ssl_api is true): '
                '%(reason)s.')


class UnauthenticatedOnNetwork(IronicStepsException):
    _msg_fmt = ('auth_strategy is noauth, which makes every caller an '
                'administrator, and [api] host_ip %(host)s is not a loopback '
                'address. Listen on 127.0.0.1, set auth_strategy = '
                'http_basic or keystone, or set [api] '
                'allow_noauth_off_loopback = true '
                'to accept that anyone who reaches the port administers '
                'every node.')


class NoDriversLoaded(IronicStepsException):
    _msg_fmt = ('Conductor %(conductor)s cannot start: none of the enabled '
                'hardware types (%(enabled)s) is installed and in the '
                'pinned release, so it could serve no node. Check '
                '[DEFAULT] enabled_hardware_types.')


# --- the agent: ironic-python-agent refused, failed or did not answer -------
#
# Raised by drivers/modules/agent_client.py.  ``agent`` names the agent as
# "the agent of node X at URL", a URL that never carries the agent token;
# ``command`` is the command (deploy.get_deploy_steps) or the request
# (GET /v1/commands/).  Busy (409) and unreachable (503) are ``transient``:
# a polled step's check that meets them is asked again next interval.

class AgentError(IronicStepsException):
    """Something went wrong between the conductor and a node's agent."""

    _msg_fmt = 'Talking to %(agent)s failed: %(error)s'


class AgentURLUnknown(AgentError):
    """The node's agent has not told its URL yet (no heartbeat)."""

    _msg_fmt = ('Node %(node)s has no agent URL (driver_internal_info/'
                'agent_url): its agent has not heartbeated yet.')
    transient = True


class AgentAPIError(AgentError):
    """The agent answered, but with an error or an answer not understood."""

    _msg_fmt = ('Request %(command)s to %(agent)s was answered with HTTP '
                '%(status)s: %(error)s')


class AgentIsBusy(AgentError):
    """The agent was still running another command: it runs one at a
    time."""

    _msg_fmt = ('Request %(command)s to %(agent)s was refused: the agent is '
                'busy (%(error)s); attempt %(attempt)d of %(attempts)d.')
    code = http.HTTPStatus.CONFLICT
    transient = True


class AgentTokenRefused(AgentError):
    """The agent refused the token (401/403): sending it again cannot
    help."""

    _msg_fmt = ('Request %(command)s to %(agent)s was refused with HTTP '
                '%(status)s: %(why)s.')


class AgentConnectionFailed(AgentError):
    _msg_fmt = ('Could not reach %(agent)s for %(command)s: %(reason)s; '
                'attempt %(attempt)d of %(attempts)d.')
    code = http.HTTPStatus.SERVICE_UNAVAILABLE
    transient = True


class AgentCommandTimeout(AgentError):
    _msg_fmt = ('Command %(command)s (%(command_id)s) was still running on '
                '%(agent)s after %(checks)d checks %(interval)s seconds '
                'apart.')


class AgentStepsInvalid(AgentError):
    """The agent's answer to get_<kind>_steps is not a list of steps."""

    _msg_fmt = ('The agent of node %(node)s reported %(kind)s steps that '
                'cannot be used: %(reason)s.')
