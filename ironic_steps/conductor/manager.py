"""The conductor: the RPC endpoints that act on nodes.

Each endpoint takes the node's lock (a task), checks the request against the
node's state, records the state change and, for long work, hands the rest to
a worker thread.  The flows themselves live in ``deployments``,
``cleaning``, ``verification`` and ``inspection``; this module only routes
to them.  Questions about a node's hardware are
:mod:`hardware_endpoints`'s, an agent's lookup and heartbeats
:mod:`agent_endpoints`'s, a node's virtual media :mod:`vmedia_endpoints`'s.

What the conductor does by itself (timeouts, crash recovery, take-over,
the periodic tasks) is :mod:`housekeeping`'s, and its heartbeat is the
registry's (:class:`registry.Heart`); starting and stopping here only
wires them to the endpoints' locks and workers.
"""

import threading

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.common import state_machine
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import adoption
from ironic_steps.conductor import agent_endpoints
from ironic_steps.conductor import allocations
from ironic_steps.conductor import boot_settings
from ironic_steps.conductor import cleaning
from ironic_steps.conductor import deployments
from ironic_steps.conductor import endpoint_base
from ironic_steps.conductor import flows
from ironic_steps.conductor import hardware_endpoints
from ironic_steps.conductor import vmedia_endpoints
from ironic_steps.conductor import housekeeping
from ironic_steps.conductor import inspection
from ironic_steps.conductor import locks
from ironic_steps.conductor import node_updates
from ironic_steps.conductor import power
from ironic_steps.conductor import preview
from ironic_steps.conductor import registry
from ironic_steps.conductor import rescue
from ironic_steps.conductor import resume_points
from ironic_steps.conductor import servicing
from ironic_steps.conductor import step_polling
from ironic_steps.conductor import step_runner
from ironic_steps.conductor import task_manager
from ironic_steps.conductor import verification
from ironic_steps.conductor import workers
from ironic_steps.conf import CONF
from ironic_steps.db import api as db_api
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

LOG = log.getLogger(__name__)

_expected = endpoint_base.expected

DELETE_ALLOWED_STATES = states.DELETE_ALLOWED_STATES
#: The states a node may be created in: ``available`` for API < 1.11.
_INITIAL_STATES = (states.ENROLL, states.AVAILABLE)


