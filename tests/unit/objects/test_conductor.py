"""The Conductor object: how conductors and what they serve are recorded
and read, against a real database.

Its fingerprint is recorded with the others in test_node.py; when a
conductor counts as alive is the registry's (tests/unit/conductor/
test_registry.py), so the instants here are given.
"""

import datetime

from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps import objects
from tests import base

Conductor = objects.Conductor

FAKE = {'fake-hardware': {'deploy': ('fake', 'fake-legacy'),
                          'power': ('fake',)}}
BOTH = dict(FAKE, redfish={'power': ('redfish',), 'deploy': ('ramdisk',)})


def an_hour_ago():
    return timeutils.utcnow() - datetime.timedelta(hours=1)


class ConductorTest(base.TestCase):

    def test_a_registered_conductor_shows_the_types_it_serves(self):
        Conductor.register('conductor-1', BOTH)
        conductor = Conductor.get_by_hostname(self.context, 'conductor-1')
        self.assertEqual(('conductor-1', True, ['fake-hardware', 'redfish']),
                         (conductor.hostname, conductor.online,
                          conductor.hardware_types))
        self.assertEqual({}, conductor.obj_get_changes())

    def test_registering_again_replaces_what_it_served(self):
        Conductor.register('conductor-1', BOTH)
        Conductor.register('conductor-1', FAKE)
        self.assertEqual(['fake-hardware'], Conductor.get_by_hostname(
            self.context, 'conductor-1').hardware_types)
        self.assertEqual({}, Conductor.hardware_interfaces(
            'redfish', ['conductor-1']))

    def test_a_conductor_that_registered_nothing_has_no_types(self):
        Conductor.dbapi.register_conductor('old-conductor')
        self.assertIsNone(Conductor.get_by_hostname(
            self.context, 'old-conductor').hardware_types)

    def test_pinned_to_0_4_the_hardware_is_not_recorded(self):
        Conductor.register('conductor-1', BOTH)
        self.config(pin_release_version='0.4')
        Conductor.register('conductor-2', BOTH)
        Conductor.register('conductor-1', FAKE)
        self.config(pin_release_version=None)
        listed = Conductor.list(self.context, sort_key='hostname')
        # conductor-1 keeps what it recorded unpinned: 0.4 reads nothing.
        self.assertEqual(
            [('conductor-1', ['fake-hardware', 'redfish']),
             ('conductor-2', None)],
            [(c.hostname, c.hardware_types) for c in listed])
        self.assertTrue(all(c.online for c in listed))

    def test_version_1_0_is_sent_without_hardware_types(self):
        Conductor.register('conductor-1', FAKE)
        conductor = Conductor.get_by_hostname(self.context, 'conductor-1')
        primitive = conductor.obj_to_primitive(target_version='1.0')
        self.assertNotIn('hardware_types',
                         primitive['ironic_steps_object.data'])
        self.assertEqual('conductor-1',
                         primitive['ironic_steps_object.data']['hostname'])

    def test_a_page_of_conductors_carries_each_ones_types(self):
        Conductor.register('b', FAKE)
        Conductor.register('a', BOTH)
        Conductor.dbapi.register_conductor('c')
        page = Conductor.list(self.context, limit=2, sort_key='hostname')
        self.assertEqual([('a', ['fake-hardware', 'redfish']),
                          ('b', ['fake-hardware'])],
                         [(c.hostname, c.hardware_types) for c in page])
        rest = Conductor.list(self.context, marker=page[-1],
                              sort_key='hostname')
        self.assertEqual([('c', None)],
                         [(c.hostname, c.hardware_types) for c in rest])

    def test_an_unknown_conductor_is_not_found(self):
        self.assertRaises(exception.ConductorNotFound,
                          Conductor.get_by_hostname, self.context, 'nope')

    def test_types_seen_after_an_instant_are_those_of_online_conductors(
            self):
        Conductor.register('serving', BOTH)
        Conductor.dbapi.register_conductor('old')
        Conductor.register('stopped', FAKE)
        Conductor.unregister('stopped')
        self.assertEqual(
            {'serving': ['fake-hardware', 'redfish'], 'old': None},
            Conductor.hardware_types_seen_after(an_hour_ago()))
        self.assertEqual({}, Conductor.hardware_types_seen_after(
            timeutils.utcnow() + datetime.timedelta(seconds=1)))

    def test_interfaces_of_a_type_are_what_the_named_conductors_offer(self):
        Conductor.register('conductor-1', FAKE)
        Conductor.register('conductor-2', {'fake-hardware': {
            'deploy': ('fake', 'direct'), 'boot': ('pxe',)}})
        self.assertEqual(
            {'boot': ('pxe',), 'deploy': ('fake', 'direct', 'fake-legacy'),
             'power': ('fake',)},
            Conductor.hardware_interfaces('fake-hardware',
                                          ['conductor-1', 'conductor-2']))
        self.assertEqual(
            {'deploy': ('fake', 'fake-legacy'), 'power': ('fake',)},
            Conductor.hardware_interfaces('fake-hardware', ['conductor-1']))

    def test_silent_conductors_are_named_only_while_they_hold_locks(self):
        node = self.create_node()
        Conductor.register('silent', FAKE)
        Conductor.register('idle', FAKE)
        Conductor.dbapi.reserve_node('silent', node.id)
        soon = timeutils.utcnow() + datetime.timedelta(seconds=1)
        self.assertEqual(['silent'], Conductor.hostnames_silent_since(soon))
        self.assertEqual([], Conductor.hostnames_silent_since(
            an_hour_ago()))
        Conductor.unregister('silent')
        self.assertEqual(['silent'], Conductor.hostnames_silent_since(
            an_hour_ago()))
