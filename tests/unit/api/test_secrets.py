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
