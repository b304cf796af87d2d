"""The conductor registry: which conductors there are, which are alive,
what each serves, and which one handles a node.

Every question about conductors is asked here, by the conductors
themselves, the RPC client and the API:

1. **Registration.**  A conductor registers at start with the hardware
   types it serves and, per type, the interface implementations it offers
   (*served hardware*: see :mod:`ironic_steps.db.sqlalchemy.conductors`),
   heartbeats every ``[conductor] heartbeat_interval`` seconds (its
   :class:`Heart`, on a thread of its own) and unregisters when it stops.
2. **Liveness.**  A conductor is *alive* when it is registered online
   and its last heartbeat is after :func:`cutoff`, ``[conductor]
   heartbeat_timeout`` seconds ago.  No other module computes it: the
   hash ring, the take-over of dead conductors' nodes, ``/v1/drivers``
   and ``/v1/conductors`` all ask here.
3. **What is served.**  A driver (hardware type) is served when a live
   conductor registered it; its hosts are those conductors.  A conductor
   that registered none runs, or is pinned to, a release before 0.5:
   it is taken to serve the hardware types this process's configuration
   enables, as every reader assumed before 0.5.  While this process is
   pinned to such a release, every conductor is read that way.
4. **Placement.**  :func:`conductor_for` answers from the hash ring
   (:mod:`ironic_steps.conductor.hash_ring`) built from the live
   conductors serving the node's driver.

The registry never locks a node and never takes one over: the
conductor's housekeeping (:mod:`ironic_steps.conductor.housekeeping`) asks
it for the dead conductors and frees their nodes itself.
"""

import datetime
import functools
import threading
import time

from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import outage
from ironic_steps.conductor import hash_ring
from ironic_steps.conf import CONF
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

LOG = log.getLogger(__name__)


def cutoff(now=None):
    """The heartbeat time before which a conductor counts as dead."""
    return (now or timeutils.utcnow()) - datetime.timedelta(
        seconds=CONF.conductor.heartbeat_timeout)


# --- a conductor's own registration ---------------------------------------

def register(hostname, hardware=None):
    """Say conductor ``hostname`` is online and serves ``hardware``; this
    process's rings take it in at once.

    :param hardware: served hardware; None: what this process's
        configuration enables (see
        :func:`~ironic_steps.drivers.driver_factory.served_hardware`).
    :raises NoDriversLoaded: when it would serve no hardware type.
    """
    if hardware is None:
        hardware = driver_factory.served_hardware()
    if not hardware:
        raise exception.NoDriversLoaded(
            conductor=hostname,
            enabled=', '.join(CONF.enabled_hardware_types) or 'none')
    objects.Conductor.register(hostname, hardware)
    reset_ring()


def heartbeat(hostname):
    """Conductor ``hostname`` is alive now."""
    objects.Conductor.touch(hostname)


class Heart:
    """A conductor's heartbeat, on a thread of its own.

    No periodic task, however slow (a power sync waiting on BMCs), can
    delay it, so a busy conductor is never taken for dead.
    """

    def __init__(self, host, clock=time.monotonic):
        self.host = host
        self._clock = clock
        self._stop = threading.Event()
        self._thread = None
        # Registered just now: others had no reason to beat for us yet.
        self._steady_since = clock()

    def start(self):
        self._thread = threading.Thread(target=self._beat, daemon=True,
                                        name='conductor-heartbeat')
        self._thread.start()

    def _beat(self):
        while not self._stop.wait(CONF.conductor.heartbeat_interval):
            self.beat()

    def beat(self):
        """Write a heartbeat; whatever fails, the next one is still due:
        a conductor that stops beating is taken for dead, and its nodes
        taken over, while it works."""
        try:
            heartbeat(self.host)
        except db_exc.DBConnectionError as exc:
            outage.DATABASE.failed(exc)
            self._steady_since = None
        except Exception:
            # A deadlock, a constraint, a bug: said at each failure.
            LOG.exception('Heartbeat of conductor %s failed; the next is in '
                          '%s s', self.host, CONF.conductor.heartbeat_interval)
            self._steady_since = None
        else:
            outage.DATABASE.succeeded()
            if self._steady_since is None:
                self._steady_since = self._clock()

    def steady(self):
        """Whether our heartbeats have gone through for a whole
        ``heartbeat_timeout``: only then do others' missing ones mean
        they are dead rather than that the database was out."""
        since = self._steady_since
        return (since is not None and self._clock() - since
                >= CONF.conductor.heartbeat_timeout)

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def unregister(hostname):
    """Conductor ``hostname`` stopped: it is dead at once, and leaves
    this process's rings at once (the others' at their next read)."""
    objects.Conductor.unregister(hostname)
    reset_ring()


# --- reading ----------------------------------------------------------------

def _registrations_are_read():
    # A release before hardware types has no registrations to read.
    return 'hardware_types' not in (
        objects.Conductor.fields_unknown_under_pin())


def _served_by_live():
    """{hostname: registered hardware types, or None} of the live
    conductors (None for all while pinned before registrations)."""
    served = objects.Conductor.hardware_types_seen_after(cutoff())
    if not _registrations_are_read():
        return dict.fromkeys(served)
    return served


class LiveConductors:
    """The live conductors and the hardware types each serves, as read at
    one moment (one query; the configuration too, when what a conductor
    that registered none serves is asked)."""

    def __init__(self, served):
        """:param served: {hostname: hardware types or None}."""
        self._as_read = served
        self._registered = frozenset(host for host, types in served.items()
                                     if types is not None)

    @functools.cached_property
    def _served(self):
        configured = ()
        if len(self._registered) < len(self._as_read):
            configured = driver_factory.enabled_hardware_types()
        return {host: tuple(configured if types is None else types)
                for host, types in self._as_read.items()}

    @property
    def hostnames(self):
        return sorted(self._as_read)

    def is_alive(self, hostname):
        return hostname in self._as_read

    def hardware_types(self):
        """The hardware types some live conductor serves, sorted."""
        return sorted(set().union(*self._served.values()))

    def hosts_serving(self, driver):
        """The live conductors that serve ``driver``, sorted."""
        return sorted(host for host, types in self._served.items()
                      if driver in types)

    def drivers_of(self, hostname):
        """What live conductor ``hostname`` serves, sorted ([] if it is
        not live)."""
        return sorted(self._served.get(hostname, ()))

    def interfaces_of(self, driver):
        """{interface_type: (implementation, ...)}, default first, that the
        live conductors serving ``driver`` offer for it; from this
        process's hardware type if only conductors that registered nothing
        serve it."""
        hosts = self.hosts_serving(driver)
        registered = [host for host in hosts if host in self._registered]
        if registered:
            return objects.Conductor.hardware_interfaces(driver, registered)
        if not hosts:
            return {}
        return driver_factory.served_hardware().get(driver, {})


def live_conductors():
    """The live conductors now (see :class:`LiveConductors`)."""
    return LiveConductors(_served_by_live())


def dead_hosts_holding_locks():
    """Hostnames of dead conductors that still hold node locks."""
    return objects.Conductor.hostnames_silent_since(cutoff())


# --- placement -------------------------------------------------------------

_RING = hash_ring.HashRingManager(_served_by_live)


def conductor_for(key, driver):
    """The live conductor that handles ``key`` (a node UUID).

    :param driver: the node's hardware type, or a callable that reads it
        (called only when the live conductors serve different types).
    :raises NoConductorOnline: when no conductor is alive.
    """
    return _RING.get_host(key, driver)


def reset_ring():
    """Read the live conductors again at the next :func:`conductor_for`
    (this process's conductors came or went)."""
    _RING.reset()
