"""Plan a node's steps: collect them from its interfaces, check, order.

This module decides *which* steps run and in *what order*; it never saves a
node and never runs a step (that is :mod:`ironic_steps.conductor.step_runner`).

Ordering rules, the same for every kind of step:

* steps with priority 0 are dropped: they run only when requested;
* the rest run from the highest priority to the lowest;
* equal priorities on different interfaces are ordered by the kind's
  interface order below (earlier in the tuple runs first);
* equal non-zero priorities on one interface cannot be ordered: that is a
  driver bug, reported as :class:`~ironic_steps.common.exception.
  DriverStepConflict` naming the steps.

Operators choose steps the ways Ironic's users do (:class:`Request`):

* a deploy runs the driver's steps, overridden by the steps of the deploy
  templates the node's instance asks for, overridden by the caller's
  ``deploy_steps``; each source matches steps on (interface, step) and may
  change a step's priority and arguments, or disable it with priority 0,
  or enable a step that is off by default (priority 0 in the driver);
  ``deploy.deploy`` may be disabled but not moved;
* manual cleaning runs exactly the caller's ``clean_steps``, and servicing
  its ``service_steps``, in the order given (:func:`manual_plan`).

A requested step is checked against what the node's interfaces offer:
a step they do not offer, an argument its argsinfo does not declare, a
required argument missing from a step that will run, a bad priority, a
step asked twice by one source, or two steps of one interface that would
run at one priority are all refused with
:class:`~ironic_steps.common.exception.InvalidRequestedSteps` (400), which
names every problem and the step it concerns; so are steps the operator
forbids and steps whose precheck says they cannot run
(:mod:`step_admission`).  A step only the node's agent may offer is
checked once it reports its steps (:class:`Merge`, ``deferred``).

Beyond Ironic (release 0.6, the ``x-steps`` extension; off while pinned to
an older release, see :mod:`ironic_steps.common.x_steps`):

* :func:`merge` is the one place a plan is made: :func:`plan` raises its
  problems, a preview reports them, with where each step came from and
  why each step left out is off (:class:`Merge`);
* a requested step may say ``timeout`` (seconds, overriding the step's
  declared one); a step's ``timeout`` and ``resumable`` travel in its
  dict (:class:`Step`);
* where a failed deploy resumes is :mod:`resume_points`'s.
"""

import copy
import dataclasses
import types
import typing

from ironic_steps.common import exception
from ironic_steps.common import step_kinds
from ironic_steps.common import x_steps
from ironic_steps.conductor import agent_steps
# Named here too, where the planner's users have always found it.
from ironic_steps.conductor.planned_step import Step  # noqa
from ironic_steps.conductor import reserved_steps
from ironic_steps.conductor import step_admission
from ironic_steps.drivers import base

#: Tie-breaks between interfaces, per kind.  Deploying prepares the machine
#: (deploy, power, management, boot) before it reconfigures hardware; when
#: cleaning, power and management settle the machine before disks are
#: touched.  Firmware comes before BIOS and RAID, as in Ironic.  The
#: interfaces ironic-steps does not run (their no-op
#: implementations offer no steps) come last, in Ironic's order.
_NOT_RUN = ('network', 'storage', 'inspect', 'console', 'rescue')
INTERFACE_ORDER = types.MappingProxyType({
    base.DEPLOY: ('deploy', 'power', 'management', 'boot', 'firmware',
                  'bios', 'raid', 'vendor') + _NOT_RUN,
    base.CLEAN: ('power', 'management', 'deploy', 'boot', 'firmware',
                 'bios', 'raid', 'vendor') + _NOT_RUN,
    # Servicing runs what it is asked in the order asked; this order only
    # lists the steps offered.
    base.SERVICE: ('power', 'management', 'deploy', 'boot', 'firmware',
                   'bios', 'raid', 'vendor') + _NOT_RUN,
})

#: What a requested step may say, per kind: (required, optional); ``args``
#: is required for deploy steps, as in Ironic's API.  ``timeout`` is the
#: extension's, accepted only while it is on.
_REQUEST_KEYS = types.MappingProxyType({
    base.DEPLOY: (('interface', 'step', 'args', 'priority'), ('timeout',)),
    base.CLEAN: (('interface', 'step'), ('args', 'timeout')),
    base.SERVICE: (('interface', 'step'), ('args', 'timeout')),
})
_EXTENSION_REQUEST_KEYS = ('timeout',)
#: Ironic's "core" deploy step: it may be disabled, never moved.
CORE_STEPS = frozenset([('deploy', 'deploy')])


