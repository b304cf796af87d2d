"""Allocations on a conductor: find a node for one, give it, take it back.

An allocation is processed in three parts:

1. **Candidates** (:func:`candidates`): the nodes that could serve it, read
   in one query: ``available``, not in maintenance, without an instance,
   with a known power state, of its resource class, owned or leased by
   its owner (if it names one, as in Ironic), among its candidate nodes
   (if it lists them), with all its traits.  Shuffled, so that
   allocations running side by side do not all try the same node first; a
   node named as the allocation comes first.
2. **Reservation** (:func:`allocate`): each candidate in turn, under its
   lock, checked again (it may have changed since it was read) and, if it
   still serves, given to the allocation in one transaction that also
   makes the allocation the node's instance.  Nodes found locked are
   tried again, all of them, ``[conductor] node_locked_retry_attempts``
   times.
3. **Outcome**: the allocation is ``active`` holding the node, or
   ``error`` with ``last_error`` saying why nothing matched; a processing
   error never escapes (this runs on a worker, nobody waits for it).

:func:`backfill` gives an allocation a node a user names, one already
deployed (``active``) by other means, so that the node gets the record it
would have had.  :func:`check_can_release` says whether a node may be
taken back from its allocation at a user's request; :func:`release` takes
it back when its instance goes (tear down).  This module never decides which
conductor runs it (the caller's RPC does) and never changes a node's
provision state.
"""

import random
import time

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps import objects

LOG = log.getLogger(__name__)

#: Node states in which an allocation may be taken back (besides any
#: node in maintenance): where nothing runs on the node, and it is not
#: deployed.
RELEASE_ALLOWED_STATES = (states.ENROLL, states.MANAGEABLE,
                          states.AVAILABLE, states.ERROR, states.CLEANFAIL,
                          states.DEPLOYFAIL)


def process(context, allocation, acquire):
    """Give ``allocation`` a node, or fail it saying why; never raises.

    :param acquire: ``acquire(context, node_uuid, purpose=..., retry=...)``
        -> a task on the node under its lock (the conductor's).
    """
    try:
        allocate(context, allocation, candidates(context, allocation),
                 acquire)
    except exception.AllocationFailed as exc:
        LOG.warning('%s', exc)
        _fail(allocation, str(exc))
    except Exception as exc:
        LOG.exception('Processing allocation %s failed', allocation.uuid)
        _fail(allocation, 'Unexpected error while processing allocation '
                          '%s: %s' % (allocation.uuid, exc))


def _fail(allocation, reason):
    allocation.node_id = None
    allocation.state = states.ERROR
    allocation.last_error = reason
    try:
        _decide(allocation)
    except exception.AllocationNotFound:
        LOG.info('Allocation %s was deleted while it was processed',
                 allocation.uuid)
    except Exception:
        LOG.exception('Could not record the failure of allocation %s',
                      allocation.uuid)


def _decide(allocation):
    """Save this conductor's outcome for ``allocation``: False if another
    conductor (one that took it over) decided first, which stands."""
    try:
        allocation.save()
    except exception.AllocationAlreadyDecided:
        LOG.info('Allocation %s was decided by another conductor meanwhile',
                 allocation.uuid)
        return False
    return True


def _has_traits(node, traits):
    return set(traits or ()).issubset(node.traits or ())


def candidates(context, allocation):
    """The nodes that could serve ``allocation``, in the order to try.

    :raises AllocationFailed: naming what no node matched.
    """
    filters = {'resource_class': allocation.resource_class,
               'provision_state': states.AVAILABLE,
               'associated': False, 'maintenance': False}
    if allocation.owner:
        filters['project'] = allocation.owner   # the owner or the lessee
    nodes = [node for node in objects.Node.list(context, filters=filters)
             if node.power_state is not None]
    if allocation.candidate_nodes:
        wanted = set(allocation.candidate_nodes)
        nodes = [node for node in nodes if node.uuid in wanted]
    if not nodes:
        where = ('none of the candidate nodes is available and of'
                 if allocation.candidate_nodes else
                 'no available node (with a known power state, not in '
                 'maintenance, without an instance) has')
        raise exception.AllocationFailed(
            uuid=allocation.uuid, error='%s resource class %s%s' % (
                where, allocation.resource_class,
                ' and owner or lessee %s' % allocation.owner
                if allocation.owner else ''))
    if allocation.traits:
        nodes = [node for node in nodes
                 if _has_traits(node, allocation.traits)]
        if not nodes:
            raise exception.AllocationFailed(
                uuid=allocation.uuid,
                error='no available node of resource class %s has all the '
                      'traits %s' % (allocation.resource_class,
                                     ', '.join(allocation.traits)))
    random.shuffle(nodes)
    if allocation.name:
        # A user who names allocations after nodes expects that node.
        nodes = ([node for node in nodes if node.name == allocation.name]
                 + [node for node in nodes if node.name != allocation.name])
    return nodes


