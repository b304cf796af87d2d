"""Steps every node runs whatever its driver: power on, power off, reboot,
wait, hold.

Ironic reserves these step names: a request may name one on any interface
(``{"interface": "power", "step": "power_off"}``) in its deploy steps, a
deploy template, manual cleaning or servicing, and the conductor runs it,
not the
interface.  Here as there, and, unlike Ironic 39, never dropped from a
plan:

* ``power_on``, ``power_off``, ``reboot``: the node's power interface, at
  once; ``power_off`` also forgets the agent's token and URL, so that the
  agent the machine boots next looks up afresh;
* ``wait`` with ``seconds`` (at most ``[conductor]
  max_conductor_wait_step_seconds``): the node waits in the flow's wait
  state *without its lock* (an operator's abort works meanwhile, and
  cleaning counts it abortable), polled as out-of-band work is
  (:mod:`step_polling`): the flow goes on at least ``seconds`` later, and
  at most about ``[conductor] step_poll_interval`` / 5 after that;
* ``wait`` without ``seconds``: until the node's agent next heartbeats,
  for deploy interfaces with an agent; refused for the others, where no
  heartbeat would ever come;
* ``hold`` (release 0.12): the node waits in the flow's hold state
  (``deploy hold``, ``clean hold``, ``service hold``), unlocked and
  without a time limit, until an operator's ``unhold`` (API 1.85) goes on
  with the next step at once, or an ``abort`` fails the flow.

What a request may say of them is checked with everything else, before
anything changes (:func:`problem`).  A driver cannot offer a step of one
of these names: the decorators refuse it.  They arrive with release 0.9:
pinned to an older one they are unknown steps, as they would be to its
conductors.
"""

import datetime

from oslo_utils import timeutils

from ironic_steps.common import interfaces
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import agent_steps
from ironic_steps.conductor import agent_token
from ironic_steps.conductor import power
from ironic_steps.conf import CONF
from ironic_steps.drivers import base
from ironic_steps import release_mappings

SINCE_RELEASE = '0.9'
#: Reserved step name -> the power action it runs.
_POWER_ACTIONS = {'power_on': states.POWER_ON,
                  'power_off': states.POWER_OFF,
                  'reboot': states.REBOOT}
WAIT = 'wait'
HOLD = 'hold'
NAMES = frozenset(_POWER_ACTIONS) | {WAIT, HOLD}
#: ``hold`` came with the unhold verb (API 1.85) in this release.
HOLD_SINCE_RELEASE = '0.12'
#: What each reserved step takes, as a driver step's argsinfo says it.
ARGSINFO = {
    WAIT: {'seconds': {
        'description': 'How many seconds to wait (a positive integer, at '
                       'most [conductor] max_conductor_wait_step_seconds); '
                       'without it, until the node\'s agent next '
                       'heartbeats.',
        'required': False}},
}
#: The method name a polled wait is recorded under (no interface has it).
_WAIT_CHECK = 'reserved_wait'


def is_reserved(name):
    """Whether step ``name`` is one of these (or reserved but not run
    here), in the running release."""
    return (name in step_kinds.RESERVED_STEP_NAMES
            and not release_mappings.pinned_before(CONF, SINCE_RELEASE))


def step_dict(raw, kind):
    """The plan's step dict of ``raw``, a checked request for one."""
    name = raw['step']
    return {'interface': raw['interface'], 'step': name,
            'priority': raw.get('priority', 0),
            'argsinfo': ARGSINFO.get(name), 'args': dict(raw.get('args') or {}),
            # A wait or a hold may be cut short by an abort; a power
            # action is over before anyone could.
            'abortable': (name in (WAIT, HOLD) if kind != base.DEPLOY
                          else None),
            'timeout': raw.get('timeout')}


def problem(task, raw):
    """Why ``raw``, a well-shaped request for a reserved step, cannot run
    on ``task.node``; None if it can."""
    label = '%s.%s' % (raw['interface'], raw['step'])
    if raw['step'] == HOLD and release_mappings.pinned_before(
            CONF, HOLD_SINCE_RELEASE):
        return ('reserved step %s needs release %s (its unhold verb, API '
                '1.85); the services are pinned to %s' % (
                    label, HOLD_SINCE_RELEASE, CONF.pin_release_version))
    if raw['interface'] not in interfaces.ALL_INTERFACES:
        return ('reserved step %s: %r is no interface; any of %s may name '
                'it' % (label, raw['interface'],
                        ', '.join(interfaces.ALL_INTERFACES)))
    args = raw.get('args') or {}
    allowed = ARGSINFO.get(raw['step'], {})
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        return ('reserved step %s does not take argument(s) %s; it takes: '
                '%s' % (label, ', '.join(map(str, unknown)),
                        ', '.join(allowed) or 'no arguments'))
    if raw['step'] != WAIT:
        return None
    seconds = args.get('seconds')
    if seconds is None:
        if not agent_steps.uses_agent(task):
            return ('reserved step %s without seconds waits for the agent\'s '
                    'next heartbeat, and the deploy interface of node %s '
                    'has no agent: give seconds' % (label, task.node.uuid))
        return None
    most = CONF.conductor.max_conductor_wait_step_seconds
    if (not isinstance(seconds, int) or isinstance(seconds, bool)
            or not 0 < seconds <= most):
        return ('reserved step %s: seconds must be an integer from 1 to %d '
                '([conductor] max_conductor_wait_step_seconds), got %r'
                % (label, most, seconds))
    return None


def requires_ramdisk(raw):
    """Whether reserved step ``raw`` needs the node's agent: only a
    ``wait`` for its next heartbeat does."""
    return raw['step'] == WAIT and (raw.get('args') or {}).get(
        'seconds') is None


def execute(task, step, flow):
    """Run reserved ``step`` (a step dict) in ``flow``: None when done, or
    the flow's wait state."""
    name = step['step']
    if name in _POWER_ACTIONS:
        if name == 'power_off':
            agent_token.forget_agent(task.node)
        power.act(task, _POWER_ACTIONS[name])
        return None
    if name == HOLD:
        return flow.hold_state
    seconds = (step.get('args') or {}).get('seconds')
    if seconds is None:
        return base.wait_for_agent(task)
    now = timeutils.utcnow()
    until = now + datetime.timedelta(seconds=seconds)
    task.node.driver_internal_info = {
        **(task.node.driver_internal_info or {}),
        base.POLLING_KEY: {
            'interface': step['interface'], 'method': _WAIT_CHECK,
            'reserved': True, 'args': {'until': until.isoformat()},
            # Never cut short by the poll's own limit: the step's is
            # ``seconds``, and the check ends it.
            'timeout': seconds + 10 * CONF.conductor.step_poll_interval,
            'interval': seconds, 'started_at': now.isoformat(),
            'status': 'waiting until %s' % until.isoformat()}}
    return flow.wait_state


def wait_is_over(task, until):
    """The check of a polled wait: done once ``until`` (ISO time) passed."""
    if timeutils.utcnow() >= timeutils.parse_isotime(until).replace(
            tzinfo=None):
        return base.DONE
    return 'waiting until %s' % until


def check_of(task, polling):
    """The check a polled step's record names: a reserved wait's, or its
    interface's method."""
    if polling.get('reserved'):
        return wait_is_over
    return getattr(getattr(task.driver, polling['interface']),
                   polling['method'])
