"""The BIOSSetting object: how a node's cached BIOS settings are read and
replaced, against a real database.

Its fingerprint is recorded with the others in test_node.py.
"""

import ddt
from oslo_db import exception as db_exc
import sqlalchemy as sa

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import objects
from tests import base

BIOSSetting = objects.BIOSSetting


class _FailingStatement(Exception):
    pass


@ddt.ddt
class BIOSSettingTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def stored(self, node=None):
        return {s.name: s.value for s in BIOSSetting.list_by_node(
            self.context, (node or self.node).id)}

    def replace(self, settings, node=None):
        return BIOSSetting.replace_all(self.context, (node or self.node).id,
                                       settings)

    def test_a_node_starts_with_no_settings(self):
        self.assertEqual([], BIOSSetting.list_by_node(self.context,
                                                      self.node.id))

    def test_replace_all_stores_the_settings_and_returns_them_by_name(self):
        replaced = self.replace({'ProcTurbo': 'Enabled', 'BootMode': 'Uefi',
                                 'AssetTag': None})
        self.assertEqual([('AssetTag', None), ('BootMode', 'Uefi'),
                          ('ProcTurbo', 'Enabled')],
                         [(s.name, s.value) for s in replaced])
        listed = BIOSSetting.list_by_node(self.context, self.node.id)
        self.assertEqual([s.obj_to_primitive() for s in replaced],
                         [s.obj_to_primitive() for s in listed])
        for setting in listed:
            self.assertEqual(self.node.id, setting.node_id)
            self.assertIsNotNone(setting.created_at)
            self.assertIsNone(setting.updated_at)
            self.assertEqual({}, setting.obj_get_changes())

    def test_replace_all_creates_updates_and_deletes_so_the_map_is_stored(
            self):
        first = {s.name: s for s in self.replace(
            {'Kept': 'same', 'Changed': 'old', 'Gone': 'x'})}
        # When the next reading has a new value, a new setting and lacks one
        now = {s.name: s for s in self.replace(
            {'Kept': 'same', 'Changed': 'new', 'New': 'y'})}
        # Then exactly that map is stored
        self.assertEqual({'Kept': 'same', 'Changed': 'new', 'New': 'y'},
                         self.stored())
        # and only the changed value has a new updated_at
        self.assertEqual(first['Kept'].obj_to_primitive(),
                         now['Kept'].obj_to_primitive())
        self.assertEqual(first['Changed'].created_at,
                         now['Changed'].created_at)
        self.assertIsNotNone(now['Changed'].updated_at)
        self.assertIsNone(now['New'].updated_at)
        self.assertGreaterEqual(now['New'].created_at,
                                first['Kept'].created_at)

    def test_replacing_with_the_same_values_writes_nothing(self):
        settings = {'A': '1', 'B': None}
        before = [s.obj_to_primitive() for s in self.replace(settings)]
        with base.SQLStatements() as recorded:
            after = [s.obj_to_primitive() for s in self.replace(settings)]
        self.assertEqual(before, after)
        self.assertEqual([], [verb for verb in recorded.verbs()
                              if verb in ('INSERT', 'UPDATE', 'DELETE')])

    def test_replacing_with_an_empty_map_clears_the_node(self):
        self.replace({'A': '1', 'B': '2'})
        self.assertEqual([], self.replace({}))
        self.assertEqual({}, self.stored())

    def test_a_replacement_is_one_transaction_all_or_nothing(self):
        self.replace({'Kept': 'same', 'Changed': 'old', 'Gone': 'x'})
        # Given a database that fails the replacement's last write (the
        # insert of the new setting), after its delete and update ran

        def fail_inserts(conn, cursor, statement, *args):
            if statement.lstrip().upper().startswith('INSERT'):
                raise _FailingStatement(statement)

        with base.StatementHook(fail_inserts), \
                base.SQLStatements() as recorded:
            # (oslo.db wraps what the database driver raises)
            self.assertRaises(db_exc.DBError, self.replace,
                              {'Kept': 'same', 'Changed': 'new',
                               'New': 'y'})
        self.assertIn('DELETE', recorded.verbs())
        self.assertIn('UPDATE', recorded.verbs())
        # Then nothing of it was kept
        self.assertEqual({'Kept': 'same', 'Changed': 'old', 'Gone': 'x'},
                         self.stored())

    @ddt.data((1, '1'), (True, 'True'), (2.5, '2.5'), ('', ''),
              (None, None))
    @ddt.unpack
    def test_numbers_and_booleans_are_stored_as_their_strings(self, value,
                                                              stored):
        self.replace({'Setting': value})
        self.assertEqual({'Setting': stored}, self.stored())

    @ddt.data(
        # (settings, words the refusal must say)
        ([{'name': 'A', 'value': '1'}], ['map', 'list']),
        ({'': 'x'}, ['name', '1 to 255']),
        ({'N' * 256: 'x'}, ['name', '1 to 255']),
        ({7: 'x'}, ['name', '7']),
        ({'Password': {'secret': 'hunter2'}}, ['Password', 'dict']),
        ({'Order': ['a', 'b']}, ['Order', 'list']),
    )
    @ddt.unpack
    def test_a_malformed_map_is_refused_and_nothing_written(self, settings,
                                                            words):
        self.replace({'Kept': 'yes'})
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.replace, settings)
        for word in words:
            self.assertIn(word, str(exc))
        self.assertNotIn('hunter2', str(exc))
        self.assertEqual({'Kept': 'yes'}, self.stored())

    def test_one_setting_is_found_by_name_exactly(self):
        self.replace({'BootMode': 'Uefi', 'Other': None})
        found = BIOSSetting.get(self.context, self.node.id, 'BootMode')
        self.assertEqual(('BootMode', 'Uefi', self.node.id),
                         (found.name, found.value, found.node_id))
        exc = self.assertRaises(exception.BIOSSettingNotFound,
                                BIOSSetting.get, self.context, self.node.id,
                                'bootmode')
        self.assertIn("'bootmode'", str(exc))

    def test_the_settings_of_nodes_are_their_own(self):
        other = self.create_node(name='node-2')
        self.replace({'A': 'mine', 'B': 'mine'})
        self.replace({'A': 'theirs'}, node=other)
        self.assertEqual({'A': 'mine', 'B': 'mine'}, self.stored())
        self.assertEqual({'A': 'theirs'}, self.stored(other))
        self.assertRaises(exception.BIOSSettingNotFound, BIOSSetting.get,
                          self.context, other.id, 'B')

    def test_a_deleted_node_takes_its_settings_with_it(self):
        other = self.create_node(name='node-2')
        self.replace({'A': '1', 'B': '2'})
        self.replace({'A': 'kept'}, node=other)
        self.node.destroy()
        with sqlalchemy_api.get_engine().connect() as connection:
            rows = connection.execute(sa.text(
                'SELECT node_id, name, value FROM bios_settings')).all()
        self.assertEqual([(other.id, 'A', 'kept')], [tuple(r) for r in rows])

    def test_settings_of_a_node_that_does_not_exist_are_refused(self):
        self.node.destroy()
        self.assertRaises(exception.NodeNotFound, self.replace, {'A': '1'})
        self.assertEqual({}, self.stored())

    def test_pinned_to_a_release_without_them_nothing_is_written(self):
        self.replace({'A': '1'})
        self.config(pin_release_version='0.3')
        exc = self.assertRaises(exception.NotInPinnedRelease, self.replace,
                                {'A': '2', 'B': '3'})
        self.assertIn('BIOS settings', str(exc))
        self.assertIn('0.4', str(exc))
        self.assertIn('0.3', str(exc))
        # Reading is still possible: the cache is only not written.
        self.assertEqual({'A': '1'}, self.stored())
        self.config(pin_release_version=None)
        self.replace({'A': '2'})
        self.assertEqual({'A': '2'}, self.stored())


