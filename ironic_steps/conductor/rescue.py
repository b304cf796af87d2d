"""The rescue flows: ``rescue`` boots an active node into its rescue
environment, ``unrescue`` back into its instance (API 1.38, release 0.11).

* **rescue** (from ``active``, ``rescue``, ``rescue failed`` or ``unrescue
  failed``): the rescue password is kept in
  ``instance_info['rescue_password']`` (write-only: masked in every view,
  as any key naming a password) for the rescue interface to set; the
  node's power and rescue interfaces must validate, else nothing changes;
  then ``rescuing``, and the rescue interface boots the environment:
  ``rescue`` once it runs (no interface here waits for a rescue agent
  yet, so Ironic's ``rescue wait`` is not entered).  A failure
  is ``rescue failed``, ``last_error`` saying why and the password gone.
* **unrescue** (from ``rescue`` or either failure): ``unrescuing``, the
  rescue interface boots the instance again; ``active``, the password
  gone.  A failure is ``unrescue failed``.

A rescued node may be torn down like an active one.  While the services
are pinned to a release before 0.11 neither is accepted: its conductors
know no rescue.
"""

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

#: The release that brought rescue.
RELEASE = '0.11'
#: Where the rescue password waits for the rescue interface.
PASSWORD_KEY = 'rescue_password'


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
    if PASSWORD_KEY in info:
        node.instance_info = {key: value for key, value in info.items()
                              if key != PASSWORD_KEY}


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
    node.instance_info = {**(node.instance_info or {}),
                          PASSWORD_KEY: rescue_password}
    task.start_work(states.EVENT_RESCUE, worker, do_rescue)


def do_rescue(task):
    """Worker: boot the rescue environment."""
    _run(task, task.driver.rescue.rescue, states.RESCUE, 'rescue')


def _run(task, call, expected, action):
    """Call the rescue interface's ``call`` and move the node by what it
    answered: done when ``expected``, failed (``last_error`` naming the
    node and the cause) on anything else or an error.  The password goes
    once the node is active again, or when a rescue failed."""
    node = task.node
    try:
        result = call(task)
        if result != expected:
            raise exception.IronicStepsException(
                'the rescue interface answered %r' % (result,))
    except Exception as exc:
        LOG.warning('%s of node %s failed: %s', action.capitalize(),
                    node.uuid, exc, exc_info=not isinstance(
                        exc, exception.IronicStepsException))
        node.last_error = 'Failed to %s node %s: %s' % (
            action, node.uuid, exc)
        if action == 'rescue':
            _forget_password(node)
        task.process_event(states.EVENT_FAIL)
    else:
        LOG.info('Node %s: %s done, now %s', node.uuid, action, expected)
        if expected == states.ACTIVE:
            _forget_password(node)
        task.process_event(states.EVENT_DONE)
    task.save_and_release()


def start_unrescue(task, worker):
    """Check and hand the unrescue to ``worker``."""
    _check_release(task.node.uuid, 'Unrescuing')
    task.driver.rescue.validate(task)
    task.start_work(states.EVENT_UNRESCUE, worker, do_unrescue)


def do_unrescue(task):
    """Worker: boot the instance again."""
    _run(task, task.driver.rescue.unrescue, states.ACTIVE, 'unrescue')
