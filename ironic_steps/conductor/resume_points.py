"""Where a failed flow resumes (the x-steps extension's resume).

A failed deploy (``deploy failed``) or servicing (``service failed``, from
release 0.13) may go on from the step that failed.  This module reads the
node's stored plan and the index of the step that failed; it never saves a
node, runs a step or plans (:mod:`steps` does); the flows' own modules
start the resumed work.
"""

import dataclasses

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import step_runner

#: The flows a node may resume, by the state their failure left it in.
RESUMABLE_FLOWS = {states.DEPLOYFAIL: step_kinds.DEPLOY_FLOW,
                   states.SERVICEFAIL: step_kinds.SERVICE_FLOW}


@dataclasses.dataclass(frozen=True)
class ResumePoint:
    """Where a failed flow resumes: ``start`` (an index of its plan) and
    why there, for people."""

    failed: int
    start: int
    reason: str


def of_node(node):
    """The failed flow of ``node`` and where it would resume.

    Read from ``driver_internal_info`` alone (the stored plan and the index
    of the step that failed), so it works for any flow that failed while
    running its steps, whoever ran them.
    :returns: (:class:`step_kinds.Flow`, :class:`ResumePoint`).
    :raises NothingToResume: naming why.
    """
    flow = RESUMABLE_FLOWS.get(node.provision_state)
    if flow is None:
        raise exception.NothingToResume(
            node=node.uuid, reason='it is %s, not %s' % (
                node.provision_state, ' or '.join(RESUMABLE_FLOWS)))
    plan = step_runner.load_plan(node, flow)
    failed = step_runner.current_index(node, flow)
    if not plan or failed is None or not 0 <= failed < len(plan):
        raise exception.NothingToResume(
            node=node.uuid, reason='it failed before running a %s step%s' % (
                flow.kind, ', or deployed the legacy way'
                if flow is step_kinds.DEPLOY_FLOW else ''))
    return flow, resume_point(plan, failed)


def resume_point(plan, failed_index):
    """Where a flow that failed at ``plan[failed_index]`` resumes.

    The steps before the failed one ran to completion and their results
    are kept, except for what a step declared ``resumable=False`` set up:
    that does not survive the failure, and any later step may rely on it.
    So the resume starts at the earliest non-resumable step at or before
    the failed one (it and every step after it run again), and at the
    failed step itself when there is none.  The failed step always runs
    again: it did not finish.
    """
    for index in range(failed_index + 1):
        step = plan[index]
        if not step.resumable and index < failed_index:
            return ResumePoint(failed=failed_index, start=index, reason=(
                'step %s is not resumable (what it sets up does not '
                'survive a failure), so it and the steps after it run '
                'again' % step.label))
    return ResumePoint(failed=failed_index, start=failed_index, reason=(
        'it is the failed step; the steps before it are kept'))
