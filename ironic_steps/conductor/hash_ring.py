"""Which conductor handles which node: consistent hash rings (tooz).

A node belongs to the ring of the live conductors that serve its driver
(Ironic's rule), so it never lands on a conductor that cannot load its
hardware type.  When every live conductor serves the same hardware types
that is one ring of them all, and a node's driver need not even be read.
A conductor that registered no hardware types (a release before 0.5, or
one pinned to it) is in every driver's ring, as every conductor was
before; so is every live conductor for a driver none of them serves (the
conductor then refuses the node, naming what it serves).  What a ring
holds never depends on this process's configuration: every service must
place a node on the same conductor.

Each conductor takes ``2 ** [conductor] hash_partition_exponent`` places
on a ring, enough for an even spread (see benchmarks/README.md); while
pinned to a release before 0.5, tooz's default of 2 ** 5, as those
releases place nodes.

Which conductors are live and what they serve is the conductor registry's
answer (:mod:`ironic_steps.conductor.registry`), read again every
``[conductor] hash_ring_reset_interval`` seconds; a ring is built only
when the conductors it holds change, so most nodes stay where they were
when one comes or goes.
"""

import threading
import time

from tooz import hashring

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

#: The first release whose ring takes its partitions from the option.
_PARTITION_EXPONENT_SINCE = '0.5'
#: What releases before it use: tooz's default.
_LEGACY_PARTITIONS = hashring.HashRing.DEFAULT_PARTITION_NUMBER

#: Rings kept for member sets no longer live (a conductor flapping).
_MAX_KEPT_RINGS = 32


def partitions():
    """How many places each conductor takes on a ring."""
    if release_mappings.pinned_before(CONF, _PARTITION_EXPONENT_SINCE):
        return _LEGACY_PARTITIONS
    return 2 ** CONF.conductor.hash_partition_exponent


def build_ring(hostnames, partitions):
    """A ring of ``hostnames``, as every service builds it."""
    return hashring.HashRing(hostnames, partitions=partitions)


def host_on(ring, key):
    """The member of ``ring`` that ``key`` (a string) falls to."""
    return next(iter(ring.get_nodes(key.encode('utf-8'))))


class _Placement:
    """The rings of one view of the live conductors."""

    def __init__(self, served, ring_for):
        """:param served: {hostname: hardware types or None}.
        :param ring_for: frozenset of hostnames -> its ring.
        """
        registered = {host: frozenset(types)
                      for host, types in served.items() if types is not None}
        everyone = frozenset(served)
        every_type = frozenset().union(*registered.values())
        self.everyone = ring_for(everyone) if everyone else None
        # Each driver's ring: those registered to serve it, and those that
        # registered nothing.
        self.uniform = all(types == every_type
                           for types in registered.values())
        self.rings = {} if self.uniform else {
            driver: ring_for(everyone - frozenset(
                host for host, types in registered.items()
                if driver not in types))
            for driver in every_type}

    def ring(self, driver):
        if self.uniform:
            return self.everyone
        name = driver() if callable(driver) else driver
        return self.rings.get(name, self.everyone)


class HashRingManager:
    """Places keys (node UUIDs, driver names) on the live conductors.

    :param read_served: () -> {hostname: the hardware types it serves, or
        None if it registered none}, of the live conductors.
    :param clock: seconds, monotonic (injected by tests).
    :param build: ``build(hostnames, partitions)`` -> a ring (injected by
        tests, to count builds).
    """

    def __init__(self, read_served, clock=time.monotonic, build=build_ring):
        self._read_served = read_served
        self._clock = clock
        self._build = build
        self._lock = threading.Lock()
        self._placement = None
        self._built_at = None
        self._rings = {}

    def _ring_for(self, hostnames, partitions):
        key = (hostnames, partitions)
        ring = self._rings.pop(key, None)
        if ring is None:
            ring = self._build(hostnames, partitions)
        self._rings[key] = ring   # now the most recently used
        while len(self._rings) > _MAX_KEPT_RINGS:
            del self._rings[next(iter(self._rings))]
        return ring

    def _current(self):
        with self._lock:
            stale = (self._built_at is None or self._clock() - self._built_at
                     >= CONF.conductor.hash_ring_reset_interval)
            if stale:
                count = partitions()
                self._placement = _Placement(
                    self._read_served(),
                    lambda hostnames: self._ring_for(hostnames, count))
                self._built_at = self._clock()
            return self._placement

    def get_host(self, key, driver):
        """The conductor that handles ``key``.

        :param key: a node UUID, or a driver name for a request about the
            driver itself.
        :param driver: the hardware type of the node, or a callable that
            reads it: called only when the live conductors do not all
            serve the same hardware types.
        :raises NoConductorOnline: when no conductor heartbeats.
        """
        ring = self._current().ring(driver)
        if ring is None:
            raise exception.NoConductorOnline()
        return host_on(ring, key)

    def reset(self):
        """Read the live conductors again at the next question."""
        with self._lock:
            self._placement = None
            self._built_at = None