def _still_serves(node, allocation):
    """Whether ``node``, read again under its lock, still fits."""
    return (not node.maintenance and node.instance_uuid is None
            and node.provision_state == states.AVAILABLE
            and node.resource_class == allocation.resource_class
            and _has_traits(node, allocation.traits))


def allocate(context, allocation, nodes, acquire):
    """Give ``allocation`` the first of ``nodes`` that still fits.

    :raises AllocationFailed: when none could be given.
    """
    attempts = max(1, CONF.conductor.node_locked_retry_attempts)
    for attempt in range(attempts):
        locked = []
        for node in nodes:
            try:
                with acquire(context, node.uuid, retry=False,
                             purpose='allocating') as task:
                    if not _still_serves(task.node, allocation):
                        continue
                    allocation.node_id = task.node.id
                    allocation.state = states.ACTIVE
                    allocation.last_error = None
                    if _decide(allocation):
                        LOG.info('Allocation %s holds node %s',
                                 allocation.uuid, task.node.uuid)
                    return
            except exception.NodeLocked:
                locked.append(node)
            except exception.NodeAssociated:
                LOG.debug('Node %s was associated meanwhile', node.uuid)
        nodes = locked
        if not nodes:
            break
        if attempt + 1 < attempts:
            time.sleep(CONF.conductor.node_locked_retry_interval)
    raise exception.AllocationFailed(
        uuid=allocation.uuid,
        error='none of the %d nodes that matched could be reserved (locked '
              'by other work)' % len(nodes) if nodes else
              'every node that matched was taken or changed meanwhile')


def backfill(context, allocation, node_uuid, acquire):
    """Give ``allocation`` the deployed node ``node_uuid``.

    :raises AllocationFailed: naming each way the node does not fit
        (then the allocation is failed too).
    :raises NodeAssociated: if the node has another instance.
    """
    with acquire(context, node_uuid, purpose='allocation backfill') as task:
        node = task.node
        problems = []
        if node.provision_state != states.ACTIVE:
            problems.append('it is %s, not active' % node.provision_state)
        if (allocation.resource_class
                and node.resource_class != allocation.resource_class):
            problems.append('its resource class is %s, not %s' % (
                node.resource_class, allocation.resource_class))
        if not _has_traits(node, allocation.traits):
            problems.append('it lacks traits %s' % ', '.join(sorted(
                set(allocation.traits) - set(node.traits or ()))))
        if (allocation.candidate_nodes
                and node.uuid not in allocation.candidate_nodes):
            problems.append('it is not among the candidate nodes')
        try:
            if problems:
                raise exception.AllocationFailed(
                    uuid=allocation.uuid,
                    error='node %s cannot be backfilled: %s' % (
                        node.uuid, '; '.join(problems)))
            allocation.node_id = node.id
            allocation.state = states.ACTIVE
            allocation.save()
        except (exception.AllocationFailed, exception.NodeAssociated) as exc:
            _fail(allocation, str(exc))
            raise


def check_can_release(node, allocation):
    """:raises NodeInWrongState: unless ``node`` may leave ``allocation``:
    in maintenance, or resting in a state where it is not deployed."""
    if node.maintenance:
        return
    if (node.provision_state not in RELEASE_ALLOWED_STATES
            or node.target_provision_state is not None):
        raise exception.NodeInWrongState(
            node=node.uuid, action='released from allocation %s'
            % allocation.uuid, state=node.provision_state)


def release(context, node):
    """Destroy the allocation holding ``node``, if one does, as Ironic does
    at the end of tear down: the node's instance is gone, so is the
    request that made it.  The caller holds the node's lock and has
    decided the node may go (unlike :func:`check_can_release`, no state is
    checked here).

    :returns: the UUID of the allocation destroyed, or None.
    """
    held_by = objects.Allocation.uuids_of_nodes(
        context, [node.uuid]).get(node.uuid)
    if held_by is None:
        return None
    try:
        objects.Allocation.get_by_uuid(context, held_by).destroy()
    except exception.AllocationNotFound:
        LOG.info('Allocation %s of node %s was deleted meanwhile',
                 held_by, node.uuid)
        return None
    LOG.info('Allocation %s released node %s', held_by, node.uuid)
    return held_by
