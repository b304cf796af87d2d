"""What a conductor does by itself: the work no request asks for.

A conductor's RPC endpoints act when called; everything else that keeps
its nodes moving is here, in one :class:`Housekeeping` per started
conductor:

1. **Crash recovery.**  At start, the flows this conductor held when it
   died are failed where they stood and their nodes unlocked
   (:meth:`~Housekeeping.recover`); later, so are those of the locks it
   holds for no running work, such as a flow's that lost the database
   (:meth:`~Housekeeping.free_abandoned_locks`).
2. **Take-over.**  The nodes of conductors that stopped heartbeating are
   freed the same way, once this conductor's own heartbeats are steady;
   when conductors leave, the agents of the waiting nodes that become
   this one's are adopted (:meth:`~Housekeeping.adopt_agents`).
3. **Timeouts.**  Waiting flows whose agent did not call back in time,
   waiting steps past their own timeout (x-steps) and inspections whose
   hardware did not report in time are failed
   (:meth:`~Housekeeping.check_wait_timeouts`).
4. **Allocations left behind.**  Allocations a stopped conductor left
   ``allocating`` are processed again by the one the hash ring names.
5. **The schedule.**  :meth:`~Housekeeping.periodic_tasks` lists what
   runs periodically, with the step poller and the power sync, each
   saying a database outage once rather than failing at every run;
   :meth:`~Housekeeping.start` runs them on a thread of their own.

Housekeeping never answers a request and never starts a flow: it fails,
frees, adopts or resumes what a flow left behind.  It never beats the
conductor's heart (:class:`~ironic_steps.conductor.registry.Heart` does;
housekeeping only asks whether it is steady) and never imports the
conductor manager: what it needs of its conductor (its name, its locks,
its workers, its share of the hash ring) is handed to it.
"""

import datetime
import threading

from futurist import periodics
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import outage
from ironic_steps.common import states
from ironic_steps.common import x_steps
from ironic_steps.conductor import flows
from ironic_steps.conductor import inspection
from ironic_steps.conductor import locks
from ironic_steps.conductor import power_sync
from ironic_steps.conductor import registry
from ironic_steps.conductor import rescue
from ironic_steps.conductor import step_history
from ironic_steps.conductor import step_polling
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import task_manager
from ironic_steps.conf import CONF
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

LOG = log.getLogger(__name__)