def _getter(interface, kind):
    # Drivers may override the per-kind front doors, so call those.
    return getattr(interface, 'get_%s_steps' % kind, None)


def collect(task, kind):
    """Every step of ``kind`` the node's interfaces offer, unordered, and
    the steps its agent last reported that none of them shadows.

    While the extension is off, steps come without its declarations.
    """
    found = []
    for interface_type in INTERFACE_ORDER[kind]:
        getter = _getter(getattr(task.driver, interface_type), kind)
        if getter is None:
            continue   # an interface from before steps existed
        found.extend(Step.from_dict(step) for step in getter(task) or ())
    found.extend(Step.from_dict(step) for step in agent_steps.offered(
        task, kind, {(step.interface, step.name) for step in found}))
    if not x_steps.enabled():
        found = [step.without_extensions() for step in found]
    return found


def _check_conflicts(steps, kind):
    by_slot = {}
    for step in steps:
        by_slot.setdefault((step.interface, step.priority), []).append(step)
    for (interface, priority), same in sorted(by_slot.items()):
        if len(same) > 1:
            raise exception.DriverStepConflict(
                interface=interface, kind=kind, priority=priority,
                steps=', '.join(sorted(step.label for step in same)))


def order(steps, kind):
    """Sort ``steps`` into running order (see the module docstring)."""
    rank = {name: i for i, name in enumerate(INTERFACE_ORDER[kind])}
    return sorted(steps, key=lambda step: (
        -step.priority, rank.get(step.interface, len(rank))))


@dataclasses.dataclass(frozen=True)
class Request:
    """Steps one source asks for, as the caller gave them (step dicts).

    :param source: how error messages name the source, e.g.
        ``'deploy_steps'`` or ``'deploy template CUSTOM_RAID'``.
    :param origins: where each step came from, as a preview says it
        (``'user'``, ``'template CUSTOM_RAID'``), one per step; None:
        ``source`` for every step.
    """

    source: str
    steps: typing.Sequence
    origins: typing.Sequence | None = None

    def origin(self, index):
        return self.origins[index] if self.origins else self.source


def _label(raw):
    """``interface.step`` of a requested step, as far as it names them."""
    return '.'.join(part if isinstance(part, str) else '?'
                    for part in (raw.get('interface'), raw.get('step')))


def shown(value):
    """``value`` (from a request) as an error message may show it: a
    scalar quoted, an object or a list only named, never its contents.

    A step's arguments may carry credentials, which no message (and so no
    log line of a refusal) may repeat: the API's rule for secrets.
    """
    if isinstance(value, dict):
        return 'an object'
    if isinstance(value, (list, tuple)):
        return 'a list'
    return repr(value)


def _shape_problem(raw, kind):
    """What is wrong with the shape of one requested step, if anything."""
    required, optional = _REQUEST_KEYS[kind]
    if not isinstance(raw, dict):
        return 'each step must be an object with %s; got %s' % (
            ', '.join(required), shown(raw))
    missing = [key for key in required if key not in raw]
    if missing:
        return 'step %s lacks %s' % (_label(raw), ', '.join(missing))
    if not x_steps.enabled():
        optional = tuple(key for key in optional
                         if key not in _EXTENSION_REQUEST_KEYS)
    unknown = sorted(set(raw) - set(required) - set(optional))
    if unknown:
        return 'step %s has unknown key(s) %s; a %s step takes: %s' % (
            _label(raw), ', '.join(map(str, unknown)), kind,
            ', '.join(required + optional))
    for key in ('interface', 'step'):
        if not isinstance(raw[key], str) or not raw[key]:
            return 'step %s: %s must be a non-empty string, got %s' % (
                _label(raw), key, shown(raw[key]))
    if not isinstance(raw.get('args', {}), dict):
        return 'step %s: args must be an object, got %s' % (
            _label(raw), shown(raw['args']))
    if 'priority' in raw:
        priority = raw['priority']
        if (not isinstance(priority, int) or isinstance(priority, bool)
                or priority < 0):
            return ('step %s: priority must be a non-negative integer, got '
                    '%s' % (_label(raw), shown(priority)))
    problem = base.check_timeout(raw.get('timeout'))
    if problem:
        return 'step %s: %s' % (_label(raw), problem.replace(
            repr(raw['timeout']), shown(raw['timeout'])))
    return None


