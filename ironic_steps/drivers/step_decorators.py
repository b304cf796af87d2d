"""Step decorators: what makes an interface method a step.

A *step* is a method of a driver interface, marked with :func:`deploy_step`,
:func:`clean_step` or :func:`service_step`, that the conductor may run
while deploying, cleaning or servicing a node.  The decorators are front
doors to one machinery: they
validate their arguments when applied, so a driver with a bad declaration
fails at import time with a message naming the method, and they record a
:class:`StepMark` on the function.  The interfaces' base class
(:class:`ironic_steps.drivers.base.BaseInterface`) gathers the marks of
every subclass when the class is created and offers them through
``get_deploy_steps`` / ``get_clean_steps`` / ``get_service_steps``.

The *argsinfo* shape, used by both kinds::

    {'<argument name>': {'description': '<text, naming valid values>',
                         'required': <bool, optional, default False>}}

The *step dict* that crosses this boundary is described in
:class:`ironic_steps.conductor.steps.Step`.

Two declarations go beyond Ironic's (release 0.6; pinned to an older
release the conductor ignores them, as that release would):

* ``timeout=`` (seconds): how long the step may take, waiting included;
  operators may override it per requested step.  The conductor fails the
  step, naming it and the limit, when it returns after that time or is
  still waiting (for its agent or its poll) past it.  A running method is
  never interrupted: Python cannot stop a thread, so a step that hangs
  holds its worker until it returns, and fails then.
* ``resumable=False``: what the step sets up does not survive a failed
  deploy (a ramdisk booted, state held in memory by an agent), and the
  steps after it rely on it.  A deploy resumed after a failure (the
  ``x-steps/resume`` extension) then starts again at the earliest such
  step that ran, instead of at the failed step; see
  :func:`ironic_steps.conductor.resume_points.resume_point`.

One more says what argsinfo cannot (release 0.9):

* ``precheck=`` a function ``precheck(task, **args)`` that raises
  InvalidParameterValue (or MissingParameterValue) when the step could
  not run on the node with those arguments: a RAID step with no layout
  to build (no ``raid_config`` argument, no target RAID configuration).
  The conductor calls it for every step of a plan while planning, so a
  request that could only fail is refused (400, naming the step) before
  anything changes, and a preview shows why.  It reads, never changes:
  a preview calls it too, without the node's lock.

And one is Ironic's (release 0.10):

* ``requires_ramdisk=`` (clean and service steps; default True, as
  Ironic): whether the step needs the node booted into its agent.  Manual
  cleaning with ``disable_ramdisk`` boots no agent and refuses, before
  anything changes, a step that says it needs one; an out-of-band step
  that only talks to the BMC says ``requires_ramdisk=False``.

Service steps (release 0.12) run only when an operator asks for them, on
an active node (``service`` with ``service_steps``, API 1.87); their
priority is kept for Ironic's sake and orders nothing.
"""

import copy
import dataclasses
import typing

from ironic_steps.common import exception
from ironic_steps.common import step_kinds

DEPLOY = step_kinds.DEPLOY
CLEAN = step_kinds.CLEAN
SERVICE = step_kinds.SERVICE
RESERVED_STEP_NAMES = step_kinds.RESERVED_STEP_NAMES

_ARGSINFO_KEYS = frozenset(['description', 'required'])


@dataclasses.dataclass(frozen=True)
class StepMark:
    """What a step decorator records about one method for one kind."""

    kind: str
    priority: int
    argsinfo: typing.Mapping | None = None
    abortable: bool = False
    #: Seconds the step may take, waiting included; None: no limit.
    timeout: float | None = None
    #: False: a resumed deploy must run this step again (module docstring).
    resumable: bool = True
    #: ``precheck(task, **args)``: raises when the step cannot run.
    precheck: typing.Callable | None = None
    #: Whether the step needs the node booted into its agent.
    requires_ramdisk: bool = True


def _check_priority(priority):
    # bool is an int subclass, but True as a priority is a typo, not a plan.
    if (not isinstance(priority, int) or isinstance(priority, bool)
            or priority < 0):
        return ('priority must be a non-negative integer, got %r (%s)'
                % (priority, type(priority).__name__))


def check_timeout(timeout):
    """What is wrong with a step timeout, if anything (None is no limit).
    """
    if timeout is None:
        return None
    if (not isinstance(timeout, (int, float)) or isinstance(timeout, bool)
            or not timeout > 0 or timeout == float('inf')):
        return ('timeout must be None or a positive number of seconds, got '
                '%r' % (timeout,))
    return None


