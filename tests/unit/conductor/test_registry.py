"""The conductor registry: registration, the one liveness cutoff, what the
live conductors serve, and the node placement built from them, read from
a real database."""

import datetime

from oslo_utils import timeutils
from tooz import hashring

from ironic_steps.common import exception
from ironic_steps.conductor import hash_ring
from ironic_steps.conductor import manager
from ironic_steps.conductor import registry
from ironic_steps import objects
from tests import base
from tests.unit.conductor.test_hash_ring import NeverRead
from tests.unit.conductor.test_hash_ring import node_uuids

FAKE = {'fake-hardware': {'deploy': ('fake', 'fake-legacy')}}
REDFISH = {'redfish': {'power': ('redfish',)}}


class RegistryTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config(heartbeat_timeout=60, group='conductor')
        registry.reset_ring()
        self.addCleanup(registry.reset_ring)

    def later(self, seconds):
        """Move the clock ``seconds`` ahead of now, for the rest of the
        test."""
        timeutils.set_time_override(
            timeutils.utcnow() + datetime.timedelta(seconds=seconds))
        self.addCleanup(timeutils.clear_time_override)

    def test_a_conductor_is_alive_until_its_heartbeat_is_too_old(self):
        # Given a conductor that registered and then fell silent
        registry.register('conductor-1', FAKE)
        # Then it is alive for heartbeat_timeout seconds, dead after
        self.later(59)
        self.assertTrue(registry.live_conductors().is_alive('conductor-1'))
        self.later(2)
        self.assertEqual([], registry.live_conductors().hostnames)
        # until it heartbeats again
        registry.heartbeat('conductor-1')
        self.assertEqual(['conductor-1'],
                         registry.live_conductors().hostnames)

    def test_a_dead_conductor_holding_locks_is_named_for_take_over(self):
        node = self.create_node()
        registry.register('conductor-1', FAKE)
        registry.register('conductor-2', FAKE)
        objects.Node.dbapi.reserve_node('conductor-1', node.id)
        self.assertEqual([], registry.dead_hosts_holding_locks())
        self.later(61)
        registry.heartbeat('conductor-2')
        # conductor-2 holds nothing, so only conductor-1 is named.
        self.assertEqual(['conductor-1'], registry.dead_hosts_holding_locks())

    def test_a_stopped_conductor_is_dead_at_once(self):
        registry.register('conductor-1', FAKE)
        registry.unregister('conductor-1')
        self.assertFalse(registry.live_conductors().is_alive('conductor-1'))
        self.assertRaises(exception.NoConductorOnline,
                          registry.conductor_for, node_uuids(1)[0], 'fake')

    def test_a_conductor_registers_what_this_process_enables(self):
        self.config(enabled_hardware_types=['fake-hardware'])
        registry.register('conductor-1')
        live = registry.live_conductors()
        self.assertEqual(['fake-hardware'], live.drivers_of('conductor-1'))
        self.assertEqual(('fake', 'custom-agent', 'direct', 'fake-legacy'),
                         live.interfaces_of('fake-hardware')['deploy'])

    def test_a_conductor_that_would_serve_nothing_refuses_to_register(self):
        self.config(enabled_hardware_types=['not-installed'])
        exc = self.assertRaises(exception.NoDriversLoaded, registry.register,
                                'conductor-1')
        self.assertIn('not-installed', str(exc))
        self.assertEqual([], registry.live_conductors().hostnames)

    def test_a_conductor_that_would_serve_nothing_does_not_start(self):
        self.config(enabled_hardware_types=['not-installed'])
        conductor = manager.ConductorManager(host='conductor-1')
        self.addCleanup(conductor.stop)
        exc = self.assertRaises(exception.NoDriversLoaded, conductor.start,
                                self.context)
        self.assertIn('conductor-1', str(exc))

    def test_each_live_conductor_serves_what_it_registered(self):
        registry.register('conductor-1', FAKE)
        registry.register('conductor-2', dict(FAKE, **REDFISH))
        registry.register('gone', {'ipmi': {'power': ('ipmitool',)}})
        registry.unregister('gone')
        live = registry.live_conductors()
        self.assertEqual(['fake-hardware', 'redfish'], live.hardware_types())
        self.assertEqual(['conductor-1', 'conductor-2'],
                         live.hosts_serving('fake-hardware'))
        self.assertEqual(['conductor-2'], live.hosts_serving('redfish'))
        self.assertEqual([], live.hosts_serving('ipmi'))
        self.assertEqual({}, live.interfaces_of('ipmi'))
        self.assertEqual([], live.drivers_of('gone'))

    def test_a_conductor_of_0_4_serves_what_this_process_enables(self):
        objects.Conductor.dbapi.register_conductor('old-conductor')
        registry.register('conductor-1', REDFISH)
        self.config(enabled_hardware_types=['fake-hardware'])
        live = registry.live_conductors()
        self.assertEqual(['fake-hardware'], live.drivers_of('old-conductor'))
        self.assertEqual(['fake-hardware', 'redfish'], live.hardware_types())
        # Its interfaces are this process's, as none were registered.
        self.assertEqual(('fake', 'fake-legacy', 'direct', 'custom-agent'),
                         live.interfaces_of('fake-hardware')['deploy'])


class PlacementFromTheDatabaseTest(base.TestCase):

    def setUp(self):
        super().setUp()
        registry.reset_ring()
        self.addCleanup(registry.reset_ring)

    def test_a_registered_conductor_takes_nodes_at_once(self):
        registry.register('conductor-1', FAKE)
        uuids = node_uuids(100)
        self.assertEqual({'conductor-1'}, {
            registry.conductor_for(u, NeverRead()) for u in uuids})
        registry.register('conductor-2', FAKE)
        self.assertEqual({'conductor-1', 'conductor-2'}, {
            registry.conductor_for(u, NeverRead()) for u in uuids})

    def test_nodes_go_to_the_conductors_serving_their_driver(self):
        registry.register('conductor-1', FAKE)
        registry.register('conductor-2', dict(FAKE, **REDFISH))
        uuids = node_uuids(100)
        self.assertEqual({'conductor-2'}, {
            registry.conductor_for(u, 'redfish') for u in uuids})
        self.assertEqual({'conductor-1', 'conductor-2'}, {
            registry.conductor_for(u, 'fake-hardware') for u in uuids})

    def test_conductors_serving_the_same_types_place_nodes_as_before(self):
        # As 0.4 did with the same conductors, but with more places each.
        for host in ('conductor-1', 'conductor-2', 'conductor-3'):
            registry.register(host, FAKE)
        ring = hash_ring.build_ring(
            ['conductor-1', 'conductor-2', 'conductor-3'], 1024)
        uuids = node_uuids(300)
        self.assertEqual([hash_ring.host_on(ring, u) for u in uuids],
                         [registry.conductor_for(u, NeverRead())
                          for u in uuids])

    def test_pinned_to_0_4_nodes_are_placed_exactly_as_0_4_placed_them(self):
        # Given conductors that registered different types, unpinned
        registry.register('conductor-1', FAKE)
        registry.register('conductor-2', REDFISH)
        # When the services are pinned to 0.4
        self.config(pin_release_version='0.4')
        registry.reset_ring()
        # Then every node is placed on tooz's default ring of all the live
        # conductors, whatever its driver, as 0.4 placed it
        old_ring = hashring.HashRing(['conductor-1', 'conductor-2'])
        uuids = node_uuids(300)
        self.assertEqual([hash_ring.host_on(old_ring, u) for u in uuids],
                         [registry.conductor_for(u, NeverRead())
                          for u in uuids])