def _offered_problem(raw, offered, kind):
    """Whether the node offers the requested step with its arguments."""
    step = offered.get((raw['interface'], raw['step']))
    if step is None:
        return ('the node offers no %s step %s; it offers: %s' % (
            kind, _label(raw), ', '.join(sorted(
                s.label for s in offered.values())) or 'none'))
    declared = step.argsinfo or {}
    undeclared = sorted(set(raw.get('args') or {}) - set(declared))
    if undeclared:
        return ('%s step %s does not take argument(s) %s; it takes: %s' % (
            kind, step.label, ', '.join(undeclared),
            ', '.join(sorted(declared)) or 'no arguments'))
    return None


def _missing_arguments_problem(step, kind):
    missing = sorted(name for name, info in (step.argsinfo or {}).items()
                     if info.get('required') and name not in step.args)
    if missing:
        return '%s step %s needs argument(s) %s (%s)' % (
            kind, step.label, ', '.join(missing), '; '.join(
                '%s: %s' % (name, step.argsinfo[name]['description'])
                for name in missing))
    return None


def _core_problem(raw, kind):
    if (kind == base.DEPLOY and raw['priority'] != 0
            and (raw['interface'], raw['step']) in CORE_STEPS):
        return ('%s is a core deploy step: it may be disabled (priority 0) '
                'but not given priority %s' % (_label(raw), raw['priority']))
    return None


#: Problems named in one refusal; a request of thousands of bad steps
#: must not make a message (and a log line) of megabytes.
MAX_PROBLEMS_SHOWN = 10


def _refuse(task, kind, problems):
    if problems:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        if len(problems) > len(shown):
            shown.append('and %d more' % (len(problems) - len(shown)))
        raise exception.InvalidRequestedSteps(
            kind=kind, node=task.node.uuid, problems='; '.join(shown))


def _requested(offered_step, raw):
    """``offered_step`` as ``raw`` (a checked requested step) changes it."""
    return dataclasses.replace(
        offered_step, priority=raw.get('priority', offered_step.priority),
        args=copy.deepcopy(raw.get('args') or {}),
        timeout=raw.get('timeout', offered_step.timeout))


def _apply(task, requests, offered, kind, problems, deferred=None,
           forbidden=frozenset()):
    """Override ``offered`` (by (interface, step)) with ``requests``.

    :param deferred: a list to put requested steps nobody offers in,
        rather than refusing them: the node's agent has not reported its
        steps yet, and may offer them; None refuses them.
    :param forbidden: labels of steps no request may enable
        (:mod:`step_admission`).
    :returns: the merged steps by key, and the keys some request named
        -> (the source that named them last, its origin).
    """
    merged = dict(offered)
    requested = {}
    for request in requests:
        seen = set()
        for index, raw in enumerate(request.steps):
            problem = _shape_problem(raw, kind)
            if problem is None:
                key = (raw['interface'], raw['step'])
                if key in seen:
                    problem = '%s is asked for twice' % _label(raw)
                seen.add(key)
            problem = problem or _forbidden_problem(raw, kind, forbidden)
            if problem is None and reserved_steps.is_reserved(raw['step']):
                problem = reserved_steps.problem(task, raw)
                if problem is None:
                    merged[key] = Step.from_dict(
                        reserved_steps.step_dict(raw, kind))
                    requested[key] = (request.source, request.origin(index))
                    continue
            if (problem is None and deferred is not None
                    and key not in offered):
                deferred.append((raw, request.origin(index)))
                continue
            problem = (problem or _offered_problem(raw, offered, kind)
                       or _core_problem(raw, kind))
            if problem:
                problems.append('%s: %s' % (request.source, problem))
                continue
            merged[key] = _requested(offered[key], raw)
            requested[key] = (request.source, request.origin(index))
    return merged, requested


def _forbidden_problem(raw, kind, forbidden):
    if (raw.get('priority') != 0 and not forbidden.isdisjoint(
            step_kinds.labels(raw['interface'], raw['step']))):
        return step_admission.refusal(kind, _label(raw))
    return None


