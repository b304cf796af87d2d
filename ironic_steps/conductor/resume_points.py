"""Where a failed deploy resumes (the x-steps extension's resume).

It reads a stored plan and the index of the step that failed; it never
saves a node, runs a step or plans (:mod:`steps` does).
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class ResumePoint:
    """Where a failed flow resumes: ``start`` (an index of its plan) and
    why there, for people."""

    failed: int
    start: int
    reason: str


def resume_point(plan, failed_index):
    """Where a deploy that failed at ``plan[failed_index]`` resumes.

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
