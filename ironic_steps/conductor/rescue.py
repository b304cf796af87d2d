"""The rescue flows: ``rescue`` boots an active node into its rescue
environment, ``unrescue`` back into its instance (API 1.38, release 0.11).

* **rescue** (from ``active``, ``rescue``, ``rescue failed`` or ``unrescue
  failed``): the rescue password is kept in
  ``instance_info['rescue_password']`` (write-only: masked in every view,
  as any key naming a password) for the rescue interface to set, and from
  release 0.12 its crypt(3) hash in ``hashed_rescue_password`` for an
  agent; the node's power and rescue interfaces must validate, else
  nothing changes; then ``rescuing``, and the rescue interface boots the
  environment: ``rescue`` once it runs.  An environment with an agent
  (the ``agent`` rescue interface) is waited for in ``rescue wait``: the
  agent's heartbeat finishes the rescue (:func:`agent_called_back`),
  ``[conductor] rescue_callback_timeout`` or an operator's ``abort``
  fails it.  A failure is ``rescue failed``, ``last_error`` saying why
  and the password gone.
* **unrescue** (from ``rescue`` or either failure): ``unrescuing``, the
  rescue interface boots the instance again; ``active``, the password
  gone.  A failure is ``unrescue failed``.

A rescued node may be torn down like an active one.  While the services
are pinned to a release before 0.11 neither is accepted: its conductors
know no rescue.
"""

from oslo_log import log
from oslo_utils import secretutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import agent_token
from ironic_steps.conductor import wait_timeouts
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: The release that brought rescue.
RELEASE = '0.11'
#: Where the rescue password waits for the rescue interface, and its
#: hash for an agent (as Ironic keeps them).
PASSWORD_KEY = 'rescue_password'
HASHED_PASSWORD_KEY = 'hashed_rescue_password'
#: The release that hashes the password for an agent.
HASHING_RELEASE = '0.12'
#: crypt(3) methods, by the name [conductor] gives them.
_HASH_METHODS = {'sha256': 'SHA-256', 'sha512': 'SHA-512'}


def _check_release(node_uuid, action):
    if release_mappings.pinned_before(CONF, RELEASE):
        raise exception.NotInPinnedRelease(
            feature='%s node %s' % (action, node_uuid), needed=RELEASE,
            pinned=CONF.pin_release_version)


def _check_password(password):
    if not isinstance(password, str) or not password.strip():
        raise exception.InvalidParameterValue(
            err='rescue_password must be a non-empty string: the password '
                'of the rescue environment\'s user')


def _forget_password(node):
    info = node.instance_info or {}
    if PASSWORD_KEY in info or HASHED_PASSWORD_KEY in info:
        node.instance_info = {
            key: value for key, value in info.items()
            if key not in (PASSWORD_KEY, HASHED_PASSWORD_KEY)}


def _hashed(password):
    method = _HASH_METHODS[CONF.conductor.rescue_password_hash_algorithm]
    return secretutils.crypt_password(password,
                                      secretutils.crypt_mksalt(method))


def start_rescue(task, worker, rescue_password):
    """Check, keep the password, and hand the rescue to ``worker``.

    :raises InvalidParameterValue: for a bad password; NotInPinnedRelease
        while pinned before 0.11; UnsupportedDriverExtension for
        ``no-rescue``; what the power or rescue interface's validation
        raises.
    """
    node = task.node
    _check_release(node.uuid, 'Rescuing')
    _check_password(rescue_password)
    task.driver.power.validate(task)
    task.driver.rescue.validate(task)
    kept = {PASSWORD_KEY: rescue_password}
    if not release_mappings.pinned_before(CONF, HASHING_RELEASE):
        kept[HASHED_PASSWORD_KEY] = _hashed(rescue_password)
    node.instance_info = {**(node.instance_info or {}), **kept}
    # The rescue environment's agent looks the node up afresh.
    agent_token.forget_agent(node)
    task.start_work(states.EVENT_RESCUE, worker, do_rescue)


def do_rescue(task):
    """Worker: boot the rescue environment."""
    _run(task, task.driver.rescue.rescue, states.RESCUE, 'rescue')


def _run(task, call, expected, action):
    """Call the rescue interface's ``call`` and move the node by what it
    answered: done when ``expected``, waiting for the rescue agent on
    ``rescue wait`` (rescue only), failed (``last_error`` naming the node
    and the cause) on anything else or an error.  The password goes once
    the node is active again, or when a rescue failed."""
    node = task.node
    try:
        result = call(task)
        if action == 'rescue' and result == states.RESCUEWAIT:
            LOG.info('Node %s waits for its rescue agent', node.uuid)
            task.process_event(states.EVENT_WAIT)
            task.save_and_release()
            return
        if result != expected:
            raise exception.IronicStepsException(
                'the rescue interface answered %r' % (result,))
    except Exception as exc:
        LOG.warning('%s of node %s failed: %s', action.capitalize(),
                    node.uuid, exc, exc_info=not isinstance(
                        exc, exception.IronicStepsException))
        _fail(task, 'Failed to %s node %s: %s' % (action, node.uuid, exc),
              action)
        return
    else:
        LOG.info('Node %s: %s done, now %s', node.uuid, action, expected)
        if expected == states.ACTIVE:
            _forget_password(node)
        task.process_event(states.EVENT_DONE)
    task.save_and_release()


def _fail(task, error, action='rescue', event=states.EVENT_FAIL):
    """The rescue (or unrescue) failed: ``error`` is the node's last
    error; a rescue's preparations are undone and its password goes."""
    node = task.node
    node.last_error = error
    if action == 'rescue':
        try:
            task.driver.rescue.clean_up(task)
        except Exception as exc:
            LOG.warning('Node %s: cleaning up after its failed rescue '
                        'failed too: %s', node.uuid, exc)
        _forget_password(node)
        agent_token.forget_agent(node)
    task.process_event(event)
    task.save_and_release()


def agent_called_back(task, worker):
    """The rescue agent heartbeats (its node in ``rescue wait``): the
    rescue interface finishes the rescue in ``worker``."""
    task.process_event(states.EVENT_RESUME)
    task.hand_over(worker, _finish)


def _finish(task):
    _run(task, task.driver.rescue.finish_rescue, states.RESCUE, 'rescue')


def abort(task):
    """Stop a rescue waiting for its agent, at the operator's request:
    ``rescue failed``."""
    LOG.info('Rescue of node %s aborted by request', task.node.uuid)
    _fail(task, 'Rescue of node %s aborted by request' % task.node.uuid,
          event=states.EVENT_ABORT)


def fail_timed_out(context, acquire, owns):
    """Fail the rescues waiting for their agent longer than
    ``[conductor] rescue_callback_timeout``."""
    def fail(task, timeout):
        LOG.warning('Rescue of node %s timed out', task.node.uuid)
        _fail(task, 'Timeout reached while waiting for the rescue agent of '
                    'node %s after %s seconds' % (task.node.uuid, timeout))
    wait_timeouts.fail_overdue(
        context, acquire, owns, states.RESCUEWAIT,
        CONF.conductor.rescue_callback_timeout, fail, 'rescue timeout')


def start_unrescue(task, worker):
    """Check and hand the unrescue to ``worker``."""
    _check_release(task.node.uuid, 'Unrescuing')
    task.driver.rescue.validate(task)
    task.start_work(states.EVENT_UNRESCUE, worker, do_unrescue)


def do_unrescue(task):
    """Worker: boot the instance again."""
    _run(task, task.driver.rescue.unrescue, states.ACTIVE, 'unrescue')
