"""Node shards (API 1.82): the ``shard`` field, the ``?shard`` and
``?sharded`` filters, and ``GET /v1/shards``; through the real API and
conductor on SQLite."""

import ddt

from ironic_steps import objects
from tests.unit.api import base

VERSION = '1.82'


def names(response):
    return sorted(node['name'] for node in response.get_json()['nodes'])


@ddt.ddt
class ShardTest(base.ApiTestCase):

    def create(self, name, shard=None, version=VERSION):
        body = {'driver': 'fake-hardware', 'name': name}
        if shard is not None:
            body['shard'] = shard
        return self.post('/v1/nodes', json=body, version=version)

    def set_shard(self, ident, shard, version=VERSION):
        return self.patch('/v1/nodes/%s' % ident, json=[
            {'op': 'add', 'path': '/shard', 'value': shard}], version=version)

    def test_a_shard_is_set_at_creation_or_later_and_shown_from_1_82(self):
        created = self.create('a', shard='rack-1')
        self.assertEqual(201, created.status_code, created.data)
        self.assertEqual('rack-1', created.get_json()['shard'])
        self.create('b')
        response = self.set_shard('b', 'rack-2')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('rack-2', response.get_json()['shard'])
        self.assertEqual('rack-2', objects.Node.get(self.context, 'b').shard)
        self.assertNotIn('shard', self.get('/v1/nodes/b',
                                           version='1.81').get_json())
        response = self.patch('/v1/nodes/b', json=[
            {'op': 'remove', 'path': '/shard'}], version=VERSION)
        self.assertIsNone(response.get_json()['shard'])

    def test_below_1_82_the_field_is_406_never_400(self):
        self.create('a', version='1.81')
        self.assertError(self.create('b', shard='x', version='1.81'), 406,
                         'shard', '1.82')
        self.assertError(self.set_shard('a', 'x', version='1.81'), 406,
                         'shard', '1.82')
        self.assertError(self.get('/v1/nodes/a?fields=shard',
                                  version='1.81'), 406, 'shard')

    @ddt.data('', 'x' * 256, 7)
    def test_a_bad_shard_is_400(self, shard):
        self.create('a')
        self.assertError(self.set_shard('a', shard), 400, 'shard')
        self.assertIsNone(objects.Node.get(self.context, 'a').shard)

    def test_the_list_filters_by_shards_and_by_having_one(self):
        self.create('a', shard='s1')
        self.create('b', shard='s2')
        self.create('c', shard='s3')
        self.create('d')
        self.assertEqual(['a', 'c'], names(self.get(
            '/v1/nodes?shard=s1,s3', version=VERSION)))
        self.assertEqual(['b'], names(self.get(
            '/v1/nodes/detail?shard=s2', version=VERSION)))
        self.assertEqual(['a', 'b', 'c'], names(self.get(
            '/v1/nodes?sharded=true', version=VERSION)))
        self.assertEqual(['d'], names(self.get(
            '/v1/nodes?sharded=false', version=VERSION)))

    @ddt.data('shard=s1', 'sharded=true')
    def test_the_filters_need_1_82(self, query):
        self.assertError(self.get('/v1/nodes?' + query, version='1.81'),
                         406, '1.82')

    def test_shards_are_listed_with_their_node_counts(self):
        for name, shard in (('a', 's1'), ('b', 's1'), ('c', 's2'),
                            ('d', None)):
            self.create(name, shard=shard)
        response = self.get('/v1/shards', version=VERSION)
        self.assertEqual(200, response.status_code, response.data)
        # Nodes without a shard are counted as Ironic shows them.
        self.assertEqual({'shards': [{'name': 's1', 'count': 2},
                                     {'name': 'None', 'count': 1},
                                     {'name': 's2', 'count': 1}]},
                         response.get_json())

    def test_the_shard_list_exists_from_1_82(self):
        self.assertError(self.get('/v1/shards', version='1.81'), 404,
                         '1.82')

    def test_changing_a_shard_needs_its_own_rule(self):
        self.create('a')
        self.use_policy({'baremetal:node:update:shard': '!'})
        self.assertError(self.set_shard('a', 's1'), 403,
                         'baremetal:node:update:shard')
        self.assertIsNone(objects.Node.get(self.context, 'a').shard)
        # Other fields are not its business.
        response = self.patch('/v1/nodes/a', json=[
            {'op': 'add', 'path': '/extra/x', 'value': 1}], version=VERSION)
        self.assertEqual(200, response.status_code, response.data)

    def test_reading_shards_needs_its_rule(self):
        self.use_policy({'baremetal:shards:get': '!'})
        self.assertError(self.get('/v1/shards', version=VERSION), 403,
                         'baremetal:shards:get')


class PinnedTo010Test(base.ApiTestCase):
    """Release 0.10's nodes have no shard: none is shown or written."""

    conductor_config = {None: {'pin_release_version': '0.10'}}

    def test_no_shard_is_written_and_the_endpoints_do_not_exist(self):
        self.assertEqual(201, self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'a'},
            version='1.80').status_code)
        self.assertError(self.get('/v1/shards', version='1.82'), 406,
                         '1.80')
        self.assertError(self.get('/v1/shards', version='1.80'), 404)
        self.assertNotIn('shard', self.get('/v1/nodes/a',
                                           version='latest').get_json())
        node = objects.Node.get(self.context, 'a')
        node.shard = 'sneaked-in'
        node.save()
        self.assertIsNone(objects.Node.get_row(self.context, 'a').shard)
