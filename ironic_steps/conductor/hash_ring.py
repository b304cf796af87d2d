"""Which conductor handles which node: a consistent hash ring (tooz).

The ring is built from the live conductors (see
:mod:`ironic_steps.objects.conductor`), and rebuilt every ``[conductor]
hash_ring_reset_interval`` seconds, so a conductor that stops
heartbeating drops out and its nodes spread over the others while most
nodes stay where they were.
"""

import threading
import time

from tooz import hashring

from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps import objects


class HashRingManager:

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._lock = threading.Lock()
        self._ring = None
        self._built_at = None

    def _build(self):
        hosts = objects.Conductor.alive_hostnames()
        return hashring.HashRing(hosts) if hosts else None

    def _current(self):
        with self._lock:
            stale = (self._built_at is None or self._clock() - self._built_at
                     >= CONF.conductor.hash_ring_reset_interval)
            if stale or self._ring is None:
                self._ring = self._build()
                self._built_at = self._clock()
            return self._ring

    def get_host(self, node_uuid):
        """The conductor that handles ``node_uuid``.

        :raises NoConductorOnline: when no conductor heartbeats.
        """
        ring = self._current()
        if ring is None:
            raise exception.NoConductorOnline()
        return next(iter(ring.get_nodes(node_uuid.encode('utf-8'))))

    def reset(self):
        with self._lock:
            self._ring = None
            self._built_at = None
