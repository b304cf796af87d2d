"""Hostile input: every malformed request is a 4xx that changes nothing.

Regression tests for issue 10, defect by defect, on nodes and on deploy
templates, traits and lookups alike: identifiers matched whole,
canonical UUIDs, reserved names, strict JSON (depth, numbers, keys,
surrogates), body size, strict ``limit`` and ``marker``, sorting on every
sortable key with a marker, malformed JSON patches.  Each refusal is
followed by a re-read showing that nothing was written.
"""

import json

import ddt
from oslo_utils import uuidutils

from ironic_steps.api import node_schema
from ironic_steps.common import states
from ironic_steps.db.sqlalchemy import models
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

    @ddt.data(('node-1%0A', 400), ('%20node-1', 400), ('12', 404))
    @ddt.unpack
    def test_a_url_identifier_that_is_not_whole_names_no_node(self, ident,
                                                              status):
        # Not a name at all: 400, as Ironic (InvalidUuidOrName); a number
        # is a name no node can have: 404.
        self.assertError(self.get('/v1/nodes/%s' % ident), status)


@ddt.ddt
class NulCharacterTest(RefusalMixin, base.ApiTestCase):
    """A NUL character, which PostgreSQL cannot store in text, is refused
    wherever a request can carry one (a 500 there, once)."""

    def setUp(self):
        super().setUp()
        self.api_create(name='node-1')
        self._before = self.snapshot()

    @ddt.data('maintenance_reason', 'description', 'owner', 'lessee',
              'protected_reason', 'retired_reason', 'extra')
    def test_in_a_body_string_it_is_refused_and_nothing_written(self, field):
        value = {'k\u0000': 'v'} if field == 'extra' else 'a\u0000b'
        self.assertRefusedAndUnchanged(self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/' + field, 'value': value}]), 400, 'NUL')
        self.assertRefusedAndUnchanged(self.put(
            '/v1/nodes/node-1/maintenance', json={'reason': 'a\u0000'}),
            400, 'NUL')

    @ddt.data('/v1/nodes?owner=a%00', '/v1/nodes?description_contains=%00',
              '/v1/nodes?driver=x%00', '/v1/nodes?x%00=1',
              '/v1/nodes/a%00b', '/v1/conductors/a%00b',
              '/v1/conductors?marker=a%00b', '/v1/nodes/node-1?reason=%00')
    def test_in_a_url_it_is_refused(self, url):
        self.assertRefusedAndUnchanged(self.get(url), 400, 'NUL')


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


#: Every key the node list sorts on: as in Ironic, every column but the
#: JSON ones (text, booleans that may be NULL, times, ...).
SORT_KEYS = tuple(sorted(
    column.name for column in models.Node.__table__.c
    if not isinstance(column.type, models.JSONEncoded)))


@ddt.ddt
class SortAndPageTest(base.AheadOfTheLadderTestCase):
    """Every sortable key pages with a marker to the same order, NULLs and
    booleans included; every other key is refused.  (Ahead of the ladder:
    a column of a field of a version not served yet sorts from its
    version, 406 below.)"""

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
            response = self.get(url, version='latest')
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
            % (key, direction), version='latest').get_json()['nodes']]
        self.assertEqual(5, len(whole))
        self.assertEqual(whole, self.pages(key, direction))

    @ddt.data('driver_info', 'extra', 'properties', 'instance_info',
              'network_data', 'raid_config', 'traits', 'conductor',
              'no_such_field')
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
        # The bound is the body limit: at the default (1 MiB) the copies
        # refused grow to a million values first, seconds of work.
        self.config(max_json_body_size=64, group='api')
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


TEMPLATE_UUID = '0d1c6b64-1c2e-4c3b-a1a4-8f4e2b6b2c11'
STEP = {'interface': 'raid', 'step': 'apply_configuration', 'args': {},
        'priority': 10}


def template_body(**fields):
    return dict({'name': 'CUSTOM_A', 'steps': [STEP]}, **fields)


class TemplateRefusalMixin(RefusalMixin):
    """Refusals that leave nodes and deploy templates as they were."""

    def snapshot(self):
        return (super().snapshot(),
                [dict(template) for template in
                 objects.DeployTemplate.list(self.context)])