def _request_conflicts(enabled, requested, kind):
    """Problems for steps of one interface tied at one priority because
    of a request (a tie among the driver's own steps is a driver bug)."""
    by_slot = {}
    for step in enabled:
        by_slot.setdefault((step.interface, step.priority), []).append(step)
    return ['%s steps %s would run at one priority (%d) on interface %s; '
            'give them different priorities' % (
                kind, ' and '.join(sorted(s.label for s in same)), priority,
                interface)
            for (interface, priority), same in sorted(by_slot.items())
            if len(same) > 1 and any((s.interface, s.name) in requested
                                     for s in same)]


#: Where a step a preview shows came from when no request named it.
DRIVER = 'driver'


@dataclasses.dataclass(frozen=True)
class Merge:
    """What planning found: the plan and everything said about it.

    :param steps: the steps to run, in running order.
    :param origins: (interface, step) -> where the step's priority and
        arguments came from: :data:`DRIVER` or a request's origin.
    :param disabled: (step, origin, why) for each step offered but not
        run, in the kind's interface order.
    :param problems: why the requests would be refused; a plan with
        problems is never run.
    :param driver_conflict: the DriverStepConflict of two of the
        driver's own steps that tie, or None.
    :param deferred: (requested step, origin) for each step asked for that
        no interface offers while the node's agent has not reported its
        steps yet: checked, and planned, once it has (in-band steps are
        known after the agent starts).
    """

    kind: str
    steps: typing.Sequence
    origins: typing.Mapping
    disabled: typing.Sequence
    problems: typing.Sequence
    driver_conflict: Exception | None = None
    deferred: typing.Sequence = ()

    def origin(self, step):
        return self.origins.get((step.interface, step.name), DRIVER)

    @property
    def errors(self):
        """Every reason a flow run this way would be refused, as text."""
        return list(self.problems) + (
            [str(self.driver_conflict)] if self.driver_conflict else [])


def _why_disabled(step, origin):
    if origin == DRIVER:
        return ('priority 0 in the driver: runs only when a deploy template '
                'or the caller asks for it')
    return 'disabled (priority 0) by %s' % origin


def merge(task, kind, requests=()):
    """Plan the steps of ``kind`` on ``task.node`` without refusing.

    The only planner: :func:`plan` runs it and raises its problems, a
    preview shows them.  See the module docstring for the rules.
    """
    offered = {(step.interface, step.name): step
               for step in collect(task, kind)}
    problems = []
    deferred = [] if _agent_steps_unknown(task, kind) else None
    forbidden = step_admission.disallowed(kind)
    merged, requested = _apply(task, requests, offered, kind, problems,
                               deferred, forbidden)
    enabled = [step for step in merged.values()
               if step.priority > 0 and step.label not in forbidden]
    for step in enabled:
        source, _origin = requested.get((step.interface, step.name),
                                        (DRIVER, None))
        problem = (_missing_arguments_problem(step, kind) if source != DRIVER
                   else None) or step_admission.precheck_problem(task, step,
                                                                 kind)
        if problem:
            problems.append('%s: %s' % (source, problem))
    problems.extend(_request_conflicts(enabled, requested, kind))
    problems.extend(agent_steps.before_the_agent(enabled, kind))
    if requests and not enabled and not problems and not deferred:
        problems.append('the requests disable every %s step; at least one '
                        'must run' % kind)
    try:
        _check_conflicts(enabled, kind)
        conflict = None
    except exception.DriverStepConflict as exc:
        conflict = exc
    origins = {key: origin for key, (_source, origin) in requested.items()}
    disabled = [(step, origins.get(key, DRIVER),
                 _why_disabled(step, origins.get(key, DRIVER))
                 if step.priority == 0 else step_admission.why_left_out(kind))
                for key, step in merged.items()
                if step.priority == 0 or step.label in forbidden]
    return Merge(kind=kind, steps=order(enabled, kind), origins=origins,
                 disabled=_in_interface_order(disabled, kind),
                 problems=problems, driver_conflict=conflict,
                 deferred=deferred or ())


def _agent_steps_unknown(task, kind):
    """Whether the node's agent may offer steps it has not reported."""
    return (agent_steps.uses_agent(task)
            and agent_steps.cached(task.node, kind) is None)


