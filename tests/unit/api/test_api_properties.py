"""Properties of every endpoint under generated hostile requests.

Hypothesis generates request bodies (any JSON, node-like and deploy
template-like objects, trait lists, power, RAID and maintenance requests,
JSON patches aimed at every field and at secrets), query strings,
identifiers, headers and microversions (old ones included, where names,
fields and targets are gated), and sends them to every route of the
application (read from its URL map, so that a new endpoint is covered as
soon as it exists; each parameter of a route gets an identifier of its
own).  The database holds a node with secrets (in ``network_data`` too)
and a trait, a deploy template whose step arguments hold secrets, and a
node waiting for its agent (which lookups and heartbeats reach).  The
secrets are of every kind Ironic masks and more (:data:`SECRETS`): keys
naming them, oslo's sanitize keys, short names (``bmc_pw``, ``passwd``), a
config drive, a signed image URL, credentials in a URL, ``password=`` in a
string, BIOS settings as name/value pairs (in ``driver_info``, in a
template's steps, in the node's BIOS settings), a ``last_error`` and a
step history (args and error, as an older release stored them) quoting
them.  Whatever is sent:

* the answer is never a 5xx;
* a 4xx carries Ironic's error body (``error_message``, a JSON string with
  ``faultstring``, ``faultcode`` ``Client`` and ``debuginfo`` null);
* a refused request changes nothing (what requests can write, of every
  node and every deploy template, traits included, re-read after each
  refusal);
* no answer and no log line holds a secret of a node or a template.

Runs are deterministic (``derandomize``) and bounded (``max_examples``
per property), to fit the suite's time budget; the quick tier runs fewer
(:data:`EXAMPLES`).
"""

import json
import logging
import os
import re
import time
import urllib.parse

import fixtures
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from oslo_utils import timeutils
from oslo_utils import uuidutils

from ironic_steps.api import node_schema
from ironic_steps.api import node_view
from ironic_steps.api import template_schema
from ironic_steps.api import template_view
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

SECRETS = ('hunter2-bmc-password-zq', 'agent-token-7xq-secret',
           'pw-3kq-short-names', 'cd-9vz-config-drive', '5ig-7wq-temp-url',
           'url-4jd-credentials', 'cmd-2hx-kernel-line', 'bios-8pn-admin')
SIGNED_URL = ('https://swift.example/v1/AUTH_p/c/disk.qcow2?temp_url_sig=%s'
              '&temp_url_expires=2000000000' % SECRETS[4])
#: instance_info with what Ironic masks there (and more).
INSTANCE_INFO = {
    'image_token': SECRETS[1],
    'configdrive': {'meta_data': {'admin_pass': SECRETS[3]}},
    'image_url': SIGNED_URL, 'image_source': SIGNED_URL,
    'kernel_append_params': 'console=ttyS0 password=%s' % SECRETS[6]}
NODE = 'prop-node'
NODE_UUID = 'c0ffee00-1234-4abc-8def-0123456789ab'
TRAIT = 'CUSTOM_PROP'
#: A node waiting for its agent, whose token is one of the secrets.
AGENT_NODE = 'prop-agent-node'
AGENT_NODE_UUID = 'a9e17000-1234-4abc-8def-0123456789ab'
TEMPLATE = 'CUSTOM_PROP_TEMPLATE'
TEMPLATE_UUID = 'feedface-1234-4abc-8def-0123456789ab'
TEMPLATE_STEPS = [
    {'interface': 'raid', 'step': 'apply_configuration', 'priority': 10,
     'args': {'bmc_password': SECRETS[0], 'level': 5,
              'auth': {'api_token': SECRETS[1]}}},
    {'interface': 'bios', 'step': 'apply_configuration', 'priority': 5,
     'args': {'settings': [{'name': 'a', 'value': 'b'},
                           {'name': 'AdminPassword', 'value': SECRETS[7]}]}}]

#: Examples per property in a full run; a quick run (``tools/run-tests
#: --quick``) asks for fewer in ``IRONIC_STEPS_PROPERTY_EXAMPLES``.
FULL_EXAMPLES = 1500
EXAMPLES = int(os.environ.get('IRONIC_STEPS_PROPERTY_EXAMPLES')
               or FULL_EXAMPLES)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    database=None, suppress_health_check=list(HealthCheck))


