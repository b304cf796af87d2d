"""The FirmwareComponent object: a node's firmware versions, merged
reading after reading, on SQLite."""

import ddt

from ironic_steps.common import exception
from ironic_steps import objects
from tests import base


@ddt.ddt
class SyncTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node()

    def sync(self, *readings):
        return objects.FirmwareComponent.sync(self.context, self.node.id,
                                              list(readings))

    def versions(self):
        return {c.component: (c.initial_version, c.current_version,
                              c.last_version_flashed)
                for c in objects.FirmwareComponent.list_by_node(
                    self.context, self.node.id)}

    def test_a_first_reading_records_the_initial_versions(self):
        synced = self.sync({'component': 'bmc', 'current_version': '1.00',
                            'model': 'Joo Janta 200'},
                           {'component': 'bios', 'current_version': '1.0'})
        self.assertEqual(['bios', 'bmc'], [c.component for c in synced])
        self.assertEqual({'bios': ('1.0', '1.0', None),
                          'bmc': ('1.00', '1.00', None)}, self.versions())
        self.assertEqual('Joo Janta 200', synced[1].model)
        self.assertIsNone(synced[0].updated_at)

    def test_a_new_version_is_the_current_and_last_flashed_one(self):
        self.sync({'component': 'bios', 'current_version': '1.0'})
        self.sync({'component': 'bios', 'current_version': '2.0'})
        self.sync({'component': 'bios', 'current_version': '2.0'},
                  {'component': 'bmc', 'current_version': '7'})
        self.assertEqual({'bios': ('1.0', '2.0', '2.0'),
                          'bmc': ('7', '7', None)}, self.versions())
        bios = objects.FirmwareComponent.list_by_node(
            self.context, self.node.id)[0]
        self.assertIsNotNone(bios.updated_at)

    def test_components_not_read_are_kept(self):
        self.sync({'component': 'bios', 'current_version': '1.0'},
                  {'component': 'bmc', 'current_version': '7'})
        self.sync({'component': 'bios', 'current_version': '1.1'})
        self.assertEqual({'bios': ('1.0', '1.1', '1.1'),
                          'bmc': ('7', '7', None)}, self.versions())

    @ddt.data({'current_version': '1.0'},
              {'component': '', 'current_version': '1.0'},
              {'component': 'bios'},
              {'component': 'bios', 'current_version': 'x' * 256},
              {'component': 'bios', 'current_version': '1', 'colour': 'red'},
              {'component': 'bios', 'current_version': '1', 'model': 5},
              'bios')
    def test_a_bad_reading_is_refused_and_nothing_is_written(self, reading):
        self.assertRaises(exception.InvalidParameterValue, self.sync,
                          {'component': 'bmc', 'current_version': '7'},
                          reading)
        self.assertEqual({}, self.versions())

    def test_nothing_is_written_while_pinned_to_a_release_without_it(self):
        self.config(pin_release_version='0.11')
        error = self.assertRaises(
            exception.NotInPinnedRelease, self.sync,
            {'component': 'bios', 'current_version': '1.0'})
        self.assertIn('0.12', str(error))
        self.config(pin_release_version=None)
        self.assertEqual({}, self.versions())

    def test_a_node_that_is_gone_is_not_found(self):
        self.node.destroy()
        self.assertRaises(exception.NodeNotFound, self.sync,
                          {'component': 'bios', 'current_version': '1.0'})
