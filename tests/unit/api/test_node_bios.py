"""A node's cached BIOS settings: /v1/nodes/{node}/bios (1.40)."""

import os

import bcrypt
import ddt
import fixtures

from ironic_steps.common import states
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import objects
from tests import base as tests_base
from tests.unit.api import base
from tests.unit.api import test_auth

SETTINGS = {'ProcVirtualization': 'Enabled', 'BootMode': 'Uefi',
            'AssetTag': None}


def links(node_uuid, name):
    path = 'nodes/%s/bios/%s' % (node_uuid, name)
    return [{'href': 'http://localhost/v1/' + path, 'rel': 'self'},
            {'href': 'http://localhost/' + path, 'rel': 'bookmark'}]


def time_of(value):
    return None if value is None else value.isoformat()


class _Cache:

    def cache(self, node, settings):
        return {s.name: s for s in objects.BIOSSetting.replace_all(
            self.context, node.id, settings)}

    def body_of(self, node, setting):
        """A setting's body as Ironic shows it up to 1.73."""
        return {'created_at': time_of(setting.created_at),
                'updated_at': time_of(setting.updated_at),
                'name': setting.name, 'value': setting.value,
                'links': links(node.uuid, setting.name)}


@ddt.ddt
class NodeBiosTest(_Cache, base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def test_a_node_without_cached_settings_lists_none(self):
        response = self.get('/v1/nodes/node-1/bios')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual({'bios': []}, response.get_json())

    def test_the_list_shows_every_setting_by_name_in_ironics_shape(self):
        cached = self.cache(self.node, SETTINGS)
        listed = self.get('/v1/nodes/node-1/bios').get_json()
        self.assertEqual({'bios': [
            self.body_of(self.node, cached[name])
            for name in ('AssetTag', 'BootMode', 'ProcVirtualization')]},
            listed)
        first = listed['bios'][0]
        self.assertEqual(['created_at', 'updated_at', 'name', 'value',
                          'links'], list(first))
        self.assertTrue(first['created_at'].endswith('+00:00'))
        self.assertIsNone(first['updated_at'])

    def test_one_setting_is_shown_under_its_name(self):
        cached = self.cache(self.node, SETTINGS)
        response = self.get('/v1/nodes/node-1/bios/BootMode')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(
            {'BootMode': self.body_of(self.node, cached['BootMode'])},
            response.get_json())

    @ddt.data('name', 'uuid', 'upper-case uuid')
    def test_the_node_is_named_by_uuid_or_name_links_by_uuid(self, how):
        cached = self.cache(self.node, {'BootMode': 'Uefi'})
        ident = {'name': 'node-1', 'uuid': self.node.uuid,
                 'upper-case uuid': self.node.uuid.upper()}[how]
        expected = self.body_of(self.node, cached['BootMode'])
        self.assertEqual({'bios': [expected]}, self.get(
            '/v1/nodes/%s/bios' % ident).get_json())
        self.assertEqual({'BootMode': expected}, self.get(
            '/v1/nodes/%s/bios/BootMode' % ident).get_json())

    def test_a_changed_value_shows_when_it_changed(self):
        self.cache(self.node, {'BootMode': 'Bios', 'Other': '1'})
        cached = self.cache(self.node, {'BootMode': 'Uefi', 'Other': '1'})
        shown = {s['name']: s for s in self.get(
            '/v1/nodes/node-1/bios').get_json()['bios']}
        self.assertEqual('Uefi', shown['BootMode']['value'])
        self.assertEqual(time_of(cached['BootMode'].updated_at),
                         shown['BootMode']['updated_at'])
        self.assertIsNotNone(shown['BootMode']['updated_at'])
        self.assertIsNone(shown['Other']['updated_at'])

    def test_the_settings_of_one_node_are_its_own(self):
        other = self.create_node(name='node-2')
        self.cache(self.node, {'BootMode': 'Uefi'})
        self.cache(other, {'BootMode': 'Bios', 'Extra': 'x'})
        listed = self.get('/v1/nodes/node-1/bios').get_json()['bios']
        self.assertEqual([('BootMode', 'Uefi')],
                         [(s['name'], s['value']) for s in listed])

    @ddt.data('/v1/nodes/no-such-node/bios',
              '/v1/nodes/no-such-node/bios/BootMode',
              '/v1/nodes/5d7c3a4e-93b1-4c2f-a0f6-2b8e9d1c7f40/bios',
              '/v1/nodes/42/bios')
    def test_the_settings_of_an_unknown_node_are_404_naming_it(self, url):
        self.cache(self.node, {'BootMode': 'Uefi'})
        ident = url.split('/')[3]
        self.assertError(self.get(url), 404, ident)

    @ddt.data('bootmode', 'NoSuchSetting')
    def test_a_setting_the_node_lacks_is_404_naming_node_and_setting(
            self, name):
        self.cache(self.node, {'BootMode': 'Uefi'})
        message = self.assertError(
            self.get('/v1/nodes/node-1/bios/%s' % name), 404,
            self.node.uuid, "'%s'" % name)
        self.assertIn('/v1/nodes/%s/bios' % self.node.uuid, message)

    def test_an_invalid_node_name_is_400(self):
        self.assertError(self.get('/v1/nodes/a%20b/bios'), 400, 'a b')

    @ddt.data('fields=name', 'detail=true', 'limit=1')
    def test_one_setting_takes_no_query_parameter_as_in_ironic(self, query):
        self.cache(self.node, {'BootMode': 'Uefi'})
        for version in ('1.69', '1.74'):
            self.assertError(self.get('/v1/nodes/node-1/bios/BootMode?'
                                      + query, version=version), 400,
                             query.split('=')[0])

    @ddt.data('limit=1', 'sort_key=name')
    def test_the_list_refuses_other_query_parameters_with_400(self, query):
        for version in ('1.69', '1.74'):
            self.assertError(self.get('/v1/nodes/node-1/bios?' + query,
                                      version=version),
                             400, query.split('=')[0])

    @ddt.data('post', 'put', 'patch', 'delete')
    def test_the_settings_are_read_only(self, method):
        self.cache(self.node, {'BootMode': 'Uefi'})
        for url in ('/v1/nodes/node-1/bios', '/v1/nodes/node-1/bios/BootMode'):
            self.assertError(getattr(self, method)(url, json={}), 405)
        self.assertEqual('Uefi', objects.BIOSSetting.get(
            self.context, self.node.id, 'BootMode').value)

    def test_reading_them_costs_one_query_for_the_node_one_for_them(self):
        self.cache(self.node, SETTINGS)
        with tests_base.SQLStatements() as recorded:
            self.get('/v1/nodes/node-1/bios')
        self.assertEqual(['SELECT', 'SELECT'], recorded.verbs())
        with tests_base.SQLStatements() as recorded:
            self.get('/v1/nodes/node-1/bios/BootMode')
        self.assertEqual(['SELECT', 'SELECT'], recorded.verbs())

    def test_a_node_shows_no_bios_link_as_in_ironic(self):
        shown = self.get('/v1/nodes/node-1').get_json()
        self.assertNotIn('bios', shown)
        self.assertIn('states', shown)

    def test_a_deleted_node_takes_its_settings_with_it(self):
        self.cache(self.node, SETTINGS)
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        with sqlalchemy_api.get_engine().connect() as connection:
            self.assertEqual(0, connection.exec_driver_sql(
                'SELECT count(*) FROM bios_settings').scalar())

    def test_a_manual_clean_applying_settings_leaves_them_to_read(self):
        self.provision('node-1', 'manage')
        self.wait_for_state(self.node, states.MANAGEABLE)
        response = self.put(
            '/v1/nodes/node-1/states/provision', json={
                'target': 'clean', 'clean_steps': [
                    {'interface': 'bios', 'step': 'apply_configuration',
                     'args': {'settings': [
                         {'name': 'LogicalProc', 'value': 'Enabled'},
                         {'name': 'BootMode', 'value': 'Uefi'}]}}]})
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(self.node, states.MANAGEABLE)
        listed = self.get('/v1/nodes/node-1/bios').get_json()['bios']
        self.assertEqual([('BootMode', 'Uefi'), ('LogicalProc', 'Enabled')],
                         [(s['name'], s['value']) for s in listed])
        self.assertEqual('Enabled', self.get(
            '/v1/nodes/node-1/bios/LogicalProc').get_json()[
                'LogicalProc']['value'])
        # From 1.74 the fake BMC's registry describes them.
        shown = self.get('/v1/nodes/node-1/bios/BootMode',
                         version='1.74').get_json()['BootMode']
        self.assertEqual(('Enumeration', ['Uefi', 'Bios'], True),
                         (shown['attribute_type'], shown['allowable_values'],
                          shown['reset_required']))


@ddt.ddt
class NodeBiosVersionsTest(_Cache, base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')
        self.cache(self.node, {'BootMode': 'Uefi'})

    @ddt.data(('1.39', '/v1/nodes/node-1/bios'),
              ('1.39', '/v1/nodes/node-1/bios/BootMode'),
              ('1.5', '/v1/nodes/node-1/bios'),
              (None, '/v1/nodes/%s/bios'))
    @ddt.unpack
    def test_below_1_40_the_endpoints_do_not_exist(self, version, url):
        if '%s' in url:
            url %= self.node.uuid
        response = self.get(url, version=version)
        self.assertError(response, 404, '1.40', version or '1.1')

    @ddt.data('1.40', '1.55', '1.69', 'latest')
    def test_from_1_40_they_look_the_same(self, version):
        listed = self.get('/v1/nodes/node-1/bios', version=version)
        self.assertEqual(200, listed.status_code, listed.data)
        self.assertEqual(['BootMode'],
                         [s['name'] for s in listed.get_json()['bios']])
        shown = self.get('/v1/nodes/node-1/bios/BootMode', version=version)
        self.assertEqual('Uefi', shown.get_json()['BootMode']['value'])

    @ddt.data(('1.40', '/v1/nodes/node-1/bios'),
              ('1.69', '/v1/nodes/node-1/bios'),
              ('1.69', '/v1/nodes/node-1/bios/BootMode'),
              ('1.69', '/v1/nodes/no-such-node/bios'))
    @ddt.unpack
    def test_pinned_to_0_3_they_are_refused_with_406(self, version, url):
        self.config(pin_release_version='0.3')
        self.make_client()
        self.assertError(self.get(url, version=version), 406,
                         'BIOS settings', '0.4', '0.3')
        # The rest of the node API is as it was.
        self.assertEqual(200, self.get('/v1/nodes/node-1',
                                       version=version).status_code)

    def test_pinned_to_0_3_below_1_40_they_still_do_not_exist(self):
        self.config(pin_release_version='0.3')
        self.assertError(self.get('/v1/nodes/node-1/bios', version='1.39'),
                         404, '1.40')

    def test_unpinned_they_are_back(self):
        self.config(pin_release_version='0.3')
        self.assertError(self.get('/v1/nodes/node-1/bios'), 406)
        self.config(pin_release_version=None)
        self.assertEqual(['BootMode'], [s['name'] for s in self.get(
            '/v1/nodes/node-1/bios').get_json()['bios']])


REGISTRY = {'attribute_type': 'Enumeration',
            'allowable_values': ['Uefi', 'Bios'], 'lower_bound': None,
            'max_length': None, 'min_length': None, 'read_only': False,
            'reset_required': True, 'unique': False, 'upper_bound': None}
#: What a setting without known facts shows of them (as Ironic).
UNKNOWN = dict(dict.fromkeys(REGISTRY), allowable_values=[])
REGISTRY_SETTINGS = {
    'BootMode': dict(REGISTRY, value='Uefi'),
    'PowerOnDelay': {'value': '0', 'attribute_type': 'Integer',
                     'lower_bound': 0, 'upper_bound': 120},
    'AssetTag': None,
}


@ddt.ddt
class NodeBiosRegistryTest(_Cache, base.ApiTestCase):
    """1.74: the registry facts, ?detail and ?fields."""

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')
        self.cached = self.cache(self.node, REGISTRY_SETTINGS)

    def listed(self, query='', version='1.74'):
        response = self.get('/v1/nodes/node-1/bios' + query, version=version)
        self.assertEqual(200, response.status_code, response.data)
        # (by the name their links end with: ?fields may leave it out)
        return {s['links'][0]['href'].rsplit('/', 1)[1]: s
                for s in response.get_json()['bios']}

    def detailed_body(self, name, facts):
        return dict(self.body_of(self.node, self.cached[name]), **facts)

    def test_a_plain_list_shows_what_it_showed_before(self):
        listed = self.listed()
        self.assertEqual(self.body_of(self.node, self.cached['BootMode']),
                         listed['BootMode'])
        self.assertEqual(['created_at', 'updated_at', 'name', 'value',
                          'links'], list(listed['BootMode']))

    @ddt.data('?detail=true', '?detail=True', '?detail=1')
    def test_a_detailed_list_shows_the_registry_facts(self, query):
        listed = self.listed(query)
        self.assertEqual(
            self.detailed_body('BootMode', REGISTRY), listed['BootMode'])
        self.assertEqual(self.detailed_body('PowerOnDelay', dict(
            UNKNOWN, attribute_type='Integer', lower_bound=0,
            upper_bound=120)), listed['PowerOnDelay'])
        self.assertEqual(self.detailed_body('AssetTag', UNKNOWN),
                         listed['AssetTag'])

    def test_detail_false_is_a_plain_list(self):
        self.assertEqual(self.listed(), self.listed('?detail=false'))

    def test_fields_selects_them_with_the_times_as_ironic_does(self):
        listed = self.listed('?fields=name,read_only,allowable_values')
        setting = self.cached['BootMode']
        self.assertEqual({
            'created_at': setting.created_at.isoformat(), 'updated_at': None,
            'name': 'BootMode', 'read_only': False,
            'allowable_values': ['Uefi', 'Bios'],
            'links': links(self.node.uuid, 'BootMode')}, listed['BootMode'])
        self.assertEqual(['created_at', 'updated_at', 'name', 'read_only',
                          'allowable_values', 'links'],
                         list(listed['BootMode']))
        # (as the client asks it: ?detail=False beside ?fields)
        self.assertEqual(
            {'created_at', 'updated_at', 'upper_bound', 'links'},
            set(self.listed('?detail=False&fields=upper_bound')[
                'PowerOnDelay']))

    def test_one_setting_shows_every_field_from_1_74(self):
        shown = self.get('/v1/nodes/node-1/bios/BootMode',
                         version='1.74').get_json()
        self.assertEqual({'BootMode': self.detailed_body('BootMode',
                                                         REGISTRY)}, shown)
        below = self.get('/v1/nodes/node-1/bios/BootMode',
                         version='1.73').get_json()
        self.assertEqual({'BootMode': self.body_of(
            self.node, self.cached['BootMode'])}, below)

    @ddt.data(('?fields=name,colour', ['colour', 'attribute_type']),
              ('?fields=', ["''"]),
              ('?fields=links', ['links']),
              ('?detail=true&fields=name', ['?fields', 'detailed']),
              ('?detail=maybe', ['detail', "'maybe'"]),
              ('?limit=5', ['limit', 'detail, fields']))
    @ddt.unpack
    def test_bad_list_queries_are_400_naming_the_problem(self, query,
                                                         words):
        self.assertError(self.get('/v1/nodes/node-1/bios' + query,
                                  version='1.74'), 400, *words)

    @ddt.data(('?detail=true', '?detail'), ('?fields=name', '?fields'),
              ('?detail=false', '?detail'),
              ('?fields=read_only&detail=false', '?detail and ?fields'))
    @ddt.unpack
    def test_below_1_74_detail_and_fields_are_406(self, query, named):
        for version in ('1.40', '1.73'):
            self.assertError(self.get('/v1/nodes/node-1/bios' + query,
                                      version=version),
                             406, named, 'needs API version 1.74', version)

    def test_below_1_74_no_registry_fact_is_shown(self):
        for version in ('1.40', '1.73'):
            for setting in self.listed(version=version).values():
                self.assertEqual(set(), set(REGISTRY) & set(setting))

    def test_passwords_stay_masked_in_every_view(self):
        self.cached = self.cache(self.node, {
            'AdminPassword': 'hunter2',
            'BmcKey': {'value': 's3cr3t', 'attribute_type': 'Password',
                       'max_length': 32},
            'BootMode': dict(REGISTRY, value='Uefi')})
        for query in ('', '?detail=true', '?fields=value,attribute_type'):
            listed = self.listed(query)
            self.assertEqual('******', listed['AdminPassword']['value'])
            self.assertEqual('******', listed['BmcKey']['value'])
            self.assertEqual('Uefi', listed['BootMode']['value'])
        shown = self.get('/v1/nodes/node-1/bios/BmcKey',
                         version='1.74').get_json()['BmcKey']
        self.assertEqual(('******', 'Password', 32), (
            shown['value'], shown['attribute_type'], shown['max_length']))
        response = self.get('/v1/nodes/node-1/bios?detail=true',
                            version='1.74')
        self.assertNotIn(b'hunter2', response.data)
        self.assertNotIn(b's3cr3t', response.data)

    def test_a_detailed_list_costs_the_same_two_queries(self):
        with tests_base.SQLStatements() as recorded:
            self.listed('?detail=true')
        self.assertEqual(['SELECT', 'SELECT'], recorded.verbs())

    def test_pinned_to_0_9_the_maximum_is_1_69_and_no_fact_is_saved(self):
        # Given services pinned to release 0.9 (BIOSSetting 1.0)
        self.config(pin_release_version='0.9')
        self.make_client()
        # Then 1.74 is refused, the latest is 1.69, without the facts
        self.assertError(self.get('/v1/nodes/node-1/bios', version='1.74'),
                         406, '1.74', '1.69')
        latest = self.listed(version='latest')
        self.assertEqual(set(), set(REGISTRY) & set(latest['BootMode']))
        self.assertError(self.get('/v1/nodes/node-1/bios?detail=true',
                                  version='latest'), 406, '?detail', '1.74')
        # and settings cached while pinned keep no facts
        self.cached = self.cache(self.node, {
            'BootMode': dict(REGISTRY, value='Bios', read_only=True),
            'NumCores': {'value': '8', 'read_only': True}})
        self.config(pin_release_version=None)
        self.make_client()
        listed = self.listed('?detail=true')
        self.assertEqual('Bios', listed['BootMode']['value'])
        self.assertFalse(listed['BootMode']['read_only'])
        self.assertEqual(UNKNOWN, {f: listed['NumCores'][f]
                                   for f in REGISTRY})


@ddt.ddt
class NodeBiosPolicyTest(_Cache, base.ApiTestCase):
    """Readers read a node's BIOS settings (baremetal:node:bios:get)."""

    def setUp(self):
        super().setUp()
        self.users = self.useFixture(_BasicUsers(self))
        self.node = self.create_node(name='node-1')
        self.cache(self.node, {'BootMode': 'Uefi'})

    @ddt.data(('rita', '/v1/nodes/node-1/bios'),
              ('rita', '/v1/nodes/node-1/bios/BootMode'),
              ('alice', '/v1/nodes/node-1/bios'),
              ('alice', '/v1/nodes/node-1/bios/BootMode'))
    @ddt.unpack
    def test_readers_and_administrators_read_them(self, user, url):
        response = self.users.request(user, 'GET', url)
        self.assertEqual(200, response.status_code, response.data)

    def test_without_credentials_it_is_401(self):
        self.assertError(self.get('/v1/nodes/node-1/bios'), 401)

    def test_a_policy_that_denies_the_rule_is_403_naming_it(self):
        # Given a reader who reads the settings
        self.assertEqual(200, self.users.request(
            'rita', 'GET', '/v1/nodes/node-1/bios').status_code)
        # When the operator keeps them for administrators
        directory = self.useFixture(fixtures.TempDir()).path
        policy_file = os.path.join(directory, 'policy.yaml')
        with open(policy_file, 'w') as rules:
            rules.write('"baremetal:node:bios:get": "role:admin"\n')
        self.config(policy_file=policy_file, group='oslo_policy')
        self.make_client()
        # Then the reader is refused, and told which rule refused
        for url in ('/v1/nodes/node-1/bios',
                    '/v1/nodes/node-1/bios/BootMode'):
            self.assertError(self.users.request('rita', 'GET', url), 403,
                             'baremetal:node:bios:get', 'reader')
            self.assertEqual(200, self.users.request('alice', 'GET',
                                                     url).status_code)


class _BasicUsers(fixtures.Fixture):
    """test_auth's htpasswd users (alice: admin, rita: reader) on the
    test's API."""

    def __init__(self, test):
        super().__init__()
        self.test = test

    def _setUp(self):
        directory = self.useFixture(fixtures.TempDir()).path
        htpasswd = os.path.join(directory, 'htpasswd')
        with open(htpasswd, 'w') as users:
            for user, password in test_auth.USERS.items():
                hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(4))
                users.write('%s:%s\n' % (user, hashed.decode()))
        self.test.config(auth_strategy='http_basic')
        self.test.config(http_basic_auth_user_file=htpasswd,
                         reader_users=['rita'], group='api')
        self.test.make_client()

    def request(self, user, method, path, **kwargs):
        return self.test.request(method, path, headers=test_auth.basic(
            user, test_auth.USERS[user]), **kwargs)
