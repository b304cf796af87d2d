"""The agent of fake-hardware's machines, played in the service's process.

A real agent runs on the machine: it does the work of a waiting step
(writes the image, erases disks) and then heartbeats to the conductor,
which resumes the waiting flow.  This one does the same for fake machines,
for deploy and clean steps alike.  It is not a driver and the conductor
does not know it: the service starts it (:func:`start`) and plugs it into
:mod:`ironic_steps.drivers.modules.fake_machine`, through which the fake
steps tell it that a node is parked (waiting, lock released:
``TaskManager.call_after_release``).  It then waits ``[fake]
agent_delay`` seconds and heartbeats through the conductor's RPC client,
the path a real agent's heartbeat takes behind the API, with the agent
token the step handed over with the work (from release 0.14, as a real
agent gets it on virtual media) or else the one its first lookup handed
out (remembered, as a real agent does, for the later steps of the flow).
Should the node be taken meanwhile (turned away), or after a delay, it
first reads where the flow stands and heartbeats only once the node is
parked again, looking again with backoff, as a real agent heartbeats
periodically.  One timer thread serves every node, so thousands of
waiting nodes cost one thread plus a few senders.

When a fake machine boots the agent's ramdisk for an inspection in band
(the ``agent`` inspect interface; ``fake_machine.ramdisk_booted``), it
reports the machine's inventory (``fake_machine.inventory``) once the node
is parked in ``inspect wait``, through the conductor's
``continue_inspection``, the path ``/v1/continue_inspection`` takes
behind the API.

It reads its node's row, which an agent on a machine could not: that is
how it knows, without a heartbeat turned away, that the node is parked.
"""

from concurrent import futures
import heapq
import itertools
import threading
import time

from oslo_db import exception as db_exc
from oslo_log import log
import oslo_messaging as messaging

from ironic_steps.common import context
from ironic_steps.common import boot_modes
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import agent_token
from ironic_steps.conductor import rpcapi
from ironic_steps.conf import CONF
from ironic_steps.drivers.modules import fake_machine
from ironic_steps import objects

LOG = log.getLogger(__name__)

#: A real agent gives up on a conductor eventually; so does this one.
MAX_ATTEMPTS = 200
_MAX_BACKOFF = 1.0


class _Conductor:
    """The agent's view of the conductor: lookup, then heartbeats."""

    def __init__(self):
        self._tokens = {}
        #: Nodes whose token came with the work: no lookup needed.
        self._handed = set()
        self._api = None

    def _rpc(self):
        if self._api is None:
            self._api = rpcapi.ConductorAPI()
        return self._api, context.get_admin_context()

    def take_token(self, node_uuid, token):
        """``token`` came with the node's work (out of band); None: the
        lookup hands it out."""
        if token is None:
            self._handed.discard(node_uuid)
        else:
            self._tokens[node_uuid] = token
            self._handed.add(node_uuid)

    def heartbeat(self, node_uuid):
        api, ctx = self._rpc()
        if node_uuid in self._handed:
            # A real agent looks up once at boot, for its configuration;
            # this one needs nothing from it but the token it has.
            api.heartbeat(ctx, node_uuid,
                          agent_token=self._tokens[node_uuid])
            return
        token = api.get_node_with_token(ctx, node_uuid)
        if token not in (None, agent_token.MASK):
            self._tokens[node_uuid] = token
        elif token == agent_token.MASK and node_uuid not in self._tokens:
            # Handed out to this node's agent before its conductor died;
            # the agent, on the node, still has it.
            self._tokens[node_uuid] = _token_on_the_node(node_uuid)
        api.heartbeat(ctx, node_uuid,
                      agent_token=self._tokens.get(node_uuid))

    def report_inventory(self, node_uuid):
        """Post the fake machine's inventory, as booted to be inspected."""
        api, ctx = self._rpc()
        node = objects.Node.get_row(ctx, node_uuid)
        api.continue_inspection(ctx, node_uuid, fake_machine.inventory(
            node, node.boot_mode or boot_modes.UEFI), {})


def _token_on_the_node(node_uuid):
    node = objects.Node.get_row(context.get_admin_context(), node_uuid)
    return (node.driver_internal_info or {}).get(agent_token.TOKEN_KEY)


PARKED, BUSY, MOVED_ON = 'parked', 'busy', 'moved on'
#: The kind of job of an agent booted to inspect its machine.
INSPECTION = 'inspection'


def _stage(node_uuid, kind, step_index):
    """Where the flow stands relative to the step that waits for us."""
    node = objects.Node.get_row(context.get_admin_context(), node_uuid)
    flow = step_kinds.FLOWS[kind]
    if ((node.driver_internal_info or {}).get(flow.index_key) != step_index
            or node.provision_state not in flow.under_way):
        return MOVED_ON
    if node.provision_state == flow.wait_state and not node.reservation:
        return PARKED
    return BUSY


def _inspection_stage(node_uuid):
    """Where an inspection stands for the agent booted to report it."""
    node = objects.Node.get_row(context.get_admin_context(), node_uuid)
    if node.provision_state == states.INSPECTWAIT and not node.reservation:
        return PARKED
    if node.provision_state == states.INSPECTING:
        return BUSY
    return MOVED_ON


