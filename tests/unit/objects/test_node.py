"""The Node object: its version history and how it reads and writes nodes."""

import datetime
import threading

import ddt
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fixture as ovo_fixture

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.db import api as dbapi
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import objects
from ironic_steps.objects import base as objects_base
from tests import base

# The fingerprint of every object's fields and remotable methods.  A change
# of fields needs a VERSION bump (with a "# Version X.Y:" comment and, if
# older versions lack the field, obj_make_compatible) and then the new hash
# printed by this test's failure.
EXPECTED_FINGERPRINTS = {
    'Allocation': '1.0-fbbefdfea27b7477fac9a9130842823a',
    'BIOSSetting': '1.1-054a26d8e261a76198623773e5659292',
    'Conductor': '1.1-e039111d3b500d145d1dac6774f52fb0',
    'DeployTemplate': '1.0-afeca1adc9e4e3f2381fe7783f469832',
    'Node': '1.7-0b136151b2f514963bfe2b9f7c12fac5',
    'Chassis': '1.0-c83b9e409c9107e4f02c134767bcab57',
    'Port': '1.2-9424d9002fedad596790a813838c8ae1',
    'Portgroup': '1.1-cca7c1a8af4576d0e7855d301309fcef',
    'VolumeConnector': '1.0-86b11ec0df68e4f9ced2b643a4d49122',
    'VolumeTarget': '1.0-755c656508780abd6fc4c4c9598aaf59',
    'NodeStepHistory': '1.0-c11b22988e6f745d44618893dc1e067c',
    'NodeInventory': '1.0-28a6dc418a5e487eee64b1e051f479ad',
    'FirmwareComponent': '1.0-3030fa4c088cfc4aaaeb10996186fd45',
    'Runbook': '1.0-ff0490aba00b913f94ed20f955f97b0c',
    'InspectionRule': '1.0-5a8b08c674c9c9d47766de6f5b411bc4',
}

# Fixed, not generated: ddt puts it in the test id, which must not change
# between the test runner's listing and its workers.
MISSING_UUID = '5d7c3a4e-93b1-4c2f-a0f6-2b8e9d1c7f40'

DEPLOY_STEP = {'interface': 'deploy', 'step': 'write_image', 'priority': 80,
               'argsinfo': None, 'args': {}}


def data(primitive):
    return primitive['ironic_steps_object.data']


def new_node(context, **fields):
    """Create a node through the object alone, as the conductor does."""
    node = objects.Node(context, driver='fake-hardware',
                        provision_state=states.ENROLL, **fields)
    node.create()
    return node


class VersionTest(base.TestCase):

    def test_fields_match_the_recorded_fingerprints(self):
        checker = ovo_fixture.ObjectVersionChecker(
            objects_base.IronicStepsObjectRegistry.obj_classes())
        expected, actual = checker.test_hashes(EXPECTED_FINGERPRINTS)
        self.assertEqual(expected, actual,
                         'Fields or methods of an object changed: bump its '
                         'VERSION and record the new fingerprint here.')

    def test_version_1_0_is_sent_without_deploy_step(self):
        node = new_node(self.context, deploy_step=DEPLOY_STEP)
        primitive = node.obj_to_primitive(target_version='1.0')
        self.assertEqual('1.0', primitive['ironic_steps_object.version'])
        self.assertNotIn('deploy_step', data(primitive))
        self.assertEqual(node.uuid, data(primitive)['uuid'])

    def test_version_1_1_is_sent_with_deploy_step(self):
        node = new_node(self.context, deploy_step=DEPLOY_STEP)
        primitive = node.obj_to_primitive(target_version='1.1')
        self.assertEqual('1.1', primitive['ironic_steps_object.version'])
        self.assertEqual(DEPLOY_STEP, data(primitive)['deploy_step'])

    def test_a_primitive_comes_back_as_the_same_node(self):
        node = new_node(self.context, deploy_step=DEPLOY_STEP, name='n1')
        back = objects.Node.obj_from_primitive(node.obj_to_primitive())
        self.assertEqual(node.obj_to_primitive(), back.obj_to_primitive())


