"""Properties of every endpoint under generated hostile requests.

Hypothesis generates request bodies (any JSON, node-like objects, JSON
patches aimed at every field and at secrets), query strings, identifiers
and headers, and sends them to every route of the application (read from
its URL map, so that a new endpoint is covered as soon as it exists).
Whatever is sent:

* the answer is never a 5xx;
* a 4xx carries Ironic's error body (``error_message``, a JSON string with
  ``faultstring``, ``faultcode`` ``Client`` and ``debuginfo`` null);
* a refused request changes nothing (what requests can write, of every
  node, re-read after each refusal);
* no answer and no log line holds a secret of the node.

Runs are deterministic (``derandomize``) and bounded (``max_examples``
per property), to fit the suite's time budget.
"""

import json
import logging
import re
import urllib.parse

import fixtures
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from ironic_steps.api import node_schema
from ironic_steps.api import node_view
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps import objects
from tests.unit.api import base

SECRETS = ('hunter2-bmc-password-zq', 'agent-token-7xq-secret')
NODE = 'prop-node'
NODE_UUID = 'c0ffee00-1234-4abc-8def-0123456789ab'

SETTINGS = settings(max_examples=1500, deadline=None, derandomize=True,
                    database=None, suppress_health_check=list(HealthCheck))

# --- strategies -----------------------------------------------------------------

_TEXT = st.text(max_size=12)
_SCALARS = (st.none() | st.booleans() | st.integers()
            | st.floats(allow_nan=False, allow_infinity=False) | _TEXT)
JSON = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(_TEXT, inner, max_size=4), max_leaves=12)

_FIELD_NAMES = st.sampled_from(node_view.FIELDS + ('id', 'chassis_uuid'))
_SECRET_PATHS = st.sampled_from([
    '/driver_info/ipmi_password', '/driver_info', '/driver_info/nested',
    '/driver_info/nested/api_token', '/instance_info/image_token',
    '/driver_internal_info/agent_secret_token'])
_FIELD_POINTERS = st.builds(
    lambda field, rest: '/' + field + ''.join('/' + part for part in rest),
    st.sampled_from(sorted(node_schema.UPDATE_FIELDS)) | _FIELD_NAMES,
    st.lists(st.sampled_from(['a', '0', '-', 'x~1y', 'ipmi_password', '']),
             max_size=2))
_POINTERS = _SECRET_PATHS | _FIELD_POINTERS
_JUNK_POINTERS = _TEXT | st.integers() | st.none() | st.lists(_TEXT)
_WELL_FORMED = (
    st.fixed_dictionaries({
        'op': st.sampled_from(['add', 'replace', 'test']),
        'path': _POINTERS, 'value': JSON})
    | st.fixed_dictionaries({'op': st.just('remove'), 'path': _POINTERS})
    | st.fixed_dictionaries({
        'op': st.sampled_from(['copy', 'move']),
        'from': _POINTERS, 'path': _FIELD_POINTERS}))
_MALFORMED = st.fixed_dictionaries(
    {'op': st.sampled_from(['add', 'remove', 'replace', 'move', 'copy',
                            'test']) | _TEXT | st.integers(),
     'path': _POINTERS | _JUNK_POINTERS},
    optional={'value': JSON, 'from': _POINTERS | _JUNK_POINTERS,
              'junk': JSON})
_OPERATION = st.one_of(_WELL_FORMED, _WELL_FORMED, _WELL_FORMED, _MALFORMED)
PATCHES = (st.lists(_OPERATION, min_size=1, max_size=4)
           | st.lists(_WELL_FORMED, min_size=1, max_size=2) | JSON)

NODE_BODIES = st.dictionaries(
    _FIELD_NAMES | _TEXT,
    JSON | st.sampled_from(['fake-hardware', NODE_UUID,
                            NODE_UUID.upper(), 'detail', 'n\n', 'fake']),
    max_size=5)

RAW_BODIES = st.sampled_from([
    b'', b'[' * 3000, b'{"a": NaN}', b'{"a": 1e999}', b'{"a":1,"a":2}',
    b'"\\ud800"', b'\xff\xfe', b'{', b'null', b'[]', b'{}'])

IDENTS = st.sampled_from([NODE, NODE_UUID, NODE_UUID.upper(), 'detail',
                          '12', 'n%0A', 'no-such-node', '%20', 'fake-hardware',
                          'x' * 300]) | st.text(min_size=1, max_size=10).map(
    lambda text: urllib.parse.quote(text, safe=''))

_PARAMS = st.sampled_from(['limit', 'marker', 'sort_key', 'sort_dir',
                           'fields', 'detail', 'driver', 'maintenance',
                           'provision_state', 'resource_class', 'type',
                           'agent_version']) | _TEXT
