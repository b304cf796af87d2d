"""Steps the operator forbids: ``[api] disallow_<kind>_steps``.

An operator lists steps (``interface.step``) that no flow of a kind may
run, as in Ironic (default: ``vendor.send_raw``).  The planner
(:func:`ironic_steps.conductor.steps.merge`) asks here, for every plan,
so every way of choosing steps obeys the list alike:

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
here the template's user learns it before the deploy starts.

The lists are read at each plan (the options are mutable: a SIGHUP or a
restart changes them for the next request) and apply from release 0.9 on:
while pinned to an older release, conductors that do not know them may
plan the same request, so no conductor applies them.
"""

from ironic_steps.common import release_mappings
from ironic_steps.conf import CONF

#: The first release whose conductors apply the lists.
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
