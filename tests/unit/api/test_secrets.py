"""Secrets never leave the server: not shown, not tested, not copied,
not in an error message, not in a log line."""

import logging

import ddt
import fixtures

from ironic_steps import objects
from tests.unit.api import base

SECRET = 'hunter2-the-bmc-password'
TOKEN = 'tok-4f1c9e-agent-token'


@ddt.ddt
class SecretsTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        self.api_create(name='node-1', driver_info={
            'ipmi_password': SECRET, 'ipmi_address': '10.0.0.9',
            'nested': {'auth': {'api_token': TOKEN}}})
        self.before = dict(objects.Node.get(self.context, 'node-1'))

    def assertNoSecret(self, response):
        for text in (response.get_data(as_text=True), self.logs.output):
            self.assertNotIn(SECRET, text)
            self.assertNotIn(TOKEN, text)

    def assertRefusedUnchanged(self, patch, *fragments):
        response = self.patch('/v1/nodes/node-1', json=patch)
        self.assertError(response, 400, *fragments)
        self.assertNoSecret(response)
        self.assertEqual(self.before,
                         dict(objects.Node.get(self.context, 'node-1')))
        return response

    def test_secrets_are_shown_masked(self):
        for path in ('/v1/nodes/node-1', '/v1/nodes/detail',
                     '/v1/nodes/node-1?fields=driver_info'):
            response = self.get(path)
            self.assertEqual(200, response.status_code)
            self.assertNoSecret(response)
            self.assertIn('******', response.get_data(as_text=True))

    @ddt.data('x', SECRET)
    def test_a_test_operation_on_a_secret_is_refused_whatever_the_value(
            self, value):
        self.assertRefusedUnchanged(
            [{'op': 'test', 'path': '/driver_info/ipmi_password',
              'value': value}], 'test a secret')

    def test_a_test_operation_on_a_dict_holding_secrets_is_refused(self):
        self.assertRefusedUnchanged(
            [{'op': 'test', 'path': '/driver_info', 'value': {}}],
            'test a secret')
        self.assertRefusedUnchanged(
            [{'op': 'test', 'path': '/driver_info/nested/auth',
              'value': {}}], 'test a secret')

    def test_a_test_operation_on_a_plain_field_still_works(self):
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'test', 'path': '/driver_info/ipmi_address',
             'value': '10.0.0.9'},
            {'op': 'add', 'path': '/extra/checked', 'value': True}])
        self.assertEqual(200, response.status_code, response.data)
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'test', 'path': '/driver_info/ipmi_address',
             'value': '10.9.9.9'}])
        self.assertError(response, 400, 'not the value tested')

    @ddt.data(('copy', '/driver_info/ipmi_password', '/extra/leak'),
              ('move', '/driver_info/ipmi_password', '/extra/leak'),
              ('copy', '/driver_info/ipmi_password', '/name'),
              ('move', '/driver_info/ipmi_password', '/maintenance'),
              ('copy', '/driver_info', '/extra/all'),
              ('copy', '/driver_info/nested', '/properties/n'),
              ('move', '/driver_info/nested/auth/api_token',
               '/driver_info/plain'),
              ('copy', '/driver_info/ipmi_password/0', '/extra/x'))
    @ddt.unpack
    def test_a_secret_cannot_be_copied_or_moved(self, op, source, path):
        self.assertRefusedUnchanged(
            [{'op': op, 'from': source, 'path': path}], 'secret')

    @ddt.data('/driver_info/missing/x', '/driver_info/ipmi_password/x',
              '/driver_info/nested/auth/api_token/x',
              '/driver_info/ipmi_address/0')
    def test_an_operation_that_does_not_apply_never_quotes_the_node(
            self, path):
        self.assertRefusedUnchanged(
            [{'op': 'add', 'path': path, 'value': 1}], 'cannot be applied')

    def test_a_missing_path_is_named_without_the_values_around_it(self):
        response = self.assertRefusedUnchanged(
            [{'op': 'remove', 'path': '/driver_info/nope'}])
        self.assertIn('/driver_info/nope does not exist',
                      self.fault(response)['faultstring'])

    def test_secrets_can_still_be_set_replaced_and_removed(self):
        for patch in ([{'op': 'replace', 'path': '/driver_info/ipmi_password',
                        'value': 'new'}],
                      [{'op': 'add', 'path': '/driver_info/redfish_password',
                        'value': 'other'}],
                      [{'op': 'remove',
                        'path': '/driver_info/nested/auth/api_token'}]):
            response = self.patch('/v1/nodes/node-1', json=patch)
            self.assertEqual(200, response.status_code, response.data)
            self.assertNoSecret(response)
        stored = objects.Node.get(self.context, 'node-1').driver_info
        self.assertEqual('new', stored['ipmi_password'])
        self.assertEqual('other', stored['redfish_password'])
        self.assertEqual({}, stored['nested']['auth'])

    def test_a_refused_type_never_quotes_a_secret(self):
        self.assertRefusedUnchanged(
            [{'op': 'replace', 'path': '/driver_info', 'value': 5}],
            'driver_info')
        response = self.assertRefusedUnchanged(
            [{'op': 'replace', 'path': '/driver_info',
              'value': [{'ipmi_password': 'typed-by-mistake'}]}],
            'driver_info', 'expected object or null')
        self.assertNotIn('typed-by-mistake', response.get_data(as_text=True))