class ConductorManager:
    """The conductor's RPC endpoints for node records and provisioning,
    and the service life they share with the other endpoint groups
    (:attr:`endpoints`); see conductor/rpcapi.py for versions."""

    RPC_API_VERSION = endpoint_base.RPC_API_VERSION
    target = endpoint_base.target()

    def __init__(self, host=None):
        self.host = host or CONF.host
        self._dbapi = db_api.get_instance()
        self._workers = None
        self._poller = None
        self._heart = None
        #: What this conductor does by itself, once started.
        self.housekeeping = None
        self._stopping = False
        #: UUIDs of the allocations this conductor is processing.
        self._allocations_in_hand = set()
        self._allocations_lock = threading.Lock()
        #: Every object that answers this conductor's RPC calls.
        self.endpoints = (
            self,
            hardware_endpoints.HardwareEndpoints(self.host, self._acquire),
            agent_endpoints.AgentEndpoints(self._acquire,
                                           self._reserve_worker),
            vmedia_endpoints.VirtualMediaEndpoints(self._acquire))

    # --- service life ---------------------------------------------------

    def start(self, admin_context):
        """Start the workers, recover from an unclean stop, say we live,
        then keep house (see :mod:`housekeeping`)."""
        self._stopping = False
        locks.backend()   # a wrong lock backend fails the start
        self._workers = workers.WorkerPool(CONF.conductor.workers_pool_size)
        self._poller = step_polling.StepPoller(
            self._acquire, self._reserve_worker, self._owns)
        self.housekeeping = housekeeping.Housekeeping(
            self.host, acquire=self._acquire, owns=self._owns,
            reserve_worker=self._reserve_worker,
            steady=lambda: self._heart.steady(), poller=self._poller,
            process_allocation=self._process_allocation,
            processing_allocation=self._processing_allocation)
        self.housekeeping.recover(admin_context)
        registry.register(self.host)
        self._heart = registry.Heart(self.host)
        self._heart.start()
        self.housekeeping.adopt_agents(admin_context)
        self.housekeeping.start(admin_context)

    def stop(self, feeders=()):
        """Take no new work; let running flows finish; then stop.

        :param feeders: callables that stop what hands this conductor work
            from within its process (the service's fake agent): called
            once new work is refused, before running flows are waited for.
        """
        self._stopping = True
        for stop_feeder in feeders:
            stop_feeder()
        if self._heart is not None:
            self._heart.stop()
        if self.housekeeping is not None:
            self.housekeeping.stop()
        if self._workers is not None:
            self._workers.shutdown(wait=True)
            registry.unregister(self.host)
            locks.stop()

    def _owns(self, node_uuid, driver):
        """Whether this conductor handles ``node_uuid``, whose hardware
        type is ``driver`` (the registry's hash ring)."""
        try:
            return registry.conductor_for(node_uuid, driver) == self.host
        except exception.NoConductorOnline:
            return False

    def _acquire(self, context, node_id, **kwargs):
        """A task on ``node_id`` whose lock is tagged with this conductor."""
        return task_manager.acquire(context, node_id, host=self.host,
                                    **kwargs)

    def _reserve_worker(self):
        if self._workers is None or self._stopping:
            raise exception.TemporaryFailure(
                'Conductor %s is not running' % self.host)
        return self._workers.reserve()

    # --- node records ---------------------------------------------------

    @_expected
    def create_node(self, context, node_obj):
        """Check the driver and interfaces of a new node and store it.

        It starts in ``enroll``, or ``available`` when the caller set that
        (API versions before 1.11, RPC 1.2).
        """
        driver_factory.check_and_update_node_interfaces(node_obj)
        if (not node_obj.obj_attr_is_set('provision_state')
                or node_obj.provision_state not in _INITIAL_STATES):
            node_obj.provision_state = states.ENROLL
        node_obj.target_provision_state = None
        node_obj.create(context)
        return node_obj

    @_expected
    def update_node(self, context, node_obj, reset_interfaces=None):
        """Save the changes made to ``node_obj`` under the node's lock.

        :param reset_interfaces: see :func:`node_updates.apply` (RPC 1.2).
        """
        changes = node_obj.obj_what_changed()
        with self._acquire(context, node_obj.uuid,
                           purpose='node update') as task:
            node_updates.apply(node_obj, changes,
                               task.node.provision_state, reset_interfaces)
            if 'instance_uuid' in changes and node_obj.instance_uuid is None:
                self._release_from_allocation(context, task.node)
            for field in node_obj.obj_what_changed():
                setattr(task.node, field, getattr(node_obj, field))
            task.node.save()
            node = task.node
        # What the caller sees is the node as it stands once unlocked.
        node.reservation = None
        node.obj_reset_changes(['reservation'])
        return node

    @staticmethod
    def _release_from_allocation(context, node):
        """A node losing its instance loses the allocation that made it
        (as in Ironic); under the node's lock, which the caller holds."""
        held_by = objects.Allocation.uuids_of_nodes(
            context, [node.uuid]).get(node.uuid)
        if held_by is None:
            return
        allocation = objects.Allocation.get_by_uuid(context, held_by)
        allocations.check_can_release(node, allocation)
        allocation.destroy()

    @_expected
    def destroy_node(self, context, node_id):
        with self._acquire(context, node_id,
                           purpose='node deletion') as task:
            node_updates.check_not_protected(task.node, 'deleted')
            held_by = objects.Allocation.uuids_of_nodes(
                context, [task.node.uuid]).get(task.node.uuid)
            if held_by is not None:
                raise exception.NodeAllocated(
                    node=task.node.uuid, allocation=held_by,
                    action='deleted')
            # In maintenance any state will do, as in Ironic: an operator
            # (Metal3 too) forces the deletion of a node stuck elsewhere so.
            if (not task.node.maintenance
                    and task.node.provision_state
                    not in DELETE_ALLOWED_STATES):
                raise exception.NodeInWrongState(
                    node=task.node.uuid, action='deleted',
                    state=task.node.provision_state)
            node_updates.check_no_children(context, task.node)
            task.destroy_node()

    # --- allocations --------------------------------------------------

    @_expected
    def create_allocation(self, context, allocation, node_uuid=None):
        """Store a new allocation and process it (RPC 1.3).

        Without ``node_uuid`` the allocation is returned ``allocating``
        and a worker finds it a node (see :mod:`allocations`); with it,
        the allocation is backfilled with that deployed node before this
        returns.

        :raises AllocationFailed: when backfilling, naming why the node
            does not fit.
        :raises NoFreeConductorWorker: (before anything is stored).
        """
        allocation.state = states.ALLOCATING
        if node_uuid is not None:
            allocation.create(context)
            allocations.backfill(context, allocation, node_uuid,
                                 self._acquire)
            return allocation
        with self._reserve_worker() as worker:
            allocation.create(context)
            # The worker changes its own copy: the caller is answered
            # with the allocation as stored, still allocating.
            worker.submit(self._process_allocation, context,
                          allocation.obj_clone())
        return allocation

    def _process_allocation(self, context, allocation):
        with self._allocations_lock:
            self._allocations_in_hand.add(allocation.uuid)
        try:
            allocations.process(context, allocation, self._acquire)
        finally:
            with self._allocations_lock:
                self._allocations_in_hand.discard(allocation.uuid)

    def _processing_allocation(self, uuid):
        with self._allocations_lock:
            return uuid in self._allocations_in_hand

    @_expected
    def destroy_allocation(self, context, allocation):
        """Delete an allocation; the node it holds, if any, is released
        under its lock (RPC 1.3).

        :raises NodeInWrongState: if that node is deployed or busy (and
            not in maintenance).
        """
        allocation.refresh(context)
        if allocation.node_uuid is None:
            allocation.destroy()
            return
        with self._acquire(context, allocation.node_uuid,
                           purpose='allocation deletion') as task:
            allocations.check_can_release(task.node, allocation)
            allocation.destroy()

    # --- traits -------------------------------------------------------
    # As in Ironic, traits change in any provision state, under the lock.

    @_expected
    def add_node_traits(self, context, node_id, traits, replace=False):
        """Add ``traits`` to a node; with ``replace``, set exactly them.

        :raises TooManyTraits: (nothing changed)
        """
        with self._acquire(context, node_id,
                           purpose='add node traits') as task:
            if replace:
                task.node.set_traits(traits)
            else:
                task.node.add_traits(traits)

    @_expected
    def remove_node_traits(self, context, node_id, traits=None):
        """Remove ``traits`` from a node; every trait if None.

        :raises NodeTraitNotFound: (nothing changed)
        """
        with self._acquire(context, node_id,
                           purpose='remove node traits') as task:
            task.node.remove_traits(traits)

    # --- provisioning ---------------------------------------------------

    @_expected
    def do_provisioning_action(self, context, node_id, action):
        """``manage``, ``provide``, ``adopt``, ``unhold`` (RPC 1.8) or
        ``abort`` a node."""
        if action == states.EVENT_ABORT:
            return self._abort(context, node_id)
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose=action) as task:
            state = task.node.provision_state
            if action == states.EVENT_MANAGE and state == states.ENROLL:
                verification.start_verify(task, worker)
            elif action == states.EVENT_PROVIDE:
                node_updates.check_not_retired(task.node, 'provided')
                cleaning.start_cleaning(task, worker)
            elif action == states.EVENT_ADOPT:
                adoption.start_adoption(task, worker)
            elif action == states.EVENT_UNHOLD:
                flows.unhold(task, worker)
            elif action == states.EVENT_MANAGE:
                task.process_event(action)
                task.node.last_error = None
                task.node.save()
            else:
                raise exception.InvalidParameterValue(
                    err='Unknown provisioning action %r; use manage, '
                        'provide, adopt, unhold or abort' % (action,))

    def _abort(self, context, node_id):
        # A worker is claimed before the lock, as for every flow: the abort
        # of a failed servicing hands the machine back to its instance on
        # one.
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='abort') as task:
            state = task.node.provision_state
            if state == states.INSPECTWAIT:
                return inspection.abort(task)
            if state == states.SERVICEFAIL:
                return servicing.abort_failed(task, worker)
            if state == states.RESCUEWAIT:
                return rescue.abort(task)
            waiting = (flows.BY_WAIT_STATE.get(state)
                       or flows.BY_HOLD_STATE.get(state))
            if waiting is None:
                raise exception.InvalidStateRequested(
                    action=states.EVENT_ABORT, node=task.node.uuid,
                    state=task.node.provision_state,
                    allowed=', '.join(state_machine.events_from(
                        task.node.provision_state)) or 'none')
            step_runner.abort(task, waiting.flow)

    @_expected
    def inspect_hardware(self, context, node_id):
        """Inspect a node (RPC 1.6): see :mod:`inspection`.  A request
        that cannot be honoured changes nothing."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='hardware inspection') as task:
            inspection.start_inspection(task, worker)

    @_expected
    def do_node_deploy(self, context, node_id, rebuild=None,
                       deploy_steps=None, configdrive=None):
        """Deploy (``rebuild``: redeploy) a node; the work goes on in a
        worker.  A request that cannot be honoured changes nothing."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='node deployment') as task:
            deployments.start_deploy(task, worker, rebuild=rebuild,
                                     deploy_steps=deploy_steps,
                                     configdrive=configdrive)

    @_expected
    def preview_steps(self, context, node_id, flow, requested_steps=None):
        """What ``flow`` would run on the node (RPC 1.3, x-steps): see
        :mod:`preview`.  Takes no lock and changes nothing."""
        with task_manager.acquire(context, node_id, shared=True,
                                  purpose='step preview') as task:
            return preview.preview(task, flow, requested_steps)

    @_expected
    def resume_node_deploy(self, context, node_id):
        """Resume a failed deploy, or (release 0.13) servicing, from its
        resume point (RPC 1.3, x-steps); a request that cannot be honoured
        changes nothing."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='resume') as task:
            flow, point = resume_points.of_node(task.node)
            if flow is step_kinds.SERVICE_FLOW:
                servicing.start_resume(task, worker, point)
            else:
                deployments.start_resume(task, worker, point)

    @_expected
    def do_node_clean(self, context, node_id, clean_steps,
                      disable_ramdisk=False):
        """Manual cleaning: run ``clean_steps`` on a manageable node
        (``disable_ramdisk``: without booting its agent, RPC 1.5)."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='manual cleaning') as task:
            cleaning.start_manual_cleaning(task, worker, clean_steps,
                                           disable_ramdisk)

    @_expected
    def do_node_service(self, context, node_id, service_steps,
                        disable_ramdisk=False):
        """Servicing (RPC 1.8): run ``service_steps`` on an active node
        (``disable_ramdisk``: without booting its agent); see
        :mod:`servicing`.  A request that cannot be honoured changes
        nothing."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='node servicing') as task:
            servicing.start_servicing(task, worker, service_steps,
                                      disable_ramdisk)

    @_expected
    def do_node_rescue(self, context, node_id, rescue_password):
        """Rescue a node (RPC 1.7): see :mod:`rescue`.  A request that
        cannot be honoured changes nothing."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='node rescue') as task:
            rescue.start_rescue(task, worker, rescue_password)

    @_expected
    def do_node_unrescue(self, context, node_id):
        """Unrescue a node (RPC 1.7): see :mod:`rescue`."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='node unrescue') as task:
            rescue.start_unrescue(task, worker)

    @_expected
    def do_node_tear_down(self, context, node_id):
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='node tear down') as task:
            node_updates.check_not_protected(task.node, 'torn down')
            deployments.start_tear_down(task, worker)

    @_expected
    def continue_node_deploy(self, context, node_id):
        """Resume a deploy waiting in ``wait call-back``."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='continue deploy') as task:
            if (task.node.provision_state != states.DEPLOYWAIT
                    or step_polling.is_polled(task.node)):
                raise exception.NodeInWrongState(
                    node=task.node.uuid, action='continued',
                    state=task.node.provision_state)
            deployments.continue_node_deploy(task, worker)

    # --- power (RPC 1.2) -------------------------------------------------

    @_expected
    def change_node_power_state(self, context, node_id, new_state,
                                timeout=None):
        """Power on, off or reboot a node; the action runs in a worker."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='power action') as task:
            power.start_power_action(task, worker, new_state, timeout)

    # --- boot mode and secure boot (RPC 1.5) -----------------------------

    @_expected
    def change_node_boot_mode(self, context, node_id, new_state):
        """Set the node's boot mode (``uefi`` or ``bios``) in a worker."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='changing boot mode') as task:
            boot_settings.start_change(task, worker, boot_mode=new_state)

    @_expected
    def change_node_secure_boot(self, context, node_id, new_state):
        """Turn the node's secure boot on or off in a worker."""
        with self._reserve_worker() as worker, self._acquire(
                context, node_id, purpose='changing secure boot') as task:
            boot_settings.start_change(task, worker,
                                       secure_boot=bool(new_state))
