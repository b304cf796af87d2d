"""Whether a step may join a plan: the operator's lists, the step's own
precheck.

The planner (:func:`ironic_steps.conductor.steps.merge`) asks here for
every plan (a request, a preview, a plan made again once the agent
reported its steps), so every way of choosing steps obeys the same rules.

**Steps the operator forbids**, ``[api] disallow_<kind>_steps``: steps
(``interface.step``) no flow of a kind may run, as in Ironic (default:
``vendor.send_raw``).

* a step a request names (the caller's ``deploy_steps`` or
  ``clean_steps``, a deploy template, the steps the agent reports and a
  request asked for) is refused before anything changes: 400, naming the
  step, where it came from and the option;
* a step that would run by default (the driver's, the agent's) is left
  out of the plan, and a preview shows it among the disabled steps with
  this reason;
* a request may still disable a forbidden step (priority 0): that asks
  for nothing forbidden.

Ironic leaves out a forbidden step of a deploy template without a word;
here the template's user learns it before the deploy starts.  The lists
are read at each plan (the options are mutable).

**A step's precheck** (``precheck=`` in its decorator, see
:mod:`ironic_steps.drivers.base`): what the step needs beyond its
arguments' names, such as a RAID layout to build.  A step of the plan
whose precheck fails makes the request a 400 naming the step and what it
lacks, instead of a deploy that fails once it reaches the step.

Both apply from release 0.9 on: while pinned to an older release,
conductors that do not know them may plan the same request, so none
applies them.
"""

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

#: The first release whose conductors apply the lists and prechecks.
SINCE_RELEASE = '0.9'


def option(kind):
    """How messages name the option that lists the forbidden steps."""
    return '[api] disallow_%s_steps' % kind


def disallowed(kind):
    """The labels (``interface.step``) of the ``kind`` steps the
    operator forbids; none while pinned before :data:`SINCE_RELEASE`."""
    if release_mappings.pinned_before(CONF, SINCE_RELEASE):
        return frozenset()
    return frozenset(getattr(CONF.api, 'disallow_%s_steps' % kind, ()))


def refusal(kind, label):
    """The problem a request naming forbidden step ``label`` makes."""
    return ('%s step %s is not allowed: the operator disallows it (%s)'
            % (kind, label, option(kind)))


def why_left_out(kind):
    """Why a preview shows a forbidden default step as disabled."""
    return 'disallowed by the operator (%s)' % option(kind)


def precheck_problem(task, step, kind):
    """Why ``step`` (a planned step with its arguments) could not run on
    ``task.node``, as its precheck says; None if it could, or has none."""
    interface = getattr(task.driver, step.interface, None)
    if (step.in_band or interface is None
            or not hasattr(interface, 'precheck_step')
            or release_mappings.pinned_before(CONF, SINCE_RELEASE)):
        return None
    try:
        interface.precheck_step(task, step.name, kind, dict(step.args))
    except (exception.InvalidParameterValue,
            exception.MissingParameterValue) as exc:
        return '%s step %s cannot run: %s' % (kind, step.label, exc)
    return None