_PARAM_VALUES = (_TEXT | st.sampled_from([
    '1', ' 1', '+1', '1_0', '\uff11', '0', '-1', NODE_UUID,
    NODE_UUID.upper() + '\n', 'maintenance', 'name', 'driver_info', 'id',
    'asc', 'desc', 'true', 'uuid,name', 'driver_info,extra']))
QUERIES = st.lists(st.tuples(_PARAMS, _PARAM_VALUES), max_size=4)

HEADERS = st.dictionaries(
    st.sampled_from([versions.HEADER, versions.GENERIC_HEADER,
                     'Content-Type', 'X-Roles', 'X-User-Id', 'Accept']),
    st.sampled_from(['1.44', '1.11', 'latest', '1.99', '2.0', 'baremetal '
                     '1.31', 'junk', '', 'application/json', 'admin'])
    | st.text(st.characters(codec='latin-1', exclude_categories=['Cc']),
              max_size=12),
    max_size=3)

_ROUTE_PARAM = re.compile(r'<([^>]+)>')


class PropertiesTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        self.routes = sorted(
            (method, rule.rule) for rule in self.app.url_map.iter_rules()
            for method in rule.methods - {'OPTIONS', 'HEAD'})
        self.ensure_node()

    def tearDown(self):
        for secret in SECRETS:
            self.assertNotIn(secret, self.logs.output)
        super().tearDown()

    def ensure_node(self):
        """The node with secrets, as it was, whatever earlier examples did.
        """
        secrets = dict(
            driver_info={'ipmi_password': SECRETS[0],
                         'ipmi_address': '10.0.0.1',
                         'nested': {'api_token': SECRETS[1]}},
            instance_info={'image_token': SECRETS[1]},
            driver_internal_info={'agent_secret_token': SECRETS[1]})
        try:
            node = objects.Node.get(self.context, NODE_UUID)
        except exception.NodeNotFound:
            self.create_node(name=NODE, uuid=NODE_UUID, **secrets)
            return
        for field, value in secrets.items():
            if node[field] != value:
                node[field] = value
        node.name = NODE
        node.save()

    def written(self):
        """What requests can write, of every node."""
        return {node.uuid: {field: node[field]
                            for field in node_schema.UPDATE_FIELDS}
                for node in objects.Node.list(self.context)}

    def check(self, method, path, **kwargs):
        self.ensure_node()
        before = self.written()
        response = self.request(method, path, **kwargs)
        text = response.get_data(as_text=True)
        self.assertLess(response.status_code, 500,
                        '%s %s %r -> %s' % (method, path, kwargs, text))
        for secret in SECRETS:
            self.assertNotIn(secret, text)
        if response.status_code >= 400:
            if response.status_code != 405 or text:
                fault = json.loads(response.get_json()['error_message'])
                self.assertEqual('Client', fault['faultcode'])
                self.assertIsNone(fault['debuginfo'])
                self.assertIsInstance(fault['faultstring'], str)
            self.assertEqual(before, self.written(),
                             '%s %s %r changed nodes' % (method, path,
                                                         kwargs))
        return response

    def path_of(self, rule, ident):
        return _ROUTE_PARAM.sub(lambda _: ident, rule)

    @SETTINGS
    @given(data=st.data(), ident=IDENTS, body=JSON | NODE_BODIES | PATCHES,
           query=QUERIES, headers=HEADERS)
    def test_every_route_with_any_json_query_and_headers(self, data, ident,
                                                         body, query,
                                                         headers):
        method, rule = data.draw(st.sampled_from(self.routes))
        self.check(method, self.path_of(rule, ident), json=body,
                   query_string=query, headers=headers,
                   version=None if versions.HEADER in headers else
                   base.LATEST)

    @SETTINGS
    @given(data=st.data(), ident=IDENTS, raw=RAW_BODIES)
    def test_every_route_with_malformed_bodies(self, data, ident, raw):
        method, rule = data.draw(st.sampled_from(self.routes))
        self.check(method, self.path_of(rule, ident), data=raw,
                   content_type='application/json')

    @SETTINGS
    @given(patch=PATCHES, ident=st.sampled_from([NODE, NODE_UUID.upper()]))
    def test_json_patches_on_a_node_with_secrets(self, patch, ident):
        self.check('PATCH', '/v1/nodes/%s' % ident, json=patch)

    @SETTINGS
    @given(body=NODE_BODIES)
    def test_node_creation_with_any_fields(self, body):
        self.check('POST', '/v1/nodes', json=body)

    @SETTINGS
    @given(query=QUERIES, path=st.sampled_from(['/v1/nodes',
                                                '/v1/nodes/detail',
                                                '/v1/drivers']))
    def test_collections_with_any_query(self, query, path):
        self.check('GET', path, query_string=query)