FACTS = {'attribute_type': 'Enumeration', 'allowable_values': ['Uefi', 'Bios'],
         'lower_bound': None, 'max_length': None, 'min_length': None,
         'read_only': False, 'reset_required': True, 'unique': False,
         'upper_bound': None}
NO_FACTS = dict.fromkeys(FACTS)


def facts_of(setting):
    return {field: setting[field] for field in FACTS}


@ddt.ddt
class BIOSRegistryTest(base.TestCase):
    """A setting may carry what the BMC's attribute registry says of it
    (BIOSSetting 1.1, API 1.74)."""

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def replace(self, settings):
        return {s.name: s for s in BIOSSetting.replace_all(
            self.context, self.node.id, settings)}

    def listed(self):
        return {s.name: s for s in BIOSSetting.list_by_node(self.context,
                                                            self.node.id)}

    def test_registry_facts_are_stored_with_the_value(self):
        self.replace({'BootMode': dict(FACTS, value='Uefi'),
                      'NumCores': {'value': 16, 'attribute_type': 'Integer',
                                   'lower_bound': 1, 'upper_bound': 2 ** 40,
                                   'read_only': True}})
        listed = self.listed()
        self.assertEqual('Uefi', listed['BootMode'].value)
        self.assertEqual(FACTS, facts_of(listed['BootMode']))
        # Facts left out are unknown; numbers stay numbers.
        self.assertEqual(dict(NO_FACTS, attribute_type='Integer',
                              lower_bound=1, upper_bound=2 ** 40,
                              read_only=True),
                         facts_of(listed['NumCores']))
        self.assertEqual('16', listed['NumCores'].value)
        self.assertEqual(facts_of(listed['BootMode']), facts_of(
            BIOSSetting.get(self.context, self.node.id, 'BootMode')))

    def test_a_plain_value_has_no_known_facts(self):
        self.replace({'BootMode': dict(FACTS, value='Uefi')})
        # A reading without a registry replaces what was known.
        self.replace({'BootMode': 'Uefi', 'Other': None})
        listed = self.listed()
        self.assertEqual(NO_FACTS, facts_of(listed['BootMode']))
        self.assertEqual(NO_FACTS, facts_of(listed['Other']))

    def test_changed_facts_are_written_without_moving_updated_at(self):
        first = self.replace({'BootMode': dict(FACTS, value='Uefi')})
        changed = dict(FACTS, value='Uefi', allowable_values=['Uefi'])
        now = self.replace({'BootMode': changed})
        self.assertEqual(['Uefi'], now['BootMode'].allowable_values)
        self.assertIsNone(now['BootMode'].updated_at)
        self.assertEqual(first['BootMode'].created_at,
                         now['BootMode'].created_at)
        # A new value moves it, whatever the facts do.
        moved = self.replace({'BootMode': dict(changed, value='Bios')})
        self.assertIsNotNone(moved['BootMode'].updated_at)

    def test_the_same_facts_again_write_nothing(self):
        settings = {'BootMode': dict(FACTS, value='Uefi'),
                    'AssetTag': {'value': '', 'attribute_type': 'String',
                                 'min_length': 0, 'max_length': 32}}
        self.replace(settings)
        with base.SQLStatements() as recorded:
            self.replace(settings)
        self.assertEqual([], [verb for verb in recorded.verbs()
                              if verb in ('INSERT', 'UPDATE', 'DELETE')])

    @ddt.data(
        # (setting, words the refusal must say)
        ({'attribute_type': 'Enumeration'}, ['BootMode', 'without a value',
                                             'attribute_type']),
        ({'value': 'x', 'colour': 'red'}, ['BootMode', 'colour',
                                           'allowable_values']),
        ({'value': 'x', 'allowable_values': 'Uefi,Bios'},
         ['allowable_values', 'BootMode', 'a list of strings', 'str']),
        ({'value': 'x', 'allowable_values': ['Uefi', 1]},
         ['allowable_values', 'a list of strings']),
        ({'value': 'x', 'lower_bound': True}, ['lower_bound', 'integer',
                                               'bool']),
        ({'value': 'x', 'upper_bound': 2 ** 63}, ['upper_bound', '64-bit']),
        ({'value': 'x', 'max_length': -1}, ['max_length', 'from 0']),
        ({'value': 'x', 'min_length': 1.5}, ['min_length', 'float']),
        ({'value': 'x', 'read_only': 'yes'}, ['read_only', 'true or false']),
        ({'value': 'x', 'attribute_type': 'T' * 256}, ['attribute_type',
                                                       '255']),
        ({'value': {'secret': 'hunter2'}}, ['BootMode', 'dict']),
    )
    @ddt.unpack
    def test_malformed_facts_are_refused_naming_them_and_nothing_written(
            self, setting, words):
        self.replace({'Kept': dict(FACTS, value='yes')})
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.replace, {'BootMode': setting})
        for word in words:
            self.assertIn(word, str(exc))
        self.assertNotIn('hunter2', str(exc))
        self.assertEqual(['Kept'], list(self.listed()))
        self.assertEqual(FACTS, facts_of(self.listed()['Kept']))

    def test_pinned_to_0_9_values_are_written_and_facts_are_not(self):
        # Given a setting whose facts are known, cached before the pin
        self.replace({'BootMode': dict(FACTS, value='Uefi')})
        # When pinned to 0.9 (BIOSSetting 1.0), a reading with other facts
        # and a new setting with facts is cached
        self.config(pin_release_version='0.9')
        self.replace({'BootMode': dict(FACTS, value='Bios',
                                       allowable_values=['Bios']),
                      'NumCores': {'value': '8', 'read_only': True}})
        # Then the values are written, no fact is: the old setting's are
        # as they were, the new one's unknown
        self.config(pin_release_version=None)
        listed = self.listed()
        self.assertEqual(('Bios', '8'), (listed['BootMode'].value,
                                         listed['NumCores'].value))
        self.assertEqual(FACTS, facts_of(listed['BootMode']))
        self.assertEqual(NO_FACTS, facts_of(listed['NumCores']))
        # and unpinned, they are written again.
        self.replace({'NumCores': {'value': '8', 'read_only': True}})
        self.assertTrue(self.listed()['NumCores'].read_only)

    def test_the_facts_are_fields_of_1_1(self):
        setting = self.replace({'BootMode': dict(FACTS, value='Uefi')})[
            'BootMode']
        self.assertEqual(set(FACTS), set(BIOSSetting.fields_unknown_at(
            '1.0')))
        primitive = setting.obj_to_primitive(target_version='1.0')
        self.assertEqual(set(), set(FACTS) & set(
            primitive['ironic_steps_object.data']))
