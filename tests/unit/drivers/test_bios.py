"""The door from drivers to the BIOS settings cache (drivers/bios.py)."""

from ironic_steps.common import exception
from ironic_steps.conductor import task_manager
from ironic_steps.drivers import bios
from ironic_steps import objects
from tests import base


class CacheSettingsTest(base.TestCase):

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
