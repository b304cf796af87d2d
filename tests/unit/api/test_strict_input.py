"""Hostile input: every malformed request is a 4xx that changes nothing.

Regression tests for issue 10, defect by defect: identifiers matched whole,
canonical UUIDs, reserved names, strict JSON (depth, numbers, keys,
surrogates), body size, strict ``limit`` and ``marker``, sorting on every
sortable key with a marker, malformed JSON patches.  Each refusal is
followed by a re-read showing that nothing was written.
"""

import json

import ddt
from oslo_utils import uuidutils

from ironic_steps.api import node_schema
from ironic_steps import objects
from tests.unit.api import base

UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'

#: Every endpoint that takes a body, and how to call it on ``node``.
BODY_ENDPOINTS = (
    ('POST', '/v1/nodes'),
    ('PATCH', '/v1/nodes/{node}'),
    ('PUT', '/v1/nodes/{node}/states/provision'),
    ('POST', '/v1/heartbeat/{node}'),
)


class RefusalMixin:
    """Refusals that must leave the database as it was."""

    def snapshot(self):
        return [dict(node) for node in objects.Node.list(self.context)]

    def assertRefusedAndUnchanged(self, response, status, *fragments):
        before = getattr(self, '_before', None)
        message = self.assertError(response, status, *fragments)
        if before is not None:
            self.assertEqual(before, self.snapshot())
        return message

    def send(self, method, path, raw, **kwargs):
        return self.request(method, path, data=raw,
                            content_type='application/json', **kwargs)


@ddt.ddt
class IdentifiersTest(RefusalMixin, base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-1', uuid=UUID)
        self._before = self.snapshot()

    @ddt.data('%s\n' % UUID.replace('1be2', '2be2'), ' %s' % UUID,
              UUID.replace('-', '') + '\n', '{%s}' % UUID)
    def test_a_uuid_that_is_not_whole_is_refused_and_nothing_stored(
            self, uuid):
        self.assertRefusedAndUnchanged(
            self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                         'uuid': uuid}), 400, 'uuid')

    @ddt.data('name\n', 'name ', '', 'a' * 256, 'na/me', 'nämé')
    def test_a_name_that_is_not_whole_is_refused_and_nothing_stored(
            self, name):
        self.assertRefusedAndUnchanged(
            self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                         'name': name}), 400, 'name')

    def test_an_upper_case_copy_of_a_uuid_is_the_same_node(self):
        self.assertRefusedAndUnchanged(
            self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                         'uuid': UUID.upper()}), 409, UUID)

    def test_a_uuid_is_stored_in_lower_case_and_found_in_any_case(self):
        upper = UUID.upper().replace('1BE2', 'ABCD')
        created = self.api_create(uuid=upper)
        self.assertEqual(upper.lower(), created['uuid'])
        self.assertEqual(created['uuid'], self.get(
            '/v1/nodes/%s' % upper).get_json()['uuid'])

    def test_an_instance_uuid_is_stored_in_lower_case(self):
        instance = uuidutils.generate_uuid()
        self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/instance_uuid',
             'value': instance.upper()}])
        self.assertEqual(instance, self.get('/v1/nodes/node-1').get_json()[
            'instance_uuid'])

    @ddt.data(*node_schema.RESERVED_NAMES)
    def test_names_ironic_reserves_are_refused_on_create(self, name):
        self.assertRefusedAndUnchanged(
            self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                         'name': name}),
            400, 'reserved', name)

    def test_a_reserved_name_is_refused_on_update(self):
        self.assertRefusedAndUnchanged(self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/name', 'value': 'detail'}]),
            400, 'reserved')

    @ddt.data('node-1%0A', '%20node-1', '12')
    def test_a_url_identifier_that_is_not_whole_names_no_node(self, ident):
        self.assertError(self.get('/v1/nodes/%s' % ident), 404)