def _check_argsinfo(argsinfo):
    if argsinfo is None:
        return None
    if not isinstance(argsinfo, dict):
        return ('argsinfo must be None or a dict of argument name -> '
                'dict, got %r (%s)' % (argsinfo, type(argsinfo).__name__))
    for name, info in argsinfo.items():
        if not isinstance(name, str) or not name.isidentifier():
            return ('argsinfo argument name %r is not a valid Python '
                    'identifier' % (name,))
        if not isinstance(info, dict):
            return ("argsinfo['%s'] must be a dict with 'description' and "
                    "optional 'required', got %r" % (name, info))
        unknown = sorted(set(info) - _ARGSINFO_KEYS)
        if unknown:
            return ("argsinfo['%s'] has unknown key(s) %s; allowed: "
                    "description, required" % (name, ', '.join(unknown)))
        if not isinstance(info.get('description'), str):
            return ("argsinfo['%s']['description'] is required and must be "
                    "a string, got %r" % (name, info.get('description')))
        if not isinstance(info.get('required', False), bool):
            return ("argsinfo['%s']['required'] must be a bool, got %r"
                    % (name, info['required']))


def _step_decorator(decorator, mark_fields):
    """Build a decorator that validates ``mark_fields`` and records them."""

    def decorate(func):
        name = getattr(func, '__qualname__', repr(func))
        if not callable(func):
            raise exception.InvalidStepDefinition(
                decorator=decorator, function=name,
                reason='it can only decorate a method')
        reason = (_check_priority(mark_fields['priority'])
                  or _check_argsinfo(mark_fields['argsinfo']))
        if getattr(func, '__name__', None) in RESERVED_STEP_NAMES:
            reason = ('%s is a step name the conductor reserves (it runs '
                      'such a step on any interface itself); name the '
                      'method otherwise' % func.__name__)
        for flag in ('abortable', 'resumable', 'requires_ramdisk'):
            value = mark_fields.get(flag, True)
            if not reason and not isinstance(value, bool):
                reason = '%s must be a bool, got %r' % (flag, value)
        reason = reason or check_timeout(mark_fields.get('timeout'))
        precheck = mark_fields.get('precheck')
        if not reason and precheck is not None and not callable(precheck):
            reason = ('precheck must be None or a function (task, **args), '
                      'got %r' % (precheck,))
        if reason:
            raise exception.InvalidStepDefinition(
                decorator=decorator, function=name, reason=reason)
        # A private copy: later edits of the author's dict must neither
        # change the step nor dodge the validation above.
        mark = StepMark(
            argsinfo=copy.deepcopy(mark_fields['argsinfo']) or None,
            **{k: v for k, v in mark_fields.items() if k != 'argsinfo'})
        # A method may be a step of several kinds: keep one mark per kind.
        func._step_marks = {**getattr(func, '_step_marks', {}),
                            mark.kind: mark}
        return func

    return decorate


def deploy_step(priority, argsinfo=None, timeout=None, resumable=True,
                precheck=None):
    """Mark an interface method as a deploy step.

    :param priority: non-negative int; higher runs earlier, 0 runs only
        when requested explicitly.
    :param argsinfo: None or the argsinfo shape described in this module.
    :param timeout: None, or the seconds the step may take, waiting
        included (see the module docstring).
    :param resumable: False if a resumed deploy must run this step again
        (see the module docstring).
    :param precheck: None, or what says, while planning, that the step
        cannot run (see the module docstring).
    :raises InvalidStepDefinition: when applied with bad arguments.
    """
    return _step_decorator('deploy_step', {
        'kind': DEPLOY, 'priority': priority, 'argsinfo': argsinfo,
        'timeout': timeout, 'resumable': resumable, 'precheck': precheck})


def clean_step(priority, abortable=False, argsinfo=None, timeout=None,
               precheck=None, requires_ramdisk=True):
    """Mark an interface method as a clean step; see :func:`deploy_step`.

    :param abortable: whether cleaning may be aborted while this step runs.
    :param requires_ramdisk: False if the step runs without the node's
        agent (see the module docstring).
    """
    return _step_decorator('clean_step', {
        'kind': CLEAN, 'priority': priority, 'argsinfo': argsinfo,
        'abortable': abortable, 'timeout': timeout, 'precheck': precheck,
        'requires_ramdisk': requires_ramdisk})


def service_step(priority=0, abortable=False, argsinfo=None, timeout=None,
                 precheck=None, requires_ramdisk=True):
    """Mark an interface method as a service step; see :func:`clean_step`.

    :param priority: kept as Ironic keeps it; a servicing runs exactly
        the steps requested, in their order.
    """
    return _step_decorator('service_step', {
        'kind': SERVICE, 'priority': priority, 'argsinfo': argsinfo,
        'abortable': abortable, 'timeout': timeout, 'precheck': precheck,
        'requires_ramdisk': requires_ramdisk})