@ddt.ddt
class ReadWriteTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = new_node(self.context, name='node-1', extra={'rack': 4})

    @ddt.data('uuid', 'name', 'id')
    def test_a_node_is_found_by_any_identifier(self, key):
        found = objects.Node.get(self.context, getattr(self.node, key))
        self.assertEqual(self.node.obj_to_primitive(),
                         found.obj_to_primitive())
        self.assertEqual({}, found.obj_get_changes())

    def test_a_created_node_gets_its_database_fields(self):
        self.assertTrue(uuidutils.is_uuid_like(self.node.uuid))
        self.assertIsInstance(self.node.id, int)
        self.assertIsNotNone(self.node.created_at)
        self.assertIsNone(self.node.updated_at)
        self.assertFalse(self.node.maintenance)
        self.assertEqual(states.ENROLL, self.node.provision_state)
        self.assertEqual({'rack': 4}, self.node.extra)

    @ddt.data(MISSING_UUID, 'no-such-node', '424242')
    def test_a_missing_node_is_not_found(self, ident):
        exc = self.assertRaises(exception.NodeNotFound, objects.Node.get,
                                self.context, ident)
        self.assertIn(ident, str(exc))

    def test_a_loaded_node_equals_one_built_through_the_setters(self):
        # Loading skips field coercion for speed; it must not show.
        node = self.create_node(name='n-1', driver_info={'a': [1]},
                                deploy_step={'step': 'x'})
        node.save()
        loaded = objects.Node.get(self.context, node.uuid)
        db_node = dbapi.get_instance().get_node_by_uuid(node.uuid)
        coerced = objects.Node(self.context)
        for field in objects.Node.COLUMN_FIELDS:
            setattr(coerced, field, getattr(db_node, field))
        coerced.obj_reset_changes()
        self.assertEqual(coerced.obj_to_primitive(), loaded.obj_to_primitive())
        self.assertEqual(set(), loaded.obj_what_changed())
        loaded.extra = {'b': 2}
        self.assertEqual({'extra'}, loaded.obj_what_changed())

    def test_save_writes_only_the_changed_fields(self):
        # Given two copies of one node, each changing a different field
        first = objects.Node.get(self.context, self.node.uuid)
        second = objects.Node.get(self.context, self.node.uuid)
        first.extra = {'rack': 5}
        second.last_error = 'boom'
        # When both save
        first.save()
        second.save()
        # Then neither undid the other's change
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual({'rack': 5}, stored.extra)
        self.assertEqual('boom', stored.last_error)
        self.assertEqual({}, second.obj_get_changes())

    def test_save_bumps_updated_at(self):
        timeutils.set_time_override(datetime.datetime(2030, 1, 2, 3, 4, 5))
        self.addCleanup(timeutils.clear_time_override)
        self.node.extra = {'rack': 5}
        self.node.save()
        self.assertEqual(datetime.datetime(2030, 1, 2, 3, 4, 5),
                         self.stored_updated_at())
        self.assertEqual(self.stored_updated_at(),
                         timeutils.normalize_time(self.node.updated_at))
        timeutils.advance_time_seconds(30)
        self.node.last_error = 'boom'
        self.node.save()
        self.assertEqual(datetime.datetime(2030, 1, 2, 3, 4, 35),
                         self.stored_updated_at())

    def test_save_without_changes_writes_nothing(self):
        self.node.save()
        self.assertIsNone(self.stored_updated_at())

    def stored_updated_at(self):
        updated_at = objects.Node.get(self.context, self.node.uuid).updated_at
        return updated_at and timeutils.normalize_time(updated_at)

    def test_save_refuses_to_change_the_reservation(self):
        self.node.reservation = 'sneaky-conductor'
        self.node.extra = {'rack': 9}
        exc = self.assertRaises(exception.Invalid, self.node.save)
        self.assertIn('reserve() and release()', str(exc))
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertIsNone(stored.reservation)
        self.assertEqual({'rack': 4}, stored.extra)

    def test_save_can_drop_the_lock_of_its_holder_in_the_same_write(self):
        objects.Node.reserve(self.context, 'conductor-a', self.node.id)
        self.node.extra = {'rack': 5}
        self.assertTrue(self.node.save(release='conductor-a'))
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertIsNone(stored.reservation)
        self.assertEqual({'rack': 5}, stored.extra)
        self.assertIsNone(self.node.reservation)

    def test_save_keeps_a_lock_held_by_someone_else(self):
        objects.Node.reserve(self.context, 'conductor-b', self.node.id)
        self.node.extra = {'rack': 6}
        self.assertFalse(self.node.save(release='conductor-a'))
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual('conductor-b', stored.reservation)
        self.assertEqual({'rack': 6}, stored.extra)

    def test_save_without_changes_still_drops_the_lock(self):
        objects.Node.reserve(self.context, 'conductor-a', self.node.id)
        self.assertTrue(self.node.save(release='conductor-a'))
        self.assertIsNone(
            objects.Node.get(self.context, self.node.uuid).reservation)

    def test_reserving_a_locked_node_names_the_holder(self):
        objects.Node.reserve(self.context, 'conductor-a', self.node.id)
        exc = self.assertRaises(exception.NodeLocked, objects.Node.reserve,
                                self.context, 'conductor-b', self.node.uuid)
        self.assertIn('conductor-a', str(exc))
        self.assertIn(self.node.uuid, str(exc))

    def test_reserving_returns_the_node_as_stored_and_locked(self):
        self.node.extra = {'rack': 7}
        self.node.save()
        locked = objects.Node.reserve(self.context, 'conductor-a',
                                      self.node.uuid)
        self.assertEqual('conductor-a', locked.reservation)
        self.assertEqual({'rack': 7}, locked.extra)
        self.assertEqual(self.node.id, locked.id)
        self.assertEqual(set(), locked.obj_what_changed())

    def test_of_two_racing_conductors_exactly_one_gets_the_lock(self):
        barrier = threading.Barrier(2)
        results = {}

        def reserve(host):
            barrier.wait()
            try:
                objects.Node.reserve(self.context, host, self.node.id)
                results[host] = 'locked'
            except exception.NodeLocked as exc:
                results[host] = str(exc)

        threads = [threading.Thread(target=reserve, args=(host,))
                   for host in ('conductor-1', 'conductor-2')]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        winners = [host for host, result in results.items()
                   if result == 'locked']
        self.assertEqual(1, len(winners))
        loser = ({'conductor-1', 'conductor-2'} - set(winners)).pop()
        self.assertIn(winners[0], results[loser])

    def test_a_second_node_with_the_same_name_is_refused(self):
        exc = self.assertRaises(exception.DuplicateName, new_node,
                                self.context, name='node-1')
        self.assertIn('node-1', str(exc))
        self.assertEqual(1, len(objects.Node.list(self.context)))

    def test_renaming_a_node_to_a_taken_name_is_refused(self):
        other = new_node(self.context, name='node-2')
        other.name = 'node-1'
        exc = self.assertRaises(exception.DuplicateName, other.save)
        self.assertIn('node-1', str(exc))

    def test_a_second_node_with_the_same_uuid_is_refused(self):
        exc = self.assertRaises(exception.NodeAlreadyExists, new_node,
                                self.context, uuid=self.node.uuid)
        self.assertIn(self.node.uuid, str(exc))

    def test_a_destroyed_node_is_gone(self):
        self.node.destroy()
        self.assertRaises(exception.NodeNotFound, objects.Node.get,
                          self.context, self.node.uuid)

    def test_names_differing_only_in_case_are_two_nodes(self):
        # On every database (MySQL's usual collations would make them one).
        other = new_node(self.context, name='Node-1')
        self.assertEqual(other.uuid,
                         objects.Node.get(self.context, 'Node-1').uuid)
        self.assertEqual(self.node.uuid,
                         objects.Node.get(self.context, 'node-1').uuid)
        self.assertRaises(exception.NodeNotFound, objects.Node.get,
                          self.context, 'NODE-1')

    def test_times_are_read_back_to_the_microsecond(self):
        when = datetime.datetime(2030, 1, 2, 3, 4, 5, 678901)
        timeutils.set_time_override(when)
        self.addCleanup(timeutils.clear_time_override)
        self.node.provision_updated_at = when
        self.node.save()
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual(when, timeutils.normalize_time(stored.updated_at))
        self.assertEqual(stored.updated_at, self.node.updated_at)
        self.assertEqual(when, timeutils.normalize_time(
            stored.provision_updated_at))

    def test_text_and_json_longer_than_64_kib_are_stored_whole(self):
        long_text = 'x' * 70000
        self.node.last_error = long_text
        self.node.extra = {'long': long_text}
        self.node.save()
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual(long_text, stored.last_error)
        self.assertEqual({'long': long_text}, stored.extra)

    def test_any_unicode_text_is_stored(self):
        # Beyond the Basic Multilingual Plane: four bytes in UTF-8.
        self.node.description = 'r\u00e9serv\u00e9 \U0001F5A5'
        self.node.owner = '\U0001F680 team'
        self.node.save()
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertEqual('r\u00e9serv\u00e9 \U0001F5A5', stored.description)
        self.assertEqual('\U0001F680 team', stored.owner)


