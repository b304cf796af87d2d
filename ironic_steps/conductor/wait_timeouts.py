"""Failing what waited too long outside the step flows.

The step flows' waits are timed out by :mod:`housekeeping` through the
flow table; an inspection waiting for its hardware and a rescue waiting
for its agent are not steps, but are timed out the same way: a node this
conductor handles, unlocked, in the waiting state since before the
limit, is failed under its lock, unless it moved on meanwhile.
"""

import datetime

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps import objects


def fail_overdue(context, acquire, owns, state, timeout, fail, purpose):
    """Call ``fail(task, timeout)`` for each of this conductor's nodes
    (``owns(uuid, driver)``) in ``state`` for more than ``timeout``
    seconds (0: never); ``acquire`` takes a task on a node."""
    if not timeout:
        return
    before = timeutils.utcnow() - datetime.timedelta(seconds=timeout)
    rows = objects.Node.list_fields(
        context, ('uuid', 'driver'), filters={
            'provision_state': state, 'reservation': None,
            'provisioned_before': before})
    for row in rows:
        if not owns(row.uuid, row.driver):
            continue
        try:
            with acquire(context, row.uuid, retry=False,
                         purpose=purpose) as task:
                node = task.node
                if (node.provision_state != state
                        or timeutils.normalize_time(
                            node.provision_updated_at) >= before):
                    continue   # it moved on meanwhile
                fail(task, timeout)
        except (exception.NodeLocked, exception.NodeNotFound):
            pass   # busy or gone: not ours to fail now