@ddt.ddt
class StrictJSONTest(RefusalMixin, base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-1')
        self._before = self.snapshot()

    def path(self, template):
        return template.format(node=self.node['uuid'])

    @ddt.data(*BODY_ENDPOINTS)
    @ddt.unpack
    def test_100000_open_brackets_are_400_on_every_endpoint(self, method,
                                                            path):
        self.assertRefusedAndUnchanged(
            self.send(method, self.path(path), b'[' * 100000),
            400, 'nested deeper than 25')

    @ddt.data(*BODY_ENDPOINTS)
    @ddt.unpack
    def test_2000_nested_objects_are_400_on_every_endpoint(self, method,
                                                           path):
        raw = '{"extra": %s1%s}' % ('{"a": ' * 2000, '}' * 2000)
        self.assertRefusedAndUnchanged(
            self.send(method, self.path(path), raw.encode()),
            400, 'nested deeper than 25')

    def test_the_depth_limit_is_exact_and_configurable(self):
        def body(depth):     # the body itself is the first level
            return {'driver': 'fake-hardware',
                    'extra': json.loads('{"a": ' * (depth - 1) + '1'
                                        + '}' * (depth - 1))}
        self.assertEqual(201, self.post('/v1/nodes', json=body(25))
                         .status_code)
        self.assertError(self.post('/v1/nodes', json=body(26)), 400,
                         'nested deeper than 25')
        self.config(max_json_body_depth=10, group='api')
        self.assertError(self.post('/v1/nodes', json=body(11)), 400,
                         'nested deeper than 10')

    @ddt.data('NaN', 'Infinity', '-Infinity', '1e999', '-1e999')
    def test_numbers_no_strict_parser_reads_are_refused(self, number):
        raw = '{"driver": "fake-hardware", "extra": {"x": %s}}' % number
        self.assertRefusedAndUnchanged(
            self.send('POST', '/v1/nodes', raw.encode()), 400)
        patch = '[{"op": "add", "path": "/extra/x", "value": %s}]' % number
        self.assertRefusedAndUnchanged(
            self.send('PATCH', '/v1/nodes/node-1', patch.encode()), 400)

    def test_a_key_twice_in_one_object_is_refused(self):
        self.assertRefusedAndUnchanged(self.send(
            'POST', '/v1/nodes',
            b'{"driver": "fake-hardware", "name": "a", "name": "b"}'),
            400, 'appears twice')

    def test_an_unpaired_surrogate_is_refused(self):
        self.assertRefusedAndUnchanged(self.send(
            'POST', '/v1/nodes',
            b'{"driver": "fake-hardware", "extra": {"x": "\\ud800"}}'),
            400, 'surrogate')

    def test_a_body_that_is_not_utf8_is_refused(self):
        self.assertRefusedAndUnchanged(self.send(
            'POST', '/v1/nodes', b'{"driver": "fake-\xff"}'), 400, 'UTF-8')

    def test_a_huge_integer_is_400_not_500(self):
        raw = '{"driver": "fake-hardware", "extra": {"x": %s}}' % (
            '9' * 5000)
        self.assertRefusedAndUnchanged(
            self.send('POST', '/v1/nodes', raw.encode()), 400)

    @ddt.data(*BODY_ENDPOINTS)
    @ddt.unpack
    def test_a_body_over_the_limit_is_413_on_every_endpoint(self, method,
                                                            path):
        raw = json.dumps({'extra': {'x': 'a' * (1024 * 1024)}}).encode()
        self.assertRefusedAndUnchanged(
            self.send(method, self.path(path), raw), 413,
            'max_json_body_size')

    def test_the_body_limit_is_configurable(self):
        self.config(max_json_body_size=4, group='api')
        raw = json.dumps({'driver': 'fake-hardware',
                          'extra': {'x': 'a' * 5000}}).encode()
        self.assertRefusedAndUnchanged(self.send('POST', '/v1/nodes', raw),
                                       413, '4096 bytes')
        raw = json.dumps({'driver': 'fake-hardware',
                          'extra': {'x': 'a' * 3000}}).encode()
        self.assertEqual(201, self.send('POST', '/v1/nodes', raw)
                         .status_code)


@ddt.ddt
class StrictPagingTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        for number in range(3):
            self.create_node(name='node-%d' % number)

    @ddt.data(' 1', '1 ', '+1', '1_0', '\uff11', '\u0661', '0', '-1', '1.0',
              '', '0x1', '1e1', '9' * 21)
    def test_a_limit_that_is_not_plain_digits_is_400(self, limit):
        self.assertError(self.get('/v1/nodes', query_string={'limit': limit}),
                         400, 'limit')

    def test_a_plain_limit_and_leading_zeros_are_fine(self):
        for limit in ('2', '02'):
            self.assertEqual(2, len(self.get(
                '/v1/nodes', query_string={'limit': limit}).get_json()[
                    'nodes']))

    @ddt.data('%s\n', ' %s', '{%s}', 'urn:uuid:%s')
    def test_a_marker_that_is_not_a_whole_uuid_is_400(self, template):
        node = objects.Node.list(self.context)[0]
        self.assertError(self.get('/v1/nodes', query_string={
            'marker': template % node.uuid}), 400, 'marker')

    def test_a_marker_in_upper_case_is_the_node(self):
        first = self.get('/v1/nodes?limit=1').get_json()['nodes'][0]
        after = self.get('/v1/nodes', query_string={
            'marker': first['uuid'].upper()}).get_json()['nodes']
        self.assertEqual(['node-1', 'node-2'], [n['name'] for n in after])


#: Every key the node list sorts on.
SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'updated_at',
             'provision_state', 'provision_updated_at', 'driver',
             'resource_class', 'power_state', 'maintenance')