#: Network metadata with a bond whose settings hold a credential.
NETWORK_DATA = {'links': [{'id': 'bond0', 'type': 'bond',
                           'bond_key': SECRET, 'mtu': 9000}],
                'networks': [{'id': 'n0', 'link': 'bond0'}],
                'services': []}


@ddt.ddt
class NetworkDataSecretsTest(base.ApiTestCase):
    """``network_data`` is free-form below its three lists, so it may hold
    credentials: masked and write-only like ``driver_info``."""

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'node-1',
            'network_data': NETWORK_DATA})
        self.assertEqual(201, response.status_code, response.data)
        self.assertNotIn(SECRET, response.get_data(as_text=True))
        self.before = dict(objects.Node.get(self.context, 'node-1'))

    def assertNoSecret(self, response):
        for text in (response.get_data(as_text=True), self.logs.output):
            self.assertNotIn(SECRET, text)

    def test_a_secret_is_shown_masked_and_the_rest_as_it_is(self):
        for path in ('/v1/nodes/node-1', '/v1/nodes/detail',
                     '/v1/nodes/node-1?fields=network_data'):
            response = self.get(path)
            self.assertEqual(200, response.status_code)
            self.assertNoSecret(response)
        shown = self.get('/v1/nodes/node-1').get_json()['network_data']
        self.assertEqual(dict(NETWORK_DATA['links'][0], bond_key='******'),
                         shown['links'][0])
        self.assertEqual(NETWORK_DATA['networks'], shown['networks'])
        self.assertEqual(NETWORK_DATA, objects.Node.get(
            self.context, 'node-1').network_data)

    @ddt.data([{'op': 'test', 'path': '/network_data/links/0/bond_key',
                'value': SECRET}],
              [{'op': 'test', 'path': '/network_data/links/0',
                'value': {}}],
              [{'op': 'copy', 'from': '/network_data/links/0/bond_key',
                'path': '/extra/leak'}],
              [{'op': 'move', 'from': '/network_data/links',
                'path': '/description'}])
    def test_a_secret_cannot_be_tested_copied_or_moved(self, patch):
        response = self.patch('/v1/nodes/node-1', json=patch)
        self.assertError(response, 400, 'secret')
        self.assertNoSecret(response)
        self.assertEqual(self.before,
                         dict(objects.Node.get(self.context, 'node-1')))

    def test_a_refused_value_never_quotes_a_secret(self):
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'remove', 'path': '/network_data/services'}])
        self.assertError(response, 400, 'network_data')
        self.assertNoSecret(response)

    def test_it_can_still_be_replaced(self):
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/network_data/links/0/bond_key',
             'value': 'new'}])
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('new', objects.Node.get(
            self.context, 'node-1').network_data['links'][0]['bond_key'])