@ddt.ddt
class ListTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.nodes = {}
        for name, rc, state in (('c', 'gpu', states.AVAILABLE),
                                ('a', None, states.ACTIVE),
                                (None, 'gpu', states.AVAILABLE),
                                ('b', None, states.AVAILABLE),
                                (None, None, states.ENROLL)):
            node = new_node(self.context, name=name, resource_class=rc)
            if state != states.ENROLL:
                node.provision_state = state
                node.save()
            self.nodes[node.id] = node

    def names(self, nodes):
        return [node.name for node in nodes]

    def test_nodes_are_listed_by_id_by_default(self):
        self.assertEqual(sorted(self.nodes),
                         [node.id for node in objects.Node.list(
                             self.context)])

    @ddt.data(
        ({'provision_state': states.AVAILABLE}, ['c', None, 'b']),
        ({'resource_class': 'gpu'}, ['c', None]),
        ({'provision_state': states.AVAILABLE, 'resource_class': 'gpu'},
         ['c', None]),
        ({'driver': 'other-hardware'}, []),
    )
    @ddt.unpack
    def test_filters_select_matching_nodes(self, filters, names):
        self.assertEqual(names, self.names(objects.Node.list(
            self.context, filters=filters)))

    def test_an_unknown_filter_is_refused_listing_the_filters(self):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                objects.Node.list, self.context,
                                filters={'colour': 'red'})
        self.assertIn('Cannot filter nodes on colour', str(exc))
        self.assertIn('provision_state', str(exc))

    def test_an_unknown_sort_key_is_refused_listing_the_keys(self):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                objects.Node.list, self.context,
                                sort_key='extra')
        self.assertIn('Cannot sort on extra', str(exc))
        self.assertIn('provision_state', str(exc))

    def test_list_fields_reads_only_the_fields_asked_for(self):
        rows = objects.Node.list_fields(
            self.context, ('uuid', 'provision_state'), sort_key='name')
        self.assertEqual({'id', 'name', 'uuid', 'provision_state'},
                         set(rows[0]._fields))
        self.assertEqual([node.uuid for node in objects.Node.list(
            self.context, sort_key='name')], [row.uuid for row in rows])

    def test_sort_and_limit(self):
        named = objects.Node.list(self.context, sort_key='name',
                                  sort_dir='desc', limit=3)
        self.assertEqual(['c', 'b', 'a'], self.names(named))

    def test_a_page_starts_after_its_marker(self):
        first = objects.Node.list(self.context, limit=2)
        second = objects.Node.list(self.context, limit=2, marker=first[-1])
        ids = sorted(self.nodes)
        self.assertEqual(ids[:2], [node.id for node in first])
        self.assertEqual(ids[2:4], [node.id for node in second])

    @ddt.data(('id', 'asc'), ('id', 'desc'), ('provision_state', 'asc'),
              ('name', 'asc'), ('name', 'desc'), ('resource_class', 'asc'))
    @ddt.unpack
    def test_paging_visits_every_node_once(self, sort_key, sort_dir):
        # Whatever the sort, including on a column where some nodes have
        # no value, walking the pages lists every node exactly once.
        seen, marker = [], None
        for _page in range(len(self.nodes) + 1):
            page = objects.Node.list(self.context, limit=2, marker=marker,
                                     sort_key=sort_key, sort_dir=sort_dir)
            if not page:
                break
            seen.extend(node.id for node in page)
            marker = page[-1]
        self.assertEqual(sorted(self.nodes), sorted(seen))