@ddt.ddt
class TemplateIdentifiersTest(TemplateRefusalMixin, base.ApiTestCase):
    """Deploy templates get the nodes' strictness: whole UUIDs in
    canonical case, whole names (traits), whole priorities."""

    def setUp(self):
        super().setUp()
        response = self.post('/v1/deploy_templates',
                             json=template_body(uuid=TEMPLATE_UUID))
        self.assertEqual(201, response.status_code, response.data)
        self._before = self.snapshot()

    @ddt.data('%s\n' % TEMPLATE_UUID.replace('0d1c', '1d1c'),
              ' %s' % TEMPLATE_UUID, '{%s}' % TEMPLATE_UUID,
              TEMPLATE_UUID.replace('-', ''))
    def test_a_uuid_that_is_not_whole_is_refused_and_nothing_stored(
            self, uuid):
        self.assertRefusedAndUnchanged(self.post(
            '/v1/deploy_templates',
            json=template_body(name='CUSTOM_B', uuid=uuid)), 400, 'uuid')

    @ddt.data('CUSTOM_B\n', ' CUSTOM_B', 'HW_CPU_X86_VMX\n', 'CUSTOM_B\t')
    def test_a_name_that_is_not_a_whole_trait_is_refused_on_create(
            self, name):
        self.assertRefusedAndUnchanged(self.post(
            '/v1/deploy_templates', json=template_body(name=name)),
            400, 'name', 'not a trait')

    def test_a_name_that_is_not_a_whole_trait_is_refused_on_update(self):
        self.assertRefusedAndUnchanged(self.patch(
            '/v1/deploy_templates/CUSTOM_A', json=[
                {'op': 'replace', 'path': '/name', 'value': 'CUSTOM_B\n'}]),
            400, 'not a trait')

    def test_an_upper_case_copy_of_a_uuid_is_the_same_template(self):
        self.assertRefusedAndUnchanged(self.post(
            '/v1/deploy_templates', json=template_body(
                name='CUSTOM_B', uuid=TEMPLATE_UUID.upper())),
            409, TEMPLATE_UUID)

    def test_a_uuid_is_stored_in_lower_case_and_found_in_any_case(self):
        upper = TEMPLATE_UUID.upper().replace('0D1C', 'ABCD')
        response = self.post('/v1/deploy_templates',
                             json=template_body(name='CUSTOM_B', uuid=upper))
        self.assertEqual(201, response.status_code, response.data)
        self.assertEqual(upper.lower(), response.get_json()['uuid'])
        for ident in (upper, upper.lower()):
            shown = self.get('/v1/deploy_templates/%s' % ident)
            self.assertEqual(upper.lower(), shown.get_json()['uuid'])
        self.assertEqual(200, self.patch(
            '/v1/deploy_templates/%s' % upper,
            json=[{'op': 'add', 'path': '/extra/a', 'value': 1}]).status_code)

    @ddt.data('CUSTOM_A%0A', '%20CUSTOM_A', '%7B' + TEMPLATE_UUID + '%7D',
              TEMPLATE_UUID + '%0A', TEMPLATE_UUID.replace('-', ''))
    def test_a_url_identifier_that_is_not_whole_names_no_template(
            self, ident):
        url = '/v1/deploy_templates/%s' % ident
        self.assertError(self.get(url), 404)
        self.assertRefusedAndUnchanged(self.patch(url, json=[
            {'op': 'add', 'path': '/extra/a', 'value': 1}]), 404)
        self.assertRefusedAndUnchanged(self.delete(url), 404)

    # In tuples, so that ddt names the tests by index, not by 5000 nines.
    @ddt.data(('1\n',), (' 1',), ('1 ',), ('+1',), ('\uff11',),
              ('9' * 5000,), ('',))
    @ddt.unpack
    def test_a_priority_that_is_not_plain_digits_is_refused(self, priority):
        self.assertRefusedAndUnchanged(self.post(
            '/v1/deploy_templates', json=template_body(
                name='CUSTOM_B', steps=[dict(STEP, priority=priority)])),
            400, 'steps/0/priority')


@ddt.ddt
class TemplateBodiesTest(TemplateRefusalMixin, base.ApiTestCase):
    """The body limits hold on the template and trait endpoints too."""

    def setUp(self):
        super().setUp()
        self.api_create(name='node-1')
        self.assertEqual(201, self.post('/v1/deploy_templates',
                                        json=template_body()).status_code)
        self._before = self.snapshot()

    @ddt.data(('POST', '/v1/deploy_templates'),
              ('PATCH', '/v1/deploy_templates/CUSTOM_A'),
              ('PUT', '/v1/nodes/node-1/traits'))
    @ddt.unpack
    def test_deep_huge_and_non_strict_bodies_are_refused(self, method, path):
        self.assertRefusedAndUnchanged(
            self.send(method, path, b'[' * 100000), 400,
            'nested deeper than 25')
        self.assertRefusedAndUnchanged(
            self.send(method, path, json.dumps(
                {'extra': {'x': 'a' * (1024 * 1024)}}).encode()), 413)
        self.assertRefusedAndUnchanged(
            self.send(method, path, b'{"steps": NaN}'), 400)

    def test_a_template_patch_that_grows_without_bound_is_refused(self):
        # A smaller body limit, a smaller bound: see the same test on nodes.
        self.config(max_json_body_size=64, group='api')
        patch = [{'op': 'add', 'path': '/extra/s', 'value': [STEP] * 4}] + [
            {'op': 'copy', 'from': '/extra', 'path': '/extra/c%d' % n}
            for n in range(40)]
        self.assertRefusedAndUnchanged(
            self.patch('/v1/deploy_templates/CUSTOM_A', json=patch), 400)

    @ddt.data([{'op': 'copy', 'from': 5, 'path': '/extra/x'}],
              [{'op': 'add', 'path': '/extra/x'}],
              [{'op': 'add', 'path': '/extra/x', 'value': 1, 'extra': 1}],
              [{'op': 'add', 'path': '', 'value': {}}])
    def test_a_malformed_template_patch_is_400_and_changes_nothing(
            self, patch):
        self.assertRefusedAndUnchanged(
            self.patch('/v1/deploy_templates/CUSTOM_A', json=patch), 400)


