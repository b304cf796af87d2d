"""auth_strategy = keystone, up to where Keystone itself is asked.

What the API decides before it asks Keystone about a token: which paths
need one, what an absent token or an unreachable Keystone is answered, and
what the request context makes of the headers keystonemiddleware sets.
Tokens checked by a real Keystone: tests/functional/test_keystone_auth.py.
"""

import json

import logging

import ddt
import fixtures
from oslo_context import context as oslo_context

from ironic_steps.api import keystone
from ironic_steps.api import versions
from ironic_steps.conf import CONF
from ironic_steps.conf import keystone as keystone_conf
from ironic_steps import objects
from tests.functional import fixtures as functional
from tests import keystone_options
from tests.unit.api import base


def configure_keystone(test, auth_url):
    """``[keystone_authtoken]`` of an API whose Keystone is ``auth_url``."""
    test.useFixture(keystone_options.KeystoneOptions())
    test.config(auth_strategy='keystone')
    test.config(group=keystone_conf.GROUP, www_authenticate_uri=auth_url,
                auth_type='password', http_request_max_retries=0)
    keystone_conf.check(CONF)
    test.config(group=keystone_conf.GROUP, auth_url=auth_url,
                username='ironic', password='ironic-pw',
                project_name='service', user_domain_name='Default',
                project_domain_name='Default')


class _Recorder(fixtures.Fixture):
    """(message, current request id) of what logger ``name`` logs."""

    def __init__(self, name):
        super().__init__()
        self.name = name

    def _setUp(self):
        self.logged = []
        recorder = logging.Handler()
        recorder.emit = lambda record: self.logged.append((
            record.getMessage(),
            getattr(oslo_context.get_current(), 'request_id', None)))
        logger = logging.getLogger(self.name)
        logger.addHandler(recorder)
        self.addCleanup(logger.removeHandler, recorder)


@ddt.ddt
class KeystoneWithoutKeystoneTest(base.ApiTestCase):
    """Keystone's address answers nothing (a port nobody listens on)."""

    def setUp(self):
        super().setUp()
        self.auth_url = 'http://127.0.0.1:%d/v3' % functional.free_port()
        configure_keystone(self, self.auth_url)
        self.make_client()
        self.node = self.create_node(name='node-1')

    def test_no_token_is_401_with_the_keystone_challenge(self):
        response = self.get('/v1/nodes')
        self.assertEqual(401, response.status_code)
        self.assertEqual('Keystone uri="%s"' % self.auth_url,
                         response.headers['WWW-Authenticate'])
        # keystonemiddleware's own body, as Ironic answers it.
        self.assertEqual(401, json.loads(response.data)['error']['code'])
        self.assertIn('X-OpenStack-Request-Id', response.headers)
        self.assertIn(versions.HEADER, response.headers)

    def test_an_unreachable_keystone_is_503_and_logged_never_a_traceback(
            self):
        logged = self.useFixture(_Recorder('keystonemiddleware')).logged
        response = self.get('/v1/nodes', headers={'X-Auth-Token': 'gAAAA'})
        self.assertError(response, 503, 'Keystone', 'retry')
        self.assertNotIn(b'Traceback', response.data)
        self.assertEqual(str(CONF.api.retry_after_seconds),
                         response.headers['Retry-After'])
        # Logged with the cause, under the id the caller was given.
        self.assertIn((True, response.headers['X-OpenStack-Request-Id']), [
            ('Unable to validate token: Unable to establish connection'
             in message, request_id) for message, request_id in logged])

    @ddt.data('/', '/v1', '/v1/')
    def test_version_discovery_needs_no_token(self, path):
        self.assertEqual(200, self.get(path).status_code)

    def test_agents_look_up_and_heartbeat_without_a_token(self):
        response = self.get('/v1/lookup?node_uuid=%s' % self.node.uuid,
                            version='1.62')
        self.assertError(response, 404, self.node.uuid)
        self.assertError(self.post('/v1/heartbeat/node-1'), 400,
                         'agent token')

    @ddt.data('//v1/lookup', '/v1/lookup/../nodes', '/v1/heartbeat/a/b')
    def test_a_path_only_resembling_a_public_one_needs_a_token(self, path):
        self.assertEqual(401, self.get(path).status_code)

    def test_a_client_cannot_claim_roles_on_a_public_path(self):
        response = self.post('/v1/heartbeat/node-1', headers={
            'X-Roles': 'admin', 'X-User-Id': 'mallory'})
        self.assertError(response, 400, 'agent token')
        self.assertEqual('enroll', objects.Node.get(
            self.context, 'node-1').provision_state)


class RequestContextTest(base.base.TestCase):
    """The context made of the headers keystonemiddleware set."""

    def test_a_system_scoped_token_gives_system_scoped_credentials(self):
        context = keystone.request_context({
            keystone.PUBLIC: False, 'HTTP_X_USER_ID': 'u1',
            'HTTP_X_ROLES': 'reader', 'HTTP_OPENSTACK_SYSTEM_SCOPE': 'all',
            'HTTP_X_AUTH_TOKEN': 'gAAAA'})
        values = context.to_policy_values()
        self.assertEqual('all', values['system_scope'])
        self.assertIsNone(values['project_id'])
        self.assertEqual(['reader'], values['roles'])
        self.assertEqual('u1', values['user_id'])

    def test_a_project_scoped_token_gives_project_credentials(self):
        context = keystone.request_context({
            keystone.PUBLIC: False, 'HTTP_X_USER_ID': 'u2',
            'HTTP_X_PROJECT_ID': 'p1', 'HTTP_X_ROLES': 'member,reader',
            'HTTP_X_IS_ADMIN_PROJECT': 'False',
            'HTTP_X_PROJECT_DOMAIN_ID': 'default'})
        values = context.to_policy_values()
        self.assertEqual('p1', values['project_id'])
        self.assertIsNone(values['system_scope'])
        self.assertEqual(['member', 'reader'], values['roles'])
        self.assertFalse(values['is_admin_project'])

    def test_a_public_request_is_anonymous_whatever_it_claims(self):
        context = keystone.request_context({
            keystone.PUBLIC: True, 'HTTP_X_ROLES': 'admin',
            'HTTP_X_USER_ID': 'mallory', 'HTTP_OPENSTACK_SYSTEM_SCOPE': 'all'})
        self.assertEqual([], context.roles)
        self.assertIsNone(context.user_id)
        self.assertIsNone(context.system_scope)
