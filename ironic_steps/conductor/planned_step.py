"""One step of a plan, as the conductor stores, shows and runs it.

:class:`Step` is what the planner (:mod:`steps`) makes from what the node's
interfaces and its agent offer and what requests ask for; its dict form is
the public contract, found in ``node.deploy_step``, the stored plan and the
REST API.  :func:`Step.from_dict` checks a stored or offered step dict.
"""

import copy
import dataclasses
import typing

from ironic_steps.common import exception
from ironic_steps.drivers import base

_STEP_KEYS = frozenset(['interface', 'step', 'priority', 'argsinfo', 'args',
                        'abortable', 'timeout', 'resumable', 'in_band',
                        'reboot_requested'])


@dataclasses.dataclass(frozen=True)
class Step:
    """One step of a plan.

    Its dict form is the public contract, found in ``node.deploy_step``,
    ``driver_internal_info['deploy_steps']`` and the REST API::

        {'interface': 'raid', 'step': 'apply_configuration',
         'priority': 10, 'argsinfo': {...} or None,
         'args': {...},             # the keyword arguments it runs with
         'abortable': bool,         # clean steps only
         'timeout': seconds,        # only when it has one (extension)
         'resumable': False,        # only when it is not (extension)
         'in_band': True,           # only for the agent's steps
         'reboot_requested': True}  # only for an agent step asking it

    An ``in_band`` step is one the node's agent offers and runs (see
    :mod:`agent_steps`); the agent may ask for a reboot after it.

    ``node.<kind>_step``, which Ironic clients read, never carries the
    extension's keys (:meth:`public_dict`).
    """

    interface: str
    name: str
    priority: int
    argsinfo: typing.Mapping | None = None
    args: typing.Mapping = dataclasses.field(default_factory=dict)
    abortable: bool | None = None
    timeout: float | None = None
    resumable: bool = True
    in_band: bool = False
    reboot_requested: bool = False

    @property
    def label(self):
        """``interface.step``, as people and error messages name it."""
        return '%s.%s' % (self.interface, self.name)

    def public_dict(self):
        """The step as Ironic shows it (``node.deploy_step``)."""
        step = {'interface': self.interface, 'step': self.name,
                'priority': self.priority,
                'argsinfo': copy.deepcopy(self.argsinfo) or None,
                'args': copy.deepcopy(dict(self.args))}
        if self.abortable is not None:
            step['abortable'] = self.abortable
        return step

    def to_dict(self):
        """The whole step, extension keys included when they say
        something (a stored plan, a preview)."""
        step = self.public_dict()
        if self.timeout is not None:
            step['timeout'] = self.timeout
        if not self.resumable:
            step['resumable'] = False
        if self.in_band:
            step['in_band'] = True
        if self.reboot_requested:
            step['reboot_requested'] = True
        return step

    def without_extensions(self):
        """The step as a release from before the extension knows it."""
        return dataclasses.replace(self, timeout=None, resumable=True)

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
                   abortable=step.get('abortable'),
                   timeout=step.get('timeout'),
                   resumable=step.get('resumable', True),
                   in_band=bool(step.get('in_band')),
                   reboot_requested=bool(step.get('reboot_requested')))


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
                      ('abortable', bool), ('resumable', bool),
                      ('in_band', bool), ('reboot_requested', bool)):
        if step.get(key) is not None and not isinstance(step[key], kind):
            return '%s must be a %s or None, got %r' % (key, kind.__name__,
                                                        step[key])
    return base.check_timeout(step.get('timeout'))