@ddt.ddt
class TraitInputTest(base.ApiTestCase):
    """A trait is matched whole, in a URL as in a body."""

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def traits(self):
        return objects.Node.get(self.context, self.node.uuid).traits

    @ddt.data('CUSTOM_A%0A', 'CUSTOM_A%20', '%20CUSTOM_A',
              'HW_CPU_X86_VMX%0A')
    def test_a_trait_in_a_url_that_is_not_whole_is_refused(self, trait):
        self.assertError(self.put('/v1/nodes/node-1/traits/%s' % trait), 400)
        self.assertEqual([], self.traits())

    @ddt.data('CUSTOM_A\n', ' CUSTOM_A', 'HW_CPU_X86_VMX\n')
    def test_a_trait_in_a_body_that_is_not_whole_is_refused(self, trait):
        self.assertError(self.put('/v1/nodes/node-1/traits', json={
            'traits': ['CUSTOM_B', trait]}), 400, 'not a trait')
        self.assertEqual([], self.traits())


@ddt.ddt
class StrictLookupTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.node = self.wait_for_state(node, states.DEPLOYWAIT)

    def test_a_node_uuid_in_upper_case_is_the_node(self):
        response = self.get('/v1/lookup', version='latest', query_string={
            'node_uuid': self.node.uuid.upper()})
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(self.node.uuid, response.get_json()['node']['uuid'])

    @ddt.data('%s\n', ' %s', '{%s}', 'urn:uuid:%s')
    def test_a_node_uuid_that_is_not_a_whole_uuid_is_400(self, template):
        self.assertError(self.get('/v1/lookup', version='latest',
                                  query_string={
                                      'node_uuid': template % self.node.uuid}),
                         400, 'node_uuid')


@ddt.ddt
class TemplatePagingTest(base.ApiTestCase):
    """Template lists page like node lists: strict parameters, every
    sortable key with a marker (NULLs included)."""

    def setUp(self):
        super().setUp()
        for name in ('CUSTOM_B', 'CUSTOM_A', 'CUSTOM_C', 'CUSTOM_D'):
            self.assertEqual(201, self.post(
                '/v1/deploy_templates',
                json=template_body(name=name)).status_code)
        # updated_at: NULL for two of them.
        self.patch('/v1/deploy_templates/CUSTOM_A',
                   json=[{'op': 'add', 'path': '/extra/a', 'value': 1}])
        self.patch('/v1/deploy_templates/CUSTOM_D',
                   json=[{'op': 'add', 'path': '/extra/a', 'value': 1}])

    def pages(self, key, direction):
        url = ('/v1/deploy_templates?sort_key=%s&sort_dir=%s&limit=1'
               % (key, direction))
        seen = []
        while url:
            response = self.get(url, version='latest')
            self.assertEqual(200, response.status_code, response.data)
            body = response.get_json()
            seen += [t['uuid'] for t in body['deploy_templates']]
            url = body.get('next', '').replace('http://localhost', '')
            self.assertLess(len(seen), 10, 'paging does not end')
        return seen

    @ddt.idata((key, direction)
               for key in ('id', 'uuid', 'name', 'created_at', 'updated_at')
               for direction in ('asc', 'desc'))
    @ddt.unpack
    def test_paging_with_a_marker_matches_the_whole_list(self, key,
                                                         direction):
        whole = [t['uuid'] for t in self.get(
            '/v1/deploy_templates?sort_key=%s&sort_dir=%s'
            % (key, direction)).get_json()['deploy_templates']]
        self.assertEqual(4, len(whole))
        self.assertEqual(whole, self.pages(key, direction))

    @ddt.data(' 1', '+1', '1_0', '\uff11', '0', '')
    def test_a_limit_that_is_not_plain_digits_is_400(self, limit):
        self.assertError(self.get('/v1/deploy_templates',
                                  query_string={'limit': limit}), 400,
                         'limit')

    def test_a_marker_in_upper_case_is_the_template(self):
        first = self.get('/v1/deploy_templates?limit=1').get_json()[
            'deploy_templates'][0]
        after = self.get('/v1/deploy_templates', query_string={
            'marker': first['uuid'].upper()}).get_json()['deploy_templates']
        self.assertEqual(['CUSTOM_A', 'CUSTOM_C', 'CUSTOM_D'],
                         [t['name'] for t in after])

    @ddt.data('%s\n', ' %s', '{%s}')
    def test_a_marker_that_is_not_a_whole_uuid_is_400(self, template):
        uuid = objects.DeployTemplate.list(self.context)[0].uuid
        self.assertError(self.get('/v1/deploy_templates', query_string={
            'marker': template % uuid}), 400, 'marker')
