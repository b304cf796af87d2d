"""The door from drivers to the BIOS settings cache (drivers/bios.py)."""

import fixtures

from ironic_steps.common import exception
from ironic_steps.conductor import task_manager
from ironic_steps.drivers import bios
from ironic_steps import objects
from tests import base


class _CacheTestCase(base.TestCase):
    """A node, and its cache written and read as a driver does."""

    def setUp(self):
        super().setUp()
        self.node = self.create_node()

    def cache(self, settings):
        with task_manager.acquire(self.context, self.node.uuid) as task:
            return bios.cache_settings(task, settings)

    def cached(self):
        with task_manager.acquire(self.context, self.node.uuid,
                                  shared=True) as task:
            return bios.cached_settings(task)


class CacheSettingsTest(_CacheTestCase):

    def test_what_a_driver_caches_is_what_the_node_then_has(self):
        self.assertEqual({}, self.cached())
        self.assertTrue(self.cache({'BootMode': 'Uefi', 'NumCores': 8}))
        self.assertEqual({'BootMode': 'Uefi', 'NumCores': '8'},
                         self.cached())
        self.assertTrue(self.cache({'BootMode': 'Bios'}))
        self.assertEqual({'BootMode': 'Bios'}, self.cached())

    def test_a_malformed_map_is_refused(self):
        self.assertRaises(exception.InvalidParameterValue, self.cache,
                          [{'name': 'BootMode', 'value': 'Uefi'}])
        self.assertEqual({}, self.cached())

    def test_pinned_to_a_release_without_the_cache_nothing_is_written(self):
        self.cache({'BootMode': 'Uefi'})
        self.config(pin_release_version='0.3')
        self.assertFalse(self.cache({'BootMode': 'Bios'}))
        self.assertEqual({'BootMode': 'Uefi'}, self.cached())
        self.assertEqual(['BootMode'], [s.name for s in
                                        objects.BIOSSetting.list_by_node(
                                            self.context, self.node.id)])


class WithRegistryTest(base.TestCase):
    """bios.with_registry: values and a BMC's registry as a settings map."""

    def test_each_value_gets_the_facts_its_name_has(self):
        settings = bios.with_registry(
            {'BootMode': 'Uefi', 'Unlisted': '1'},
            {'BootMode': {'attribute_type': 'Enumeration',
                          'allowable_values': ('Uefi', 'Bios')},
             'NotOnThisSystem': {'read_only': True}})
        self.assertEqual(
            {'BootMode': {'value': 'Uefi', 'attribute_type': 'Enumeration',
                          'allowable_values': ['Uefi', 'Bios']},
             'Unlisted': {'value': '1'}},
            {name: {k: v for k, v in setting.items() if v is not None}
             for name, setting in settings.items()})

    def test_facts_of_the_wrong_shape_are_left_unknown_and_logged(self):
        logged = self.useFixture(fixtures.FakeLogger(level='WARNING'))
        settings = bios.with_registry(
            {'PowerOnDelay': 0},
            {'PowerOnDelay': {'attribute_type': 'Integer',
                              'lower_bound': '0', 'upper_bound': 120,
                              'read_only': 'no'}}, 'node-uuid-1')
        self.assertEqual({'value': 0, 'attribute_type': 'Integer',
                          'upper_bound': 120},
                         {k: v for k, v in settings['PowerOnDelay'].items()
                          if v is not None})
        self.assertIn('node-uuid-1', logged.output)
        self.assertIn('PowerOnDelay', logged.output)
        self.assertIn('lower_bound, read_only', logged.output)


class CacheRegistryTest(_CacheTestCase):

    FACTS = {'attribute_type': 'Enumeration', 'allowable_values': ['A', 'B'],
             'reset_required': True}

    def stored_facts(self):
        [setting] = objects.BIOSSetting.list_by_node(self.context,
                                                     self.node.id)
        return {field: setting[field] for field in self.FACTS}

    def test_registry_facts_are_cached_with_the_values(self):
        self.assertTrue(self.cache(bios.with_registry(
            {'Mode': 'A'}, {'Mode': self.FACTS})))
        self.assertEqual({'Mode': 'A'}, self.cached())
        self.assertEqual(self.FACTS, self.stored_facts())

    def test_pinned_to_0_9_values_are_cached_without_facts(self):
        self.config(pin_release_version='0.9')
        self.assertTrue(self.cache(bios.with_registry(
            {'Mode': 'A'}, {'Mode': self.FACTS})))
        self.assertEqual({'Mode': 'A'}, self.cached())
        self.assertEqual(dict.fromkeys(self.FACTS), self.stored_facts())