class Housekeeping:
    """The housekeeping of the conductor ``host``.

    :param acquire: ``acquire(context, node_id, **kwargs)``, the
        conductor's task factory (its locks carry the conductor's name).
    :param owns: ``owns(node_uuid, driver)``, whether the node is this
        conductor's.
    :param reserve_worker: claims a worker or raises (NoFreeConductorWorker,
        or TemporaryFailure once the conductor stops).
    :param steady: ``steady()``, whether the conductor's own heartbeats
        went through lately (see :meth:`registry.Heart.steady`).
    :param poller: the conductor's
        :class:`~ironic_steps.conductor.step_polling.StepPoller`.
    :param process_allocation: ``process_allocation(context, allocation)``,
        run on a worker to process an allocation from the start.
    :param processing_allocation: ``processing_allocation(uuid)``, whether
        the conductor is processing that allocation now.
    """

    def __init__(self, host, *, acquire, owns, reserve_worker, steady,
                 poller, process_allocation, processing_allocation):
        self.host = host
        self._acquire = acquire
        self._owns = owns
        self._reserve_worker = reserve_worker
        self._steady = steady
        self._poller = poller
        self._process_allocation = process_allocation
        self._processing_allocation = processing_allocation
        #: The live conductors at the last take-over, None before it.
        self._alive_hosts = None
        self._periodic = None
        self._periodic_thread = None

    def start(self, admin_context):
        """Run the :meth:`periodic_tasks` on a thread of their own."""
        # Each first runs one spacing after the start, not at once: a
        # restarted conductor has its own recovery to do first.
        self._periodic = periodics.PeriodicWorker(
            [(periodics.periodic(spacing=spacing, run_immediately=False)(fn),
              (), {})
             for spacing, fn in self.periodic_tasks(admin_context)])
        self._periodic_thread = threading.Thread(
            target=self._periodic.start, name='conductor-periodics',
            daemon=True)
        self._periodic_thread.start()

    def stop(self):
        """Stop the periodic tasks, once those running have ended."""
        if self._periodic is not None:
            self._periodic.stop()
            self._periodic.wait()
            self._periodic_thread.join()

    def periodic_tasks(self, admin_context):
        """[(spacing, task)]: what this conductor does by itself, each task
        saying a database outage once rather than failing every run."""
        periodic = [
            (CONF.conductor.check_provision_state_interval,
             lambda: self.check_wait_timeouts(admin_context)),
            (step_polling.look_spacing(),
             lambda: self._poller.run(admin_context)),
            (CONF.conductor.heartbeat_interval,
             lambda: self.take_over_from_dead_conductors(admin_context)),
            (CONF.conductor.heartbeat_interval,
             lambda: self.free_abandoned_locks(admin_context)),
            (CONF.conductor.heartbeat_interval,
             lambda: self.resume_unsettled_allocations(admin_context)),
        ]
        if CONF.conductor.sync_power_state_interval:
            sync = power_sync.PowerStateSync(self._acquire, self._owns)
            periodic.append((CONF.conductor.sync_power_state_interval,
                             lambda: sync.run(admin_context)))
        return [(spacing, _through_outages(task))
                for spacing, task in periodic]

    # --- timeouts ---------------------------------------------------------

    def check_wait_timeouts(self, context):
        """Fail flows whose agent did not call back in time, waiting
        steps past their own timeout, and inspections and rescues that
        waited too long (:func:`inspection.fail_timed_out`,
        :func:`rescue.fail_timed_out`)."""
        self._fail_overdue_steps(context)
        inspection.fail_timed_out(context, self._acquire, self._owns)
        rescue.fail_timed_out(context, self._acquire, self._owns)
        for state, waiting in flows.BY_WAIT_STATE.items():
            if not waiting.timeout:
                continue
            before = timeutils.utcnow() - datetime.timedelta(
                seconds=waiting.timeout)
            for node in objects.Node.list(context, filters={
                    'provision_state': state, 'reservation': None,
                    'provisioned_before': before}):
                if step_polling.is_polled(node):
                    continue   # it has a timeout of its own
                self._fail_timed_out(context, node.uuid, state, waiting,
                                     before)

    def _fail_overdue_steps(self, context):
        """Fail this conductor's waiting steps past their own timeout
        (x-steps); polled ones are its poller's, which checks first."""
        if not x_steps.enabled():
            return   # no step has a deadline: spare the query
        for state, waiting in flows.BY_WAIT_STATE.items():
            for row in objects.Node.list_fields(
                    context, ('uuid', 'driver', 'driver_internal_info',
                              'reservation', 'provision_state'),
                    filters={'provision_state': state}):
                if (row.reservation is None
                        and not step_polling.is_polled(row)
                        and step_runner.overdue(row, waiting.flow)
                        and self._owns(row.uuid, row.driver)):
                    self._fail_overdue(context, row.uuid, state, waiting)

    def _fail_overdue(self, context, node_uuid, state, waiting):
        try:
            with self._acquire(context, node_uuid, retry=False,
                               purpose='step timeout') as task:
                error = step_runner.overdue(task.node, waiting.flow)
                if task.node.provision_state == state and error:
                    step_runner.fail(task, waiting.flow, error)
        except (exception.NodeLocked, exception.NodeNotFound):
            pass   # busy or gone: not ours to fail now

    def _fail_timed_out(self, context, node_uuid, state, waiting, before):
        try:
            with self._acquire(context, node_uuid, retry=False,
                               purpose='call-back timeout') as task:
                node = task.node
                if (node.provision_state != state or timeutils.normalize_time(
                        node.provision_updated_at) >= before):
                    return   # it moved on while we looked
                step = getattr(node, waiting.flow.step_field) or {}
                step_runner.fail(task, waiting.flow, (
                    'Timeout reached while waiting for the agent of node %s'
                    '%s after %s seconds' % (
                        node.uuid,
                        task_manager.step_suffix(node) if step else '',
                        waiting.timeout)), outcome=step_history.TIMEOUT)
        except (exception.NodeLocked, exception.NodeNotFound):
            pass   # busy or gone: not ours to fail now

    # --- crash recovery and take-over ---------------------------------------

    def recover(self, context, dead_host=None, why='restarted'):
        """Fail the flows a dead conductor held, and free its nodes.

        A host tag on a node's lock means that conductor died holding it
        (this one, at start-up, or another that stopped heartbeating): the
        flow that was running is gone, so fail it where it stood.
        """
        dead_host = dead_host or self.host
        for uuid in locks.backend().free_all(dead_host):
            self._stop_abandoned(context, uuid, 'Conductor %s %s' % (
                dead_host, why))

    def free_abandoned_locks(self, context):
        """Free the locks this conductor holds for no running work.

        A flow that lost the database could not drop its lock; nothing
        else would ever free it, since this conductor is alive.  Once the
        database answers again, its flow is failed where it stood.
        """
        rows = objects.Node.list_fields(context, ('uuid',),
                                        filters={'reservation': self.host})
        if not rows:
            return
        with task_manager.HELD.abandoned(self.host, rows) as abandoned:
            freed = [(row.uuid, why) for row, why in abandoned
                     if locks.backend().free(self.host, row)]
        for uuid, why in freed:
            LOG.warning('Node %s was locked by %s for no running work (%s); '
                        'freed', uuid, self.host, why or 'cause unknown')
            self._stop_abandoned(context, uuid, (
                'Conductor %s lost the database (%s)' % (self.host, why)
                if why else
                'Conductor %s held the lock for no running work' % self.host))

    def _stop_abandoned(self, context, uuid, cause):
        """Fail the flow of a node whose work is gone, where it stood."""
        try:
            with self._acquire(context, uuid, retry=False,
                               purpose='recovery') as task:
                state = task.node.provision_state
                if state not in states.WORKING_STATES:
                    return
                task.node.last_error = (
                    '%s while the node was %s%s; the operation was '
                    'stopped' % (cause, state,
                                 task_manager.step_suffix(task.node)))
                task.process_event(states.EVENT_FAIL)
                task.node.save()
                LOG.warning('Node %s: %s', uuid, task.node.last_error)
        except (exception.NodeLocked, exception.NodeNotFound):
            pass   # already taken over by another conductor, or gone

    def take_over_from_dead_conductors(self, context):
        """Free the nodes of conductors that stopped heartbeating, and
        serve the agents of the waiting nodes that become ours."""
        if not self._steady():
            # Our own heartbeats failed lately (the database was out):
            # the others' may have too; give them time to show they live.
            return
        for host in registry.dead_hosts_holding_locks():
            if host != self.host:
                self.recover(context, dead_host=host,
                             why='stopped heartbeating')
        alive = set(registry.live_conductors().hostnames)
        left = self._alive_hosts is not None and self._alive_hosts - alive
        self._alive_hosts = alive
        if left:
            LOG.warning('Conductors %s stopped heartbeating; taking over '
                        'their waiting nodes', ', '.join(sorted(left)))
            registry.reset_ring()
            self.adopt_agents(context)

    def adopt_agents(self, context):
        """Tell the deploy interfaces of this conductor's waiting nodes
        that it owns them now (see ``DeployInterface.adopt_waiting``)."""
        for state, waiting in flows.BY_WAIT_STATE.items():
            index_key = waiting.flow.index_key
            for row in objects.Node.list_fields(
                    context, ('uuid', 'driver', 'deploy_interface',
                              'driver_internal_info'),
                    filters={'provision_state': state}):
                if (step_polling.is_polled(row)
                        or not self._owns(row.uuid, row.driver)):
                    continue
                try:
                    deploy = driver_factory.interface_for(
                        'deploy', row.driver, row.deploy_interface)
                except exception.IronicStepsException:
                    continue   # its flow fails where the node is loaded
                deploy.adopt_waiting(
                    row.uuid, waiting.flow.kind,
                    (row.driver_internal_info or {}).get(index_key))

    # --- allocations left behind --------------------------------------------

    def resume_unsettled_allocations(self, context):
        """Process again the allocations left ``allocating`` by a
        conductor that stopped (or restarted) while processing them.

        One is taken for left once it has not changed for
        ``[conductor] heartbeat_timeout`` (long enough for its conductor
        to count as dead); the live conductor the hash ring gives its UUID
        to claims it (a conditional write, so only one does) and processes
        it from the start.  Should its first conductor still be at it
        after all, the first outcome written stands (see
        ``Allocation.save``).
        """
        for unsettled in objects.Allocation.list_unsettled(
                context, registry.cutoff()):
            if self._processing_allocation(unsettled.uuid):
                continue
            try:
                if registry.conductor_for(unsettled.uuid, None) != self.host:
                    continue
            except exception.NoConductorOnline:
                return   # our own registration is not read back yet
            try:
                with self._reserve_worker() as worker:
                    if not objects.Allocation.claim(context, unsettled):
                        continue
                    LOG.warning('Allocation %s was left allocating by a '
                                'conductor that stopped; processing it '
                                'again', unsettled.uuid)
                    worker.submit(self._process_allocation, context,
                                  objects.Allocation.get_by_id(
                                      context, unsettled.id))
            except exception.NoFreeConductorWorker:
                return   # the next run takes the rest


def _through_outages(periodic_task):
    """A periodic task that says a database outage once, not per run (the
    heartbeat says when it ends)."""
    def run():
        try:
            periodic_task()
        except db_exc.DBConnectionError as exc:
            outage.DATABASE.failed(exc)
    return run