def _in_interface_order(disabled, kind):
    rank = {name: i for i, name in enumerate(INTERFACE_ORDER[kind])}
    return sorted(disabled, key=lambda entry: (
        rank.get(entry[0].interface, len(rank)), entry[0].name))


def plan(task, kind, requests=()):
    """The steps of ``kind`` to run on ``task.node``, in running order.

    :param requests: :class:`Request` s overriding the driver's steps,
        each overriding the ones before it (see the module docstring).
    :raises InvalidRequestedSteps: if a request cannot be honoured.
    :raises DriverStepConflict: if two of the driver's steps tie.
    """
    return raise_problems(task, merge(task, kind, requests))


def raise_problems(task, merged):
    """The steps of ``merged``, or the refusal its problems make."""
    _refuse(task, merged.kind, list(merged.problems))
    if merged.driver_conflict is not None:
        raise merged.driver_conflict
    return list(merged.steps)


def manual_plan(task, requested_steps, disable_ramdisk=False,
                kind=base.CLEAN):
    """The caller's steps of ``kind`` (clean, for manual cleaning, or
    service), checked, in the order given.

    Priorities do not order them; each step keeps its driver's priority
    and abortability, for the record.

    :param disable_ramdisk: the node's agent is not booted (API 1.70):
        every step must run without it.
    :raises InvalidRequestedSteps: if a step cannot be honoured, or none
        is given.
    """
    return raise_problems(task, manual_merge(task, requested_steps,
                                             disable_ramdisk, kind))


def manual_merge(task, requested_steps, disable_ramdisk=False,
                 kind=base.CLEAN):
    """:func:`manual_plan` without refusing: a :class:`Merge` whose steps
    are the ones that could run, all from the user, none disabled; steps
    the node's agent may offer once it reports are ``deferred`` (unless
    ``disable_ramdisk``: no agent will report)."""
    field = '%s_steps' % kind
    if not isinstance(requested_steps, (list, tuple)) or not requested_steps:
        return Merge(kind=kind, steps=[], origins={}, disabled=[], problems=[
            '%s must be a non-empty list of steps, got %s'
            % (field, shown(requested_steps))])
    offered = {(step.interface, step.name): step
               for step in collect(task, kind)}
    unknown = not disable_ramdisk and _agent_steps_unknown(task, kind)
    forbidden = step_admission.disallowed(kind)
    problems, chosen, deferred = [], [], []
    for raw in requested_steps:
        problem = _shape_problem(raw, kind)
        problem = problem or _forbidden_problem(raw, kind, forbidden)
        if problem is None and reserved_steps.is_reserved(raw['step']):
            problem = reserved_steps.problem(task, raw)
            if problem is None and disable_ramdisk:
                problem = _needs_ramdisk_problem(
                    raw, reserved_steps.requires_ramdisk(raw))
            if problem is None:
                chosen.append(Step.from_dict(
                    reserved_steps.step_dict(raw, kind)))
                continue
        if (problem is None and unknown
                and (raw['interface'], raw['step']) not in offered):
            deferred.append((raw, 'user'))
            continue
        problem = problem or _offered_problem(raw, offered, kind)
        if problem is None:
            step = _requested(offered[(raw['interface'], raw['step'])], raw)
            problem = (_missing_arguments_problem(step, kind)
                       or step_admission.precheck_problem(task, step, kind))
            if problem is None and disable_ramdisk:
                problem = _needs_ramdisk_problem(
                    raw, _requires_ramdisk(task, step, kind))
            chosen.append(step)
        if problem:
            problems.append('%s: %s' % (field, problem))
    return Merge(kind=kind, steps=chosen,
                 origins={(step.interface, step.name): 'user'
                          for step in chosen},
                 disabled=[], problems=problems, deferred=deferred)


def _requires_ramdisk(task, step, kind):
    """Whether ``step`` needs the node booted into its agent: the agent's
    own steps do, and the steps whose interface says so."""
    if step.in_band:
        return True
    return getattr(task.driver, step.interface).step_requires_ramdisk(
        step.name, kind)


def _needs_ramdisk_problem(raw, requires_ramdisk):
    if not requires_ramdisk:
        return None
    return ('step %s needs the node booted into its agent (a ramdisk), and '
            'disable_ramdisk boots none' % _label(raw))
