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
"""

import copy
import dataclasses
import types
import typing

from ironic_steps.common import exception
from ironic_steps.drivers import base

#: Tie-breaks between interfaces, per kind.  Deploying prepares the machine
#: (deploy, power, management, boot) before it reconfigures hardware; when
#: cleaning, power and management settle the machine before disks are
#: touched.  The interfaces ironic-steps does not run (their no-op
#: implementations offer no steps) come last, in Ironic's order.
_NOT_RUN = ('network', 'storage', 'inspect', 'console', 'rescue')
INTERFACE_ORDER = types.MappingProxyType({
    base.DEPLOY: ('deploy', 'power', 'management', 'boot', 'bios', 'raid',
                  'vendor') + _NOT_RUN,
    base.CLEAN: ('power', 'management', 'deploy', 'boot', 'bios', 'raid',
                 'vendor') + _NOT_RUN,
})

_STEP_KEYS = frozenset(['interface', 'step', 'priority', 'argsinfo', 'args',
                        'abortable'])


@dataclasses.dataclass(frozen=True)
class Step:
    """One step of a plan.

    Its dict form is the public contract, found in ``node.deploy_step``,
    ``driver_internal_info['deploy_steps']`` and the REST API::

        {'interface': 'raid', 'step': 'apply_configuration',
         'priority': 10, 'argsinfo': {...} or None,
         'args': {...},             # the keyword arguments it runs with
         'abortable': bool}         # clean steps only
    """

    interface: str
    name: str
    priority: int
    argsinfo: typing.Mapping | None = None
    args: typing.Mapping = dataclasses.field(default_factory=dict)
    abortable: bool | None = None

    @property
    def label(self):
        """``interface.step``, as people and error messages name it."""
        return '%s.%s' % (self.interface, self.name)

    def to_dict(self):
        step = {'interface': self.interface, 'step': self.name,
                'priority': self.priority,
                'argsinfo': copy.deepcopy(self.argsinfo) or None,
                'args': copy.deepcopy(dict(self.args))}
        if self.abortable is not None:
            step['abortable'] = self.abortable
        return step

    @classmethod
    def from_dict(cls, step):
        if not isinstance(step, dict) or not {'interface', 'step',
                                              'priority'} <= set(step):
            raise exception.InvalidStep(
                reason='A step must be a dict with interface, step and '
                       'priority; got %r' % (step,))
        unknown = set(step) - _STEP_KEYS
        if unknown:
            raise exception.InvalidStep(
                reason='Step %r has unknown keys: %s' % (
                    step, ', '.join(sorted(unknown))))
        problem = _type_problem(step)
        if problem:
            raise exception.InvalidStep(reason='Step %r: %s' % (step,
                                                                problem))
        return cls(interface=step['interface'], name=step['step'],
                   priority=step['priority'], argsinfo=step.get('argsinfo'),
                   args=step.get('args') or {},
                   abortable=step.get('abortable'))


def _type_problem(step):
    """What is wrong with the types of a step dict's values, if anything."""
    priority = step['priority']
    if (not isinstance(priority, int) or isinstance(priority, bool)
            or priority < 0):
        return 'priority must be a non-negative integer, got %r' % (priority,)
    for key in ('interface', 'step'):
        if not isinstance(step[key], str) or not step[key]:
            return '%s must be a non-empty string, got %r' % (key, step[key])
    for key, kind in (('args', dict), ('argsinfo', dict),
                      ('abortable', bool)):
        if step.get(key) is not None and not isinstance(step[key], kind):
            return '%s must be a %s or None, got %r' % (key, kind.__name__,
                                                        step[key])
    return None


def _getter(interface, kind):
    # Drivers may override the per-kind front doors, so call those.
    return getattr(interface, 'get_%s_steps' % kind, None)


def collect(task, kind):
    """Every step of ``kind`` the node's interfaces offer, unordered."""
    found = []
    for interface_type in INTERFACE_ORDER[kind]:
        getter = _getter(getattr(task.driver, interface_type), kind)
        if getter is None:
            continue   # an interface from before steps existed
        found.extend(Step.from_dict(step) for step in getter(task) or ())
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


def plan(task, kind):
    """The steps of ``kind`` to run on ``task.node``, in running order.

    :raises DriverStepConflict: if two steps of one interface tie.
    """
    enabled = [step for step in collect(task, kind) if step.priority > 0]
    _check_conflicts(enabled, kind)
    return order(enabled, kind)