#: A deploy template whose first step's arguments hold credentials.
TEMPLATE = {'name': 'CUSTOM_FIRMWARE', 'extra': {}, 'steps': [
    {'interface': 'management', 'step': 'update_firmware', 'priority': 10,
     'args': {'bmc_password': SECRET, 'level': 5,
              'auth': {'api_token': TOKEN}}},
    {'interface': 'bios', 'step': 'apply_configuration', 'priority': 5,
     'args': {'settings': []}}]}


@ddt.ddt
class TemplateSecretsTest(base.ApiTestCase):
    """The same rules for the secrets in a deploy template's step
    arguments: write-only through every door."""

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        response = self.post('/v1/deploy_templates', json=TEMPLATE)
        self.assertEqual(201, response.status_code, response.data)
        self.assertNoSecret(response)
        self.before = self.stored()

    def stored(self):
        template = objects.DeployTemplate.get_by_name(self.context,
                                                      'CUSTOM_FIRMWARE')
        return {field: template[field] for field in ('name', 'steps',
                                                     'extra')}

    def assertNoSecret(self, response):
        for text in (response.get_data(as_text=True), self.logs.output):
            self.assertNotIn(SECRET, text)
            self.assertNotIn(TOKEN, text)

    def assertRefusedUnchanged(self, patch, *fragments):
        response = self.patch('/v1/deploy_templates/CUSTOM_FIRMWARE',
                              json=patch)
        self.assertError(response, 400, *fragments)
        self.assertNoSecret(response)
        self.assertEqual(self.before, self.stored())
        return response

    def test_secrets_are_shown_masked(self):
        for path in ('/v1/deploy_templates/CUSTOM_FIRMWARE',
                     '/v1/deploy_templates/detail',
                     '/v1/deploy_templates?fields=steps'):
            response = self.get(path)
            self.assertEqual(200, response.status_code)
            self.assertNoSecret(response)
            self.assertIn('******', response.get_data(as_text=True))

    def test_a_step_of_a_node_shows_its_secret_arguments_masked(self):
        # A step keeps its arguments while it runs, and after it failed:
        # those of a template or of a request, credentials included.
        node = self.create_node(name='node-2')
        node.deploy_step = dict(TEMPLATE['steps'][0])
        node.clean_step = dict(TEMPLATE['steps'][0])
        node.save()
        for path in ('/v1/nodes/node-2', '/v1/nodes/detail',
                     '/v1/nodes/node-2?fields=deploy_step,clean_step'):
            response = self.get(path)
            self.assertEqual(200, response.status_code)
            self.assertNoSecret(response)
        shown = self.get('/v1/nodes/node-2').get_json()
        for field in ('deploy_step', 'clean_step'):
            self.assertEqual('******', shown[field]['args']['bmc_password'])
            self.assertEqual(5, shown[field]['args']['level'])

    @ddt.data(('/steps/0/args/bmc_password', 'x'),
              ('/steps/0/args/bmc_password', SECRET),
              ('/steps/0/args/auth', {}),
              ('/steps/0/args', {}),
              ('/steps/0', {}),
              ('/steps', []))
    @ddt.unpack
    def test_a_test_operation_reading_a_secret_is_refused(self, path,
                                                          value):
        self.assertRefusedUnchanged(
            [{'op': 'test', 'path': path, 'value': value}], 'test a secret')

    def test_a_test_operation_on_plain_arguments_still_works(self):
        response = self.patch('/v1/deploy_templates/CUSTOM_FIRMWARE', json=[
            {'op': 'test', 'path': '/steps/0/args/level', 'value': 5},
            {'op': 'test', 'path': '/steps/1', 'value': TEMPLATE['steps'][1]},
            {'op': 'add', 'path': '/extra/checked', 'value': True}])
        self.assertEqual(200, response.status_code, response.data)
        self.assertNoSecret(response)

    @ddt.data(('copy', '/steps/0/args/bmc_password', '/extra/leak'),
              ('move', '/steps/0/args/bmc_password', '/name'),
              ('copy', '/steps/0/args', '/extra/args'),
              ('copy', '/steps/0', '/extra/step'),
              ('copy', '/steps', '/extra/steps'),
              ('copy', '/steps/0', '/steps/-'),
              ('move', '/steps/0/args/auth/api_token',
               '/steps/0/args/plain'),
              ('copy', '/steps/0/args/bmc_password/0', '/extra/x'))
    @ddt.unpack
    def test_a_secret_cannot_be_copied_or_moved(self, op, source, path):
        self.assertRefusedUnchanged(
            [{'op': op, 'from': source, 'path': path}], 'secret')

    @ddt.data('/steps/0/args/bmc_password/x',
              '/steps/0/args/auth/api_token/x', '/steps/0/args/level/0')
    def test_an_operation_that_does_not_apply_never_quotes_the_template(
            self, path):
        self.assertRefusedUnchanged(
            [{'op': 'add', 'path': path, 'value': 1}], 'cannot be applied')

    def test_secrets_can_still_be_set_replaced_and_removed(self):
        for patch in ([{'op': 'replace', 'path': '/steps/0/args/bmc_password',
                        'value': 'new'}],
                      [{'op': 'add', 'path': '/steps/1/args/ipmi_password',
                        'value': 'other'}],
                      [{'op': 'remove',
                        'path': '/steps/0/args/auth/api_token'}]):
            response = self.patch('/v1/deploy_templates/CUSTOM_FIRMWARE',
                                  json=patch)
            self.assertEqual(200, response.status_code, response.data)
            self.assertNoSecret(response)
        steps = self.stored()['steps']
        self.assertEqual('new', steps[0]['args']['bmc_password'])
        self.assertEqual('other', steps[1]['args']['ipmi_password'])
        self.assertEqual({}, steps[0]['args']['auth'])

    def test_a_refused_value_never_quotes_a_secret(self):
        response = self.assertRefusedUnchanged(
            [{'op': 'replace', 'path': '/steps/0/args',
              'value': [{'ipmi_password': 'typed-by-mistake'}]}],
            'steps', 'expected object', 'steps/0/args')
        self.assertNotIn('typed-by-mistake', response.get_data(as_text=True))
        response = self.assertRefusedUnchanged(
            [{'op': 'replace', 'path': '/steps/0/priority', 'value': -1}],
            'steps/0/priority')
        self.assertNotIn(SECRET, response.get_data(as_text=True))

    def test_a_refused_create_never_quotes_a_secret(self):
        response = self.post('/v1/deploy_templates', json={
            'name': 'CUSTOM_OTHER',
            'steps': {'bmc_password': 'typed-by-mistake'}})
        self.assertError(response, 400, 'steps', 'expected array')
        self.assertNotIn('typed-by-mistake', response.get_data(as_text=True))
        self.assertEqual(1, len(objects.DeployTemplate.list(self.context)))