class TraitsTest(base.TestCase):
    """A node's traits: read on first use, written one change at a time."""

    def setUp(self):
        super().setUp()
        self.node = new_node(self.context, name='node-1')

    def test_traits_are_read_on_first_use_only(self):
        self.node.set_traits(['CUSTOM_B', 'CUSTOM_A'])
        with base.SQLStatements() as recorded:
            node = objects.Node.get(self.context, self.node.uuid)
            reserved = objects.Node.reserve(self.context, 'c-1', node.id)
        # Without UPDATE ... RETURNING (MySQL, MariaDB), the lock reads the
        # node back in its transaction.
        reads_back = ([] if sqlalchemy_api.get_engine().dialect.update_returning
                      else ['SELECT'])
        self.assertEqual(['SELECT', 'UPDATE'] + reads_back, recorded.verbs())
        with base.SQLStatements() as recorded:
            self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], reserved.traits)
            self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], reserved.traits)
        self.assertEqual(['SELECT'], recorded.verbs())
        self.assertEqual(set(), reserved.obj_what_changed())
        reserved.extra = {'a': 1}
        reserved.save(release='c-1')

    def test_a_node_not_yet_created_has_no_traits(self):
        self.assertEqual([], objects.Node(self.context).traits)

    def test_set_add_and_remove_write_and_answer_what_is_stored(self):
        self.node.set_traits(['CUSTOM_B', 'CUSTOM_A', 'CUSTOM_B'])
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], self.node.traits)
        self.node.add_traits(['CUSTOM_C', 'CUSTOM_A'])
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'],
                         self.node.traits)
        self.node.remove_traits(['CUSTOM_B'])
        self.assertEqual(['CUSTOM_A', 'CUSTOM_C'], self.node.traits)
        self.assertEqual(['CUSTOM_A', 'CUSTOM_C'], objects.Node.get(
            self.context, self.node.uuid).traits)
        self.node.remove_traits()
        self.assertEqual([], objects.Node.get(self.context,
                                              self.node.uuid).traits)

    def test_removing_a_missing_trait_removes_nothing(self):
        self.node.set_traits(['CUSTOM_A', 'CUSTOM_B'])
        exc = self.assertRaises(exception.NodeTraitNotFound,
                                self.node.remove_traits,
                                ['CUSTOM_A', 'CUSTOM_X'])
        self.assertIn(self.node.uuid, str(exc))
        self.assertIn('CUSTOM_X', str(exc))
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], objects.Node.get(
            self.context, self.node.uuid).traits)

    def test_more_than_50_traits_are_refused_and_nothing_written(self):
        fifty = ['CUSTOM_%02d' % i for i in range(50)]
        self.node.set_traits(fifty[:49])
        exc = self.assertRaises(exception.TooManyTraits,
                                self.node.add_traits, fifty[49:] + ['CUSTOM_X'])
        self.assertIn(self.node.uuid, str(exc))
        self.assertRaises(exception.TooManyTraits, self.node.set_traits,
                          fifty + ['CUSTOM_X'])
        self.assertEqual(fifty[:49], objects.Node.get(
            self.context, self.node.uuid).traits)
        self.node.add_traits(fifty[49:])
        self.assertEqual(50, len(self.node.traits))

    def test_traits_are_not_saved_with_the_node(self):
        self.node.traits = ['CUSTOM_A']
        self.assertRaises(exception.Invalid, self.node.save)
        fresh = objects.Node(self.context, driver='fake-hardware',
                             provision_state=states.ENROLL,
                             traits=['CUSTOM_A'])
        self.assertRaises(exception.Invalid, fresh.create)

    def test_a_refreshed_node_reads_its_traits_again(self):
        self.assertEqual([], self.node.traits)
        objects.Node.get(self.context, self.node.uuid).set_traits(
            ['CUSTOM_A'])
        self.node.refresh()
        self.assertEqual(['CUSTOM_A'], self.node.traits)

    def test_the_most_and_longest_traits_a_node_can_have_are_read_whole(
            self):
        # 50 of 255 characters: read as one aggregated string, which MySQL
        # would cut at 1,024 bytes by default.
        traits = ['CUSTOM_%02d_%s' % (i, 'T' * 245) for i in range(50)]
        self.node.set_traits(traits)
        row = objects.Node.get_row(self.context, 'node-1', with_traits=True)
        self.assertEqual(sorted(traits), row.traits)

    def test_conductors_replace_the_traits_of_many_nodes_at_once(self):
        # On MySQL under REPEATABLE READ, such replacements deadlocked on
        # the index gaps between the nodes.
        nodes = [new_node(self.context, name='parallel-%d' % i)
                 for i in range(16)]
        errors = []
        for traits in (['CUSTOM_A', 'CUSTOM_B'], ['CUSTOM_C'],
                       ['CUSTOM_A', 'CUSTOM_D']):
            barrier = threading.Barrier(len(nodes))

            def replace(node, traits=traits, barrier=barrier):
                barrier.wait()
                try:
                    node.set_traits(traits)
                except Exception as exc:   # collected, asserted below
                    errors.append(exc)

            threads = [threading.Thread(target=replace, args=(node,))
                       for node in nodes]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        self.assertEqual([], errors)
        self.assertEqual([['CUSTOM_A', 'CUSTOM_D']] * len(nodes), [
            objects.Node.get(self.context, node.uuid).traits
            for node in nodes])

    def test_deleting_a_node_deletes_its_traits(self):
        self.node.set_traits(['CUSTOM_A'])
        other = new_node(self.context, name='node-2')
        other.set_traits(['CUSTOM_B'])
        self.node.destroy()
        self.assertEqual([], dbapi.get_instance().get_node_traits(
            self.node.id))
        self.assertEqual(['CUSTOM_B'], objects.Node.get(
            self.context, 'node-2').traits)

    def test_rows_carry_traits_only_when_asked(self):
        self.node.set_traits(['CUSTOM_B', 'CUSTOM_A'])
        new_node(self.context, name='bare')
        row = objects.Node.get_row(self.context, 'node-1', with_traits=True)
        self.assertEqual(['CUSTOM_A', 'CUSTOM_B'], row.traits)
        self.assertNotIn('traits', objects.Node.get_row(
            self.context, 'node-1')._fields)
        rows = objects.Node.list_fields(self.context, ('name', 'traits'),
                                        sort_key='name')
        self.assertEqual([('bare', []), ('node-1', ['CUSTOM_A', 'CUSTOM_B'])],
                         [(row.name, row.traits) for row in rows])

    def test_version_1_1_is_sent_without_traits(self):
        self.node.set_traits(['CUSTOM_A'])
        primitive = self.node.obj_to_primitive(target_version='1.1')
        self.assertNotIn('traits', data(primitive))
        self.assertEqual(['CUSTOM_A'], data(
            self.node.obj_to_primitive())['traits'])

    def test_a_node_received_without_traits_reads_them_when_used(self):
        self.node.set_traits(['CUSTOM_A'])
        serializer = objects_base.IronicStepsObjectSerializer()
        primitive = self.node.obj_to_primitive(target_version='1.1')
        received = serializer.deserialize_entity(self.context, primitive)
        self.assertEqual(objects.Node.VERSION, received.VERSION)
        self.assertFalse(received.obj_attr_is_set('traits'))
        self.assertEqual(['CUSTOM_A'], received.traits)
        self.assertEqual(set(), received.obj_what_changed())

    def test_pinned_to_a_release_without_traits_none_are_written(self):
        self.node.set_traits(['CUSTOM_A'])
        self.config(pin_release_version='0.2')
        self.assertIn('traits', objects.Node.fields_unknown_under_pin())
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                self.node.add_traits, ['CUSTOM_B'])
        self.assertIn('0.3', str(exc))
        self.assertRaises(exception.NotInPinnedRelease,
                          self.node.remove_traits)
        self.config(pin_release_version=None)
        self.assertEqual(frozenset(), objects.Node.fields_unknown_under_pin())
        self.assertEqual(['CUSTOM_A'], objects.Node.get(
            self.context, self.node.uuid).traits)