@ddt.ddt
class SortAndPageTest(base.ApiTestCase):
    """Every sortable key pages with a marker to the same order, NULLs and
    booleans included; every other key is refused."""

    def setUp(self):
        super().setUp()
        values = [dict(name='n-b', resource_class='gold', maintenance=True),
                  dict(resource_class=None),
                  dict(name='n-a', resource_class='gold'),
                  dict(name='n-c', maintenance=True),
                  dict(resource_class='bronze', power_state='power on')]
        for fields in values:
            self.create_node(**fields)

    def pages(self, key, direction):
        url = '/v1/nodes?sort_key=%s&sort_dir=%s&limit=1&fields=uuid' % (
            key, direction)
        seen = []
        while url:
            response = self.get(url)
            self.assertEqual(200, response.status_code, response.data)
            body = response.get_json()
            seen += [node['uuid'] for node in body['nodes']]
            url = body.get('next', '').replace('http://localhost', '')
            self.assertLess(len(seen), 10, 'paging does not end')
        return seen

    @ddt.idata((key, direction) for key in SORT_KEYS
               for direction in ('asc', 'desc'))
    @ddt.unpack
    def test_paging_with_a_marker_matches_the_whole_list(self, key,
                                                         direction):
        whole = [node['uuid'] for node in self.get(
            '/v1/nodes?sort_key=%s&sort_dir=%s&fields=uuid'
            % (key, direction)).get_json()['nodes']]
        self.assertEqual(5, len(whole))
        self.assertEqual(whole, self.pages(key, direction))

    @ddt.data('driver_info', 'extra', 'properties', 'instance_info',
              'reservation', 'last_error', 'no_such_field')
    def test_other_keys_are_refused(self, key):
        self.assertError(self.get('/v1/nodes?sort_key=%s' % key), 400, key)


@ddt.ddt
class MalformedPatchTest(RefusalMixin, base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.api_create(name='node-1', extra={'a': {'b': 1}})
        self._before = self.snapshot()

    @ddt.data(
        [{'op': 'copy', 'from': 5, 'path': '/extra/x'}],
        [{'op': 'move', 'from': None, 'path': '/extra/x'}],
        [{'op': 'copy', 'from': 'extra/a', 'path': '/extra/x'}],
        [{'op': 'copy', 'from': ['extra'], 'path': '/extra/x'}],
        [{'op': 'add', 'path': 5, 'value': 1}],
        [{'op': 'add', 'path': '/extra/~2', 'value': 1}],
        [{'op': 'add', 'path': '/extra/x'}],
        [{'op': 'move', 'path': '/extra/x'}],
        [{'op': 'frobnicate', 'path': '/extra/x'}],
        [{'op': 5, 'path': '/extra/x'}],
        [{'path': '/extra/x', 'value': 1}],
        [{'op': 'add', 'path': '/extra/x', 'value': 1, 'extra': 1}],
        [{'op': 'remove', 'path': '/extra/a', 'value': 1}],
        [None], ['add'], [[]], [], {}, 'patch')
    def test_a_malformed_patch_is_400_and_changes_nothing(self, patch):
        self.assertRefusedAndUnchanged(
            self.patch('/v1/nodes/node-1', json=patch), 400)

    def test_operations_after_a_failing_one_are_not_applied(self):
        self.assertRefusedAndUnchanged(self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/extra/new', 'value': 1},
            {'op': 'remove', 'path': '/extra/missing'}]), 400,
            'operation 2 (remove /extra/missing)')

    def test_copies_that_would_grow_the_node_without_bound_are_refused(self):
        patch = [{'op': 'copy', 'from': '/extra', 'path': '/extra/c%d' % n}
                 for n in range(40)]
        self.assertRefusedAndUnchanged(
            self.patch('/v1/nodes/node-1', json=patch), 400)

    def test_a_patch_that_nests_too_deep_is_refused(self):
        patch = [{'op': 'add', 'path': '/extra/d', 'value': json.loads(
            '{"a": ' * 22 + '1' + '}' * 22)},
            {'op': 'copy', 'from': '/extra/d', 'path': '/extra/d/a/a/a'}]
        self.assertRefusedAndUnchanged(
            self.patch('/v1/nodes/node-1', json=patch), 400, 'nested')