#: Secrets no key word gives away: Ironic's sanitize keys, short names,
#: a signed image URL, credentials in a URL, BIOS settings as name/value.
SIG = '7c0ffee5ab1e5ig'
WIDER = {
    'driver_info': {'adminPass': SECRET + '-1', 'bmc_pw': SECRET + '-2',
                    'deploy_iso': 'https://root:%s-3@10.0.0.9/boot.iso'
                                  % SECRET,
                    'bios_settings': [
                        {'name': 'AdminPassword', 'value': SECRET + '-4'},
                        {'name': 'BootMode', 'value': 'Uefi'}]},
    'instance_info': {'image_source': 'https://swift.example/v1/AUTH_p/'
                                      'images/disk.qcow2?temp_url_sig=%s'
                                      '&temp_url_expires=2000000000' % SIG,
                      'root_gb': 10}}


@ddt.ddt
class WiderSecretsTest(base.ApiTestCase):
    """Issue 24's list: what Ironic masks, and name/value settings."""

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        self.api_create(name='node-1', **WIDER)
        self.before = dict(objects.Node.get(self.context, 'node-1'))

    def assertNoSecret(self, response):
        for text in (response.get_data(as_text=True), self.logs.output):
            self.assertNotIn(SECRET, text)
            self.assertNotIn(SIG, text)

    def test_every_view_masks_them_and_keeps_the_rest_readable(self):
        for path in ('/v1/nodes/node-1', '/v1/nodes/detail',
                     '/v1/nodes/node-1?fields=driver_info,instance_info'):
            response = self.get(path)
            self.assertEqual(200, response.status_code)
            self.assertNoSecret(response)
        node = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual('https://root:******@10.0.0.9/boot.iso',
                         node['driver_info']['deploy_iso'])
        self.assertEqual([{'name': 'AdminPassword', 'value': '******'},
                          {'name': 'BootMode', 'value': 'Uefi'}],
                         node['driver_info']['bios_settings'])
        self.assertIn('disk.qcow2?temp_url_sig=******&temp_url_expires=',
                      node['instance_info']['image_source'])
        self.assertEqual(10, node['instance_info']['root_gb'])
        # Stored as given: masking is for showing.
        self.assertEqual(WIDER['driver_info'], objects.Node.get(
            self.context, 'node-1').driver_info)

    @ddt.data(('copy', '/driver_info/bios_settings/0/value', '/extra/x'),
              ('copy', '/driver_info/bios_settings/0', '/extra/x'),
              ('copy', '/driver_info/deploy_iso', '/description'),
              ('move', '/instance_info/image_source', '/extra/img'),
              ('copy', '/driver_info/adminPass', '/name'))
    @ddt.unpack
    def test_none_can_be_copied_or_moved(self, op, source, path):
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': op, 'from': source, 'path': path}])
        self.assertError(response, 400, 'secret')
        self.assertNoSecret(response)
        self.assertEqual(self.before,
                         dict(objects.Node.get(self.context, 'node-1')))

    def test_a_plain_setting_can_still_be_copied(self):
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'copy', 'from': '/driver_info/bios_settings/1/value',
             'path': '/extra/boot_mode'}])
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('Uefi', response.get_json()['extra']['boot_mode'])

    def test_the_bios_api_masks_a_setting_named_like_a_secret(self):
        node = objects.Node.get(self.context, 'node-1')
        objects.BIOSSetting.replace_all(self.context, node.id, {
            'AdminPassword': SECRET, 'BootMode': 'Uefi'})
        response = self.get('/v1/nodes/node-1/bios', version='1.40')
        self.assertEqual(200, response.status_code, response.data)
        self.assertNoSecret(response)
        shown = {s['name']: s['value'] for s in response.get_json()['bios']}
        self.assertEqual({'AdminPassword': '******', 'BootMode': 'Uefi'},
                         shown)
        response = self.get('/v1/nodes/node-1/bios/AdminPassword',
                            version='1.40')
        self.assertNoSecret(response)
        self.assertEqual('******',
                         response.get_json()['AdminPassword']['value'])