class FakeAgent:

    def __init__(self, send=None, stage=_stage, clock=time.monotonic,
                 report=None, inspection_stage=_inspection_stage):
        conductor = _Conductor()
        self._conductor = conductor
        self._send = send or conductor.heartbeat
        self._stage = stage
        self._report = report or conductor.report_inventory
        self._inspection_stage = inspection_stage
        self._clock = clock
        self._due = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._thread = None
        self._stopped = False
        self._serving = set()   # jobs due or being sent
        self._senders = futures.ThreadPoolExecutor(
            4, thread_name_prefix='fake-agent-sender')

    @staticmethod
    def takes_tokens():
        """Whether it plays the agents (``[fake] agent_delay`` is not
        negative), taking each token with the work."""
        return CONF.fake.agent_delay >= 0

    def expect_heartbeat(self, node_uuid, step_index, kind='deploy',
                         token=None):
        """Heartbeat until the flow of ``node_uuid`` passes a step.

        Call it once the node is parked.  Without a delay the first
        heartbeat goes out at once, without reading the node first.

        :param step_index: the index of the step that waits for the agent.
        :param kind: the kind of that step, 'deploy' or 'clean'.
        :param token: the agent token, handed over with the work; None:
            the first lookup hands it out.
        """
        delay = CONF.fake.agent_delay
        if delay < 0:
            return
        self._conductor.take_token(node_uuid, token)
        self._schedule((node_uuid, kind, step_index), delay, attempt=0,
                       parked=delay == 0, new=True)

    def adopt(self, node_uuid, step_index, kind='deploy'):
        """Serve a node whose agent was served by a conductor that died.

        The agent lives on the node, not in its conductor: it goes on
        heartbeating, now to the node's new conductor, with the token it
        was given.  Adopting a node already served does nothing.
        """
        if CONF.fake.agent_delay < 0:
            return
        self._schedule((node_uuid, kind, step_index), 0, attempt=0, new=True)

    def ramdisk_booted(self, node_uuid):
        """The machine of ``node_uuid`` booted the agent's ramdisk: if it
        is inspected in band, report its inventory once it is parked."""
        delay = CONF.fake.agent_delay
        if delay < 0:
            return
        self._schedule((node_uuid, INSPECTION, None), delay, attempt=0,
                       new=True)

    def serving(self):
        """The (node, kind, step index) this agent will heartbeat for."""
        with self._cond:
            return set(self._serving)

    def _schedule(self, job, delay, attempt, parked=False, new=False):
        with self._cond:
            if self._stopped:
                return
            if new:
                if job in self._serving:
                    return
                self._serving.add(job)
            heapq.heappush(self._due, (self._clock() + delay,
                                       next(self._order), job, attempt,
                                       parked))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name='fake-agent', daemon=True)
                self._thread.start()
            self._cond.notify()

    def _run(self):
        while True:
            with self._cond:
                while not self._stopped and (
                        not self._due or self._due[0][0] > self._clock()):
                    timeout = (self._due[0][0] - self._clock()
                               if self._due else None)
                    self._cond.wait(timeout)
                if self._stopped:
                    return
                _due, _order, job, attempt, parked = heapq.heappop(self._due)
            self._senders.submit(self._heartbeat, job, attempt, parked)

    def _heartbeat(self, job, attempt, parked=False):
        # Heartbeat only once the node is parked: while its worker still
        # holds it, a heartbeat would only be turned away.
        node_uuid, kind, step_index = job
        inspecting = kind == INSPECTION
        try:
            if parked:
                stage = PARKED
            elif inspecting:
                stage = self._inspection_stage(node_uuid)
            else:
                stage = self._stage(node_uuid, kind, step_index)
            if stage == MOVED_ON:
                return self._done(job)
            if stage == PARKED:
                (self._report if inspecting else self._send)(node_uuid)
                return self._done(job)
        except (exception.NodeLocked, exception.TemporaryFailure):
            pass   # taken meanwhile, or no conductor free: try again
        except db_exc.DBConnectionError:
            pass   # the database is out (said once by its conductor)
        except messaging.MessagingTimeout:
            # Lost with a broker that went away, or a conductor that died
            # holding it: a real agent just heartbeats again.
            LOG.info('Fake agent: no conductor answered the heartbeat of '
                     'node %s in time; trying again', node_uuid)
        except exception.NotFound:
            LOG.info('Fake agent: node %s is gone or waits no more; no '
                     'heartbeat', node_uuid)
            return self._done(job)
        except Exception:
            LOG.exception('Fake agent heartbeat for node %s failed',
                          node_uuid)
        if attempt + 1 >= MAX_ATTEMPTS:
            LOG.error('Fake agent of node %s gave up after %d heartbeats',
                      node_uuid, attempt + 1)
            return self._done(job)
        self._schedule(job, min(0.01 * 2 ** attempt, _MAX_BACKOFF),
                       attempt + 1)

    def _done(self, job):
        with self._cond:
            self._serving.discard(job)

    def stop(self):
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._senders.shutdown(wait=True)


_agent = None
_agent_lock = threading.Lock()


def start():
    """Start this process's fake agent and plug it into the fake machines
    (a service running a conductor does); starting it twice does
    nothing.  :returns: the agent."""
    global _agent
    with _agent_lock:
        if _agent is None:
            _agent = FakeAgent()
            fake_machine.plug(_agent)
        return _agent


def running():
    """The fake agent started in this process, or None."""
    return _agent


def stop():
    """Unplug and stop the fake agent (service shutdown, test clean-up)."""
    global _agent
    with _agent_lock:
        agent, _agent = _agent, None
    if agent is not None:
        fake_machine.unplug(agent)
        agent.stop()