def fewer(examples):
    """SETTINGS with fewer examples, for a property whose requests are
    also among those of the every-route properties (the time budget):
    ``examples`` in a full run, as many fewer in a quick one."""
    return settings(SETTINGS, max_examples=max(
        1, examples * EXAMPLES // FULL_EXAMPLES))


# --- strategies -----------------------------------------------------------------

_TEXT = st.text(max_size=12)
_SCALARS = (st.none() | st.booleans() | st.integers()
            | st.floats(allow_nan=False, allow_infinity=False) | _TEXT)
JSON = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(_TEXT, inner, max_size=4), max_leaves=12)

_FIELD_NAMES = st.sampled_from(node_view.FIELDS + ('id', 'chassis_uuid'))
_JUNK_POINTERS = _TEXT | st.integers() | st.none() | st.lists(_TEXT)


def _pointers(fields, parts):
    """Pointers into ``fields``, up to two ``parts`` deep."""
    return st.builds(
        lambda field, rest: '/' + field + ''.join('/' + p for p in rest),
        st.sampled_from(sorted(fields)),
        st.lists(st.sampled_from(parts), max_size=2))


def _patches(secret_paths, field_pointers):
    """JSON patches: mostly well-formed operations on ``field_pointers``
    and the ``secret_paths`` (reading secrets among them), some malformed,
    and any JSON."""
    pointers = secret_paths | field_pointers
    well_formed = (
        st.fixed_dictionaries({
            'op': st.sampled_from(['add', 'replace', 'test']),
            'path': pointers, 'value': JSON})
        | st.fixed_dictionaries({'op': st.just('remove'), 'path': pointers})
        | st.fixed_dictionaries({
            'op': st.sampled_from(['copy', 'move']),
            'from': pointers, 'path': field_pointers}))
    malformed = st.fixed_dictionaries(
        {'op': st.sampled_from(['add', 'remove', 'replace', 'move', 'copy',
                                'test']) | _TEXT | st.integers(),
         'path': pointers | _JUNK_POINTERS},
        optional={'value': JSON, 'from': pointers | _JUNK_POINTERS,
                  'junk': JSON})
    operation = st.one_of(well_formed, well_formed, well_formed, malformed)
    return (st.lists(operation, min_size=1, max_size=4)
            | st.lists(well_formed, min_size=1, max_size=2) | JSON)


PATCHES = _patches(
    st.sampled_from([
        '/driver_info/ipmi_password', '/driver_info', '/driver_info/nested',
        '/driver_info/nested/api_token', '/instance_info/image_token',
        '/driver_internal_info/agent_secret_token',
        '/network_data/links/0/bond_key', '/network_data/links/0',
        '/network_data/links', '/driver_info/bmc_pw', '/driver_info/passwd',
        '/driver_info/deploy_iso', '/driver_info/bios_settings/0/value',
        '/driver_info/bios_settings/0', '/driver_info/bios_settings',
        '/instance_info/configdrive', '/instance_info/configdrive/meta_data',
        '/instance_info/image_url', '/instance_info/kernel_append_params',
        '/instance_info']),
    _pointers(node_schema.UPDATE_FIELDS
              | set(node_view.FIELDS) | {'id', 'chassis_uuid'},
              ['a', '0', '-', 'x~1y', 'ipmi_password', '', 'links']))

TEMPLATE_PATCHES = _patches(
    st.sampled_from([
        '/steps', '/steps/0', '/steps/0/args', '/steps/0/args/bmc_password',
        '/steps/0/args/auth', '/steps/0/args/auth/api_token',
        '/steps/1/args/settings/0', '/steps/1/args/settings/1',
        '/steps/1/args/settings/1/value']),
    _pointers(set(template_view.FIELDS) | {'id', 'junk'},
              ['0', '1', '-', 'args', 'priority', 'interface', 'step',
               'bmc_password', 'a', '']))

_TRAITS = st.sampled_from([TRAIT, 'CUSTOM_NEW', 'HW_CPU_X86_VMX',
                           TEMPLATE, 'CUSTOM_NEW\n', 'custom_x', 'CUSTOM_',
                           'C' * 300]) | _TEXT
TRAIT_BODIES = st.fixed_dictionaries(
    {'traits': st.lists(_TRAITS, max_size=3) | JSON},
    optional={'junk': JSON})

_STEPS = st.lists(st.fixed_dictionaries(
    {'interface': st.sampled_from(template_schema.STEP_INTERFACES
                                  + ('boot', '')),
     'step': st.sampled_from(['apply_configuration', 'deploy', '']) | _TEXT,
     'args': st.sampled_from([{'bmc_password': 'x'},
                              {'auth': {'api_token': 'y'}}, {}]) | JSON,
     'priority': st.integers(-1, 2 ** 32) | st.sampled_from(
         ['10', '1\n', '9' * 30, '9' * 5000, ' 1'])},
    optional={'junk': JSON}), max_size=3) | JSON
TEMPLATE_BODIES = st.fixed_dictionaries(
    {'name': _TRAITS, 'steps': _STEPS},
    optional={'uuid': st.sampled_from([TEMPLATE_UUID, TEMPLATE_UUID.upper(),
                                       NODE_UUID, 'x', NODE_UUID + '\n'])
              | JSON,
              'extra': JSON, 'junk': JSON, 'created_at': _TEXT})

NODE_BODIES = st.dictionaries(
    _FIELD_NAMES | _TEXT,
    JSON | st.sampled_from(['fake-hardware', NODE_UUID,
                            NODE_UUID.upper(), 'detail', 'n\n', 'fake',
                            'True', 'false', 'Rack-7', 'rack\n', 'Node_1',
                            {'links': [], 'networks': [], 'services': []},
                            {'links': [{'bond_key': 'x'}], 'networks': [],
                             'services': []}]),
    max_size=5)

#: Bodies of PUT .../states/power, .../states/raid and .../maintenance.
ACTION_BODIES = (
    st.fixed_dictionaries(
        {'target': st.sampled_from(['power on', 'power off', 'rebooting',
                                    'soft power off', 'soft rebooting',
                                    'off']) | JSON},
        optional={'timeout': st.integers(-1, 2 ** 40) | JSON,
                  'junk': JSON})
    | st.fixed_dictionaries(
        {'logical_disks': st.lists(st.fixed_dictionaries(
            {'size_gb': st.sampled_from([1, 'MAX', 0, -1, '1']) | JSON,
             'raid_level': st.sampled_from(['1', '5', '1+0', '7']) | JSON},
            optional={'is_root_volume': JSON, 'controller': JSON,
                      'physical_disks': JSON, 'junk': JSON}), max_size=3)
         | JSON}, optional={'junk': JSON})
    | st.fixed_dictionaries({}, optional={'reason': JSON | _TEXT,
                                          'junk': JSON})
    | JSON)

RAW_BODIES = st.sampled_from([
    b'', b'[' * 3000, b'{"a": NaN}', b'{"a": 1e999}', b'{"a":1,"a":2}',
    b'"\\ud800"', b'\xff\xfe', b'{', b'null', b'[]', b'{}'])

IDENTS = st.sampled_from([
    NODE, NODE_UUID, NODE_UUID.upper(), 'detail', '12', 'n%0A',
    'no-such-node', '%20', 'fake-hardware', 'x' * 300, TRAIT, TRAIT + '%0A',
    'HW_CPU_X86_VMX', TEMPLATE, TEMPLATE + '%0A', TEMPLATE_UUID,
    TEMPLATE_UUID.upper(), '%7B' + TEMPLATE_UUID + '%7D',
    TEMPLATE_UUID + '%0A', 'test-conductor', 'Node_1', 'node.1']
) | st.text(min_size=1, max_size=10).map(
    lambda text: urllib.parse.quote(text, safe=''))

_PARAMS = st.sampled_from(['limit', 'marker', 'sort_key', 'sort_dir',
                           'fields', 'detail', 'driver', 'maintenance',
                           'provision_state', 'resource_class', 'type',
                           'agent_version', 'node_uuid', 'addresses',
                           'associated', 'conductor', 'conductor_group',
                           'owner', 'lessee', 'fault', 'retired',
                           'description_contains', 'instance_uuid',
                           'reset_interfaces', 'reason']) | _TEXT
_PARAM_VALUES = (_TEXT | st.sampled_from([
    '1', ' 1', '+1', '1_0', '\uff11', '0', '-1', NODE_UUID,
    NODE_UUID.upper() + '\n', 'maintenance', 'name', 'driver_info', 'id',
    'asc', 'desc', 'true', 'uuid,name', 'driver_info,extra', TEMPLATE_UUID,
    TEMPLATE_UUID.upper(), AGENT_NODE_UUID, AGENT_NODE_UUID.upper(),
    AGENT_NODE_UUID + '\n', 'steps', 'updated_at', 'name,steps', 'traits',
    'protected', 'retired', 'automated_clean', 'conductor', 'chassis_uuid',
    'network_data', 'hostname', 'alive', 'test-conductor', 'power failure',
    '%', '_', 'hostname,drivers', 'conductor_group,conductor']))
QUERIES = st.lists(st.tuples(_PARAMS, _PARAM_VALUES), max_size=4)

HEADERS = st.dictionaries(
    st.sampled_from([versions.HEADER, versions.GENERIC_HEADER,
                     'Content-Type', 'X-Roles', 'X-User-Id', 'Accept']),
    st.sampled_from(['1.44', '1.11', 'latest', '1.99', '2.0', 'baremetal '
                     '1.31', 'junk', '', 'application/json', 'admin',
                     '1.37', '1.54', '1.55', '1.62', '1.69', '1.1', '1.4',
                     '1.5', '1.8', '1.9', '1.12', '1.48', '1.49',
                     '1.' + '9' * 5000])
    | st.text(st.characters(codec='latin-1', exclude_categories=['Cc']),
              max_size=12),
    max_size=3)

_ROUTE_PARAM = re.compile(r'<([^>]+)>')

#: The nodes every example finds: {uuid: (name, traits, {field: value})}.
NODES = {
    NODE_UUID: (NODE, [TRAIT], dict(
        driver_info={'ipmi_password': SECRETS[0],
                     'ipmi_address': '10.0.0.1',
                     'nested': {'api_token': SECRETS[1]},
                     'bmc_pw': SECRETS[2], 'passwd': SECRETS[2],
                     'deploy_iso': 'https://root:%s@10.0.0.1/d.iso'
                                   % SECRETS[5],
                     'bios_settings': [{'name': 'AdminPassword',
                                        'value': SECRETS[7]}]},
        instance_info=INSTANCE_INFO,
        last_error='Download of %s failed' % SIGNED_URL,
        driver_internal_info={'agent_secret_token': SECRETS[1]},
        network_data={'links': [{'id': 'bond0', 'bond_key': SECRETS[0]}],
                      'networks': [], 'services': []},
        maintenance=False, maintenance_reason=None, retired=False,
        retired_reason=None)),
    AGENT_NODE_UUID: (AGENT_NODE, [], dict(
        provision_state=states.DEPLOYWAIT,
        target_provision_state=states.ACTIVE,
        instance_info=INSTANCE_INFO,
        driver_internal_info={'agent_secret_token': SECRETS[1]})),
}
#: The template every example finds (TEMPLATE_UUID).
_TEMPLATE_FIELDS = dict(name=TEMPLATE, steps=TEMPLATE_STEPS, extra={})
#: What requests can write of a node.
_WRITABLE_NODE_FIELDS = ((node_schema.UPDATE_FIELDS
                          - node_view.COMPUTED_FIELDS) | {'traits'})
#: What a snapshot reads of each node.
_SNAPSHOT_NODE_FIELDS = (_WRITABLE_NODE_FIELDS
                         | {'uuid', 'name', 'reservation'}
                         | {field for _, _, fields in NODES.values()
                            for field in fields})


class PropertiesTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        self.routes = sorted(
            (method, rule.rule) for rule in self.app.url_map.iter_rules()
            for method in rule.methods - {'OPTIONS', 'HEAD'})
        self.ensure_state(self.snapshot())

    def tearDown(self):
        for secret in SECRETS:
            self.assertNotIn(secret, self.logs.output)
        super().tearDown()

    def ensure_state(self, snapshot):
        """The nodes and the template with secrets, as they were, whatever
        earlier examples did; whether anything had to be done (``snapshot``,
        of :meth:`snapshot`, shows most examples left everything as it
        was)."""
        if self.as_it_was(snapshot):
            return False
        for uuid, (name, traits, fields) in NODES.items():
            self.ensure_node(name, uuid, traits, fields)
        self.ensure_template()
        return True

    def as_it_was(self, snapshot):
        """Whether ``snapshot`` shows the nodes and the template as
        :meth:`ensure_state` leaves them, the nodes unlocked."""
        nodes, templates = snapshot
        for uuid, (name, traits, fields) in NODES.items():
            row = nodes.get(uuid)
            if (row is None or row['reservation'] or row['name'] != name
                    or row['traits'] != sorted(traits)
                    or any(row[field] != value
                           for field, value in fields.items())):
                return False
        template = templates.get(TEMPLATE_UUID)
        return template is not None and all(
            template[field] == value
            for field, value in _TEMPLATE_FIELDS.items())

    def ensure_node(self, name, uuid, traits, fields):
        try:
            node = self.unlocked(uuid)
        except exception.NodeNotFound:
            node = self.create_node(name=name, uuid=uuid)
            self.record_what_ran(node)
        fields = dict(fields, name=name)
        for field, value in fields.items():
            if node[field] != value:
                node[field] = value
        if node.obj_what_changed():
            node.save()
        if node.traits != traits:
            node.set_traits(traits)

    def unlocked(self, uuid, timeout=10):
        """The node, once work an earlier example started (a power action
        clearing ``last_error``) has let go of it."""
        deadline = time.monotonic() + timeout
        node = objects.Node.get(self.context, uuid)
        while node.reservation and time.monotonic() < deadline:
            time.sleep(0.01)
            node = objects.Node.get(self.context, uuid)
        return node

    def record_what_ran(self, node):
        """BIOS settings and a step history holding secrets, as a BMC
        reports them and an older release recorded them (unmasked)."""
        objects.BIOSSetting.replace_all(self.context, node.id, {
            'AdminPassword': SECRETS[7], 'BootMode': 'Uefi'})
        now = timeutils.utcnow(with_timezone=True)
        objects.NodeStepHistory(
            self.context, node_id=node.id, flow='deploy',
            flow_run=uuidutils.generate_uuid(), started_at=now,
            finished_at=now, outcome='failed',
            error='Download of %s failed' % SIGNED_URL,
            interface='bios', step='apply_configuration', priority=95,
            args={'settings': [{'name': 'AdminPassword',
                                'value': SECRETS[7]}],
                  'bmc_pw': SECRETS[2]}).create()

    def ensure_template(self):
        fields = _TEMPLATE_FIELDS
        try:
            template = objects.DeployTemplate.get_by_uuid(self.context,
                                                          TEMPLATE_UUID)
        except exception.DeployTemplateNotFound:
            try:
                # Another template took the name meanwhile.
                objects.DeployTemplate.get_by_name(self.context,
                                                   TEMPLATE).destroy()
            except exception.DeployTemplateNotFound:
                pass
            objects.DeployTemplate(self.context, uuid=TEMPLATE_UUID,
                                   **fields).create()
            return
        changed = False
        for field, value in fields.items():
            if template[field] != value:
                template[field] = value
                changed = True
        if changed:
            template.save()

    def snapshot(self):
        """(nodes, templates): every node's row as stored ({uuid: {column:
        value}}: what requests can write, and what ensure_state sets),
        every template's fields ({uuid: {field: value}})."""
        # Rows, traits included, in one query: examples create nodes, and
        # a Node object per node would read its traits in a query of its
        # own, twice an example.
        nodes = {row.uuid: row._asdict() for row in objects.Node.list_fields(
            self.context, sorted(_SNAPSHOT_NODE_FIELDS))}
        templates = {template.uuid: {field: template[field]
                                     for field in template_view.FIELDS}
                     for template in objects.DeployTemplate.list(
                         self.context)}
        return nodes, templates

    @staticmethod
    def written(snapshot):
        """What requests can write, of every node and template."""
        nodes, templates = snapshot
        return ({uuid: {field: row[field] for field in _WRITABLE_NODE_FIELDS}
                 for uuid, row in nodes.items()}, templates)

    def check(self, method, path, **kwargs):
        snapshot = self.snapshot()
        if self.ensure_state(snapshot):
            snapshot = self.snapshot()
        before = self.written(snapshot)
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
            self.assertEqual(before, self.written(self.snapshot()),
                             '%s %s %r changed nodes or templates' % (
                                 method, path, kwargs))
        return response

    def path_of(self, rule, idents):
        """``rule`` with its parameters replaced by ``idents``, in order."""
        idents = iter(idents)
        return _ROUTE_PARAM.sub(lambda _: next(idents), rule)

    @SETTINGS
    @given(data=st.data(), idents=st.lists(IDENTS, min_size=2, max_size=2),
           body=(JSON | NODE_BODIES | PATCHES | TEMPLATE_BODIES
                 | TEMPLATE_PATCHES | TRAIT_BODIES | ACTION_BODIES),
           query=QUERIES, headers=HEADERS)
    def test_every_route_with_any_json_query_and_headers(self, data, idents,
                                                         body, query,
                                                         headers):
        method, rule = data.draw(st.sampled_from(self.routes))
        self.check(method, self.path_of(rule, idents), json=body,
                   query_string=query, headers=headers,
                   version=None if versions.HEADER in headers else
                   base.LATEST)

    @SETTINGS
    @given(data=st.data(), idents=st.lists(IDENTS, min_size=2, max_size=2),
           raw=RAW_BODIES)
    def test_every_route_with_malformed_bodies(self, data, idents, raw):
        method, rule = data.draw(st.sampled_from(self.routes))
        self.check(method, self.path_of(rule, idents), data=raw,
                   content_type='application/json')

    @SETTINGS
    @given(patch=PATCHES, ident=st.sampled_from([NODE, NODE_UUID.upper()]))
    def test_json_patches_on_a_node_with_secrets(self, patch, ident):
        self.check('PATCH', '/v1/nodes/%s' % ident, json=patch)

    @fewer(1000)
    @given(patch=TEMPLATE_PATCHES,
           ident=st.sampled_from([TEMPLATE, TEMPLATE_UUID.upper()]))
    def test_json_patches_on_a_template_with_secrets(self, patch, ident):
        self.check('PATCH', '/v1/deploy_templates/%s' % ident, json=patch)

    @SETTINGS
    @given(body=NODE_BODIES)
    def test_node_creation_with_any_fields(self, body):
        self.check('POST', '/v1/nodes', json=body)

    @fewer(600)
    @given(body=ACTION_BODIES,
           path=st.sampled_from(['states/power', 'states/raid',
                                 'maintenance']),
           method=st.sampled_from(['PUT', 'PUT', 'DELETE']),
           ident=st.sampled_from([NODE, NODE_UUID.upper(), AGENT_NODE]),
           version=st.sampled_from([base.LATEST, '1.1', '1.11', '1.27']))
    def test_node_actions_with_any_body(self, body, path, method, ident,
                                        version):
        self.check(method, '/v1/nodes/%s/%s' % (ident, path), json=body,
                   version=version)

    @fewer(500)
    @given(body=TEMPLATE_BODIES | JSON)
    def test_template_creation_with_any_fields(self, body):
        self.check('POST', '/v1/deploy_templates', json=body)

    @fewer(400)
    @given(body=TRAIT_BODIES, trait=_TRAITS,
           method=st.sampled_from(['PUT', 'DELETE']))
    def test_node_traits_with_any_body(self, body, trait, method):
        self.check(method, '/v1/nodes/%s/traits' % NODE, json=body)
        self.check(method, '/v1/nodes/%s/traits/%s' % (
            NODE, urllib.parse.quote(trait, safe='')))

    @SETTINGS
    @given(query=QUERIES, path=st.sampled_from([
        '/v1/nodes', '/v1/nodes/detail', '/v1/drivers',
        '/v1/deploy_templates', '/v1/deploy_templates/detail',
        '/v1/nodes/%s/traits' % NODE, '/v1/lookup', '/v1/conductors',
        '/v1/nodes/%s/states' % NODE, '/v1/nodes/%s/validate' % NODE,
        '/v1/drivers/fake-hardware/properties',
        '/v1/nodes/%s/history' % NODE, '/v1/nodes/%s/bios' % NODE,
        '/v1/nodes/%s/x-steps/history' % NODE]),
        version=st.sampled_from([base.LATEST, 'latest', '1.1', '1.9',
                                 '1.49']))
    def test_collections_with_any_query(self, query, path, version):
        self.check('GET', path, query_string=query, version=version)

    @fewer(300)
    @given(body=st.fixed_dictionaries(
        {}, optional={'callback_url': _TEXT | JSON,
                      'agent_version': _TEXT | JSON,
                      'agent_token': st.just(SECRETS[1][:-1]) | _TEXT | JSON,
                      'junk': JSON}) | JSON,
        ident=st.sampled_from([AGENT_NODE, AGENT_NODE_UUID,
                               AGENT_NODE_UUID.upper()]),
        version=st.sampled_from(['1.22', '1.36', base.LATEST, 'latest']))
    def test_agents_heartbeat_and_look_up_with_anything(self, body, ident,
                                                        version):
        self.check('POST', '/v1/heartbeat/%s' % ident, json=body,
                   version=version)
        response = self.check('GET', '/v1/lookup', version=version,
                              query_string={'node_uuid': AGENT_NODE_UUID})
        self.assertEqual(200, response.status_code, response.data)
