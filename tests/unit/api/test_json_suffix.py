"""Ironic's ``.json`` URL suffix: dropped below API 1.91, part of the URL
from 1.91 (a node named ``foo.json`` is found by that name); through the
real API on SQLite."""

from tests.unit.api import base


class JsonSuffixTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.foo = self.api_create(name='foo')
        self.foo_json = self.api_create(name='foo.json')
        self.bar_json = self.api_create(name='bar.json')

    def shown(self, path, version):
        response = self.get(path, version=version)
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()

    def test_from_1_91_the_suffix_is_part_of_the_name(self):
        self.assertEqual(self.foo_json['uuid'], self.shown(
            '/v1/nodes/foo.json', '1.91')['uuid'])
        self.assertEqual(self.foo['uuid'], self.shown(
            '/v1/nodes/foo', '1.91')['uuid'])
        self.assertEqual(404, self.get('/v1/nodes.json',
                                       version='1.91').status_code)

    def test_below_1_91_it_is_dropped_and_tried_again_if_nothing_is_found(
            self):
        self.assertEqual(self.foo['uuid'], self.shown(
            '/v1/nodes/foo.json', '1.90')['uuid'])
        self.assertEqual(self.bar_json['uuid'], self.shown(
            '/v1/nodes/bar.json', '1.90')['uuid'])
        self.assertEqual(3, len(self.shown('/v1/nodes.json',
                                           '1.90')['nodes']))
        response = self.patch('/v1/nodes/bar.json', json=[
            {'op': 'add', 'path': '/extra/x', 'value': 1}], version='1.90')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual({'x': 1}, self.shown('/v1/nodes/bar.json',
                                              '1.91')['extra'])

    def test_a_portgroup_is_found_so_too(self):
        created = self.post('/v1/portgroups', json={
            'node_uuid': self.foo['uuid'], 'name': 'bond0.json'},
            version='1.91')
        self.assertEqual(201, created.status_code, created.data)
        for version in ('1.90', '1.91'):
            self.assertEqual(created.get_json()['uuid'], self.shown(
                '/v1/portgroups/bond0.json', version)['uuid'])