class MovedBMCTest(base.ApiTestCase):
    """A BMC address that changes takes its old password with it."""

    def setUp(self):
        super().setUp()
        self.api_create(name='node-1', driver_info={
            'redfish_address': 'https://10.0.0.9', 'redfish_username': 'ops',
            'redfish_password': SECRET, 'ipmi_password': SECRET + '-ipmi'})

    def stored(self):
        return objects.Node.get(self.context, 'node-1').driver_info

    def patch_ok(self, *operations):
        response = self.patch('/v1/nodes/node-1', json=list(operations))
        self.assertEqual(200, response.status_code, response.data)

    def test_a_new_address_without_a_new_password_drops_the_old_one(self):
        self.patch_ok({'op': 'replace', 'path': '/driver_info/'
                       'redfish_address', 'value': 'https://203.0.113.7'})
        info = self.stored()
        self.assertNotIn('redfish_password', info)
        # Only the moved BMC's secrets: another protocol's stay.
        self.assertEqual(SECRET + '-ipmi', info['ipmi_password'])
        self.assertEqual('ops', info['redfish_username'])

    def test_a_new_address_with_its_password_keeps_it(self):
        self.patch_ok({'op': 'replace', 'path': '/driver_info/'
                       'redfish_address', 'value': 'https://10.0.0.10'},
                      {'op': 'replace', 'path': '/driver_info/'
                       'redfish_password', 'value': 'new-one'})
        self.assertEqual('new-one', self.stored()['redfish_password'])

    def test_other_changes_keep_the_password(self):
        self.patch_ok({'op': 'add', 'path': '/driver_info/redfish_verify_ca',
                       'value': False},
                      {'op': 'add', 'path': '/extra/rack', 'value': 'r1'})
        self.assertEqual(SECRET, self.stored()['redfish_password'])
