"""The target RAID configuration (PUT /v1/nodes/{node}/states/raid, 1.12)."""

import ddt

from ironic_steps import objects
from tests.unit.api import base

LAYOUT = {'logical_disks': [
    {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True},
    {'size_gb': 'MAX', 'raid_level': '5', 'controller': 'RAID.1',
     'physical_disks': ['d0', 'd1', 'd2'], 'disk_type': 'ssd'}]}


@ddt.ddt
class TargetRaidConfigTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def set_raid(self, config, **kwargs):
        return self.put('/v1/nodes/node-1/states/raid', json=config, **kwargs)

    def stored(self):
        return objects.Node.get(self.context, self.node.uuid)

    def test_a_valid_layout_is_stored_and_shown(self):
        response = self.set_raid(LAYOUT)
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(LAYOUT, self.stored().target_raid_config)
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(LAYOUT, body['target_raid_config'])
        self.assertEqual({}, body['raid_config'])
        states = self.get('/v1/nodes/node-1/states').get_json()
        self.assertEqual(LAYOUT, states['target_raid_config'])

    def test_an_empty_layout_clears_it(self):
        self.set_raid(LAYOUT)
        self.assertEqual(204, self.set_raid({}).status_code)
        self.assertEqual({}, self.stored().target_raid_config)

    @ddt.data(
        ({'logical_disks': []}, 'raid_config'),
        ({'logical_disks': [{'size_gb': 10}]}, 'raid_level'),
        ({'logical_disks': [{'size_gb': 'ALL', 'raid_level': '1'}]},
         "raid_config['logical_disks'][0]['size_gb']"),
        ({'logical_disks': [{'size_gb': 10, 'raid_level': '7'}]}, "'7'"),
        ({'logical_disks': [{'size_gb': 10, 'raid_level': '1',
                             'colour': 'red'}]}, 'colour'),
        ({'logical_disks': [{'size_gb': 10, 'raid_level': '1',
                             'physical_disks': ['d0']}]}, 'controller'),
        ({'logical_disks': [
            {'size_gb': 10, 'raid_level': '1', 'is_root_volume': True},
            {'size_gb': 10, 'raid_level': '0', 'is_root_volume': True}]},
         'is_root_volume'),
        ({'raid': 'yes please'}, 'raid'))
    @ddt.unpack
    def test_an_invalid_layout_is_400_naming_the_problem(self, config,
                                                         fragment):
        response = self.set_raid(config)
        self.assertError(response, 400, 'RAID configuration', fragment)
        self.assertIsNone(self.stored().target_raid_config)

    def test_the_body_must_be_an_object(self):
        self.assertError(self.set_raid(['raid']), 400, 'JSON object')

    def test_the_endpoint_needs_1_12(self):
        self.assertError(self.set_raid(LAYOUT, version='1.11'), 406, '1.12')
        self.assertIsNone(self.stored().target_raid_config)
