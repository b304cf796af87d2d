"""Who may call the API: noauth, HTTP basic users and their roles."""

import base64
import logging
import os
import re

import bcrypt
import ddt
import fixtures
from oslo_context import context as oslo_context
from oslo_middleware import exceptions as middleware_exc

from ironic_steps.api import policy
from ironic_steps.api import versions
from ironic_steps import objects
from tests.unit.api import base

USERS = {'alice': 'alice-pw', 'rita': 'rita-pw'}


def basic(user, password):
    token = base64.b64encode(('%s:%s' % (user, password)).encode()).decode()
    return {'Authorization': 'Basic %s' % token}


class NoAuthTest(base.ApiTestCase):

    def test_every_caller_is_an_administrator(self):
        self.api_create(name='node-1')

    def test_roles_sent_by_the_client_are_ignored(self):
        response = self.post('/v1/nodes', headers={'X-Roles': 'reader'},
                             json={'driver': 'fake-hardware'})
        self.assertEqual(201, response.status_code)


def use_http_basic(test):
    """``test`` (an ApiTestCase) serves http_basic to :data:`USERS` (rita a
    reader), from the htpasswd file ``test.htpasswd``."""
    directory = test.useFixture(fixtures.TempDir()).path
    test.htpasswd = os.path.join(directory, 'htpasswd')
    with open(test.htpasswd, 'w') as users:
        for user, password in USERS.items():
            hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(4))
            users.write('%s:%s\n' % (user, hashed.decode()))
    test.config(auth_strategy='http_basic')
    test.config(http_basic_auth_user_file=test.htpasswd,
                reader_users=['rita'], group='api')
    test.make_client()


@ddt.ddt
class HttpBasicTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        use_http_basic(self)
        self.node = self.create_node(name='node-1')

    def as_user(self, user, method, path, **kwargs):
        headers = basic(user, USERS[user])
        headers.update(kwargs.pop('headers', {}))
        return self.request(method, path, headers=headers, **kwargs)

    def test_no_credentials_is_401_with_a_challenge_and_version_headers(self):
        response = self.get('/v1/nodes')
        self.assertError(response, 401, 'Authentication required')
        self.assertEqual('Basic realm="Baremetal API"',
                         response.headers['WWW-Authenticate'])
        self.assertEqual('1.69', response.headers[versions.HEADER])
        self.assertEqual('1.1', response.headers[versions.MIN_HEADER])

    def test_a_wrong_password_is_401(self):
        response = self.get('/v1/nodes', headers=basic('alice', 'guess'))
        self.assertError(response, 401)

    def test_a_refused_login_is_logged_under_its_own_request_id(self):
        # What the thread's current context is when the refusal is logged.
        logged = []

        class _Recorder(logging.Handler):
            def emit(self, record):
                current = oslo_context.get_current()
                logged.append((record.getMessage(),
                               current and current.request_id))

        recorder = _Recorder()
        auth_log = logging.getLogger('oslo_middleware.basic_auth')
        auth_log.addHandler(recorder)
        self.addCleanup(auth_log.removeHandler, recorder)
        self.addCleanup(auth_log.setLevel, auth_log.level)
        auth_log.setLevel(logging.INFO)
        earlier = self.as_user('alice', 'GET', '/v1/nodes')
        self.assertEqual(200, earlier.status_code)
        refused = self.request('GET', '/v1/nodes',
                               headers=basic('alice', 'wrong'))
        self.assertError(refused, 401, 'Authentication required')
        request_id = refused.headers['X-OpenStack-Request-Id']
        self.assertNotEqual(earlier.headers['X-OpenStack-Request-Id'],
                            request_id)
        self.assertIn(('Password for alice does not match', request_id),
                      logged)

    def test_an_address_that_keeps_failing_is_429_until_it_may_retry(self):
        self.config(http_basic_max_failures=3, group='api')
        self.assertEqual(200, self.as_user('alice', 'GET',
                                           '/v1/nodes').status_code)
        for _ in range(3):
            self.assertError(self.request('GET', '/v1/nodes', headers=basic(
                'rita', 'guess')), 401)
        refused = self.request('GET', '/v1/nodes',
                               headers=basic('rita', USERS['rita']))
        self.assertError(refused, 429, '3 failed logins', 'try again in')
        self.assertLessEqual(1, int(refused.headers['Retry-After']))
        # An administrator whose password was just checked is not locked out.
        self.assertEqual(200, self.as_user('alice', 'GET',
                                           '/v1/nodes').status_code)

    def test_an_unknown_user_is_401(self):
        response = self.get('/v1/nodes', headers=basic('mallory', 'x'))
        self.assertError(response, 401)

    def test_a_malformed_authorization_header_is_400(self):
        response = self.get('/v1/nodes',
                            headers={'Authorization': 'Basic !!!'})
        self.assertError(response, 400, 'authorization')

    def test_an_administrator_reads_and_writes(self):
        self.assertEqual(200, self.as_user('alice', 'GET',
                                           '/v1/nodes').status_code)
        response = self.as_user('alice', 'POST', '/v1/nodes',
                                json={'driver': 'fake-hardware'})
        self.assertEqual(201, response.status_code, response.data)

    @ddt.data(('GET', '/v1/nodes'), ('GET', '/v1/nodes/detail'),
              ('GET', '/v1/nodes/node-1'), ('GET', '/v1/nodes/node-1/states'),
              ('GET', '/v1/drivers'), ('GET', '/v1/nodes/node-1/traits'),
              ('GET', '/v1/deploy_templates'),
              ('GET', '/v1/deploy_templates/detail'))
    @ddt.unpack
    def test_a_reader_reads(self, method, path):
        self.assertEqual(200, self.as_user('rita', method, path).status_code)

    def test_a_reader_cannot_write_and_is_told_why(self):
        response = self.as_user('rita', 'POST', '/v1/nodes',
                                json={'driver': 'fake-hardware'})
        self.assertError(response, 403, 'baremetal:node:create', 'reader')
        response = self.as_user('rita', 'PATCH', '/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/extra/x', 'value': 1}])
        self.assertError(response, 403, 'baremetal:node:update')
        self.assertError(self.as_user('rita', 'DELETE', '/v1/nodes/node-1'),
                         403, 'baremetal:node:delete')
        response = self.as_user('rita', 'PUT',
                                '/v1/nodes/node-1/states/provision',
                                json={'target': 'manage'})
        self.assertError(response, 403, 'baremetal:node:set_provision_state')
        self.assertEqual('enroll', objects.Node.get(
            self.context, 'node-1').provision_state)

    @ddt.data(
        ('PUT', '/v1/nodes/node-1/traits', {'traits': []},
         'baremetal:node:traits:set'),
        ('PUT', '/v1/nodes/node-1/traits/CUSTOM_A', None,
         'baremetal:node:traits:set'),
        ('DELETE', '/v1/nodes/node-1/traits', None,
         'baremetal:node:traits:delete'),
        ('POST', '/v1/deploy_templates', {'name': 'CUSTOM_A', 'steps': []},
         'baremetal:deploy_template:create'),
        ('PATCH', '/v1/deploy_templates/CUSTOM_A', [],
         'baremetal:deploy_template:update'),
        ('DELETE', '/v1/deploy_templates/CUSTOM_A', None,
         'baremetal:deploy_template:delete'))
    @ddt.unpack
    def test_a_reader_cannot_change_traits_or_templates(self, method, path,
                                                        body, rule):
        response = self.as_user('rita', method, path, json=body)
        self.assertError(response, 403, rule, 'reader')

    def test_a_reader_cannot_claim_roles_in_headers(self):
        response = self.as_user('rita', 'DELETE', '/v1/nodes/node-1',
                                headers={'X-Roles': 'admin'})
        self.assertError(response, 403)

    @ddt.data('/', '/v1', '/v1/')
    def test_version_discovery_needs_no_credentials(self, path):
        self.assertEqual(200, self.get(path).status_code)

    def test_agents_look_their_node_up_without_credentials(self):
        node = objects.Node.get(self.context, 'node-1')
        response = self.get('/v1/lookup?node_uuid=%s' % node.uuid,
                            version='1.62')
        # Found only while an agent serves it; never a 401.
        self.assertError(response, 404, node.uuid)

    def test_agents_heartbeat_without_credentials_but_need_their_token(self):
        self.assertError(self.post('/v1/heartbeat/node-1'), 400,
                         'agent token')

    def test_a_password_longer_than_bcrypt_reads_is_401_or_200_never_500(
            self):
        # Given a user whose password htpasswd hashed as bcrypt reads it:
        # its first 72 bytes
        long_password = 'p' * 72 + 'tail-bcrypt-never-reads'
        with open(self.htpasswd, 'a') as users:
            users.write('lena:%s\n' % bcrypt.hashpw(
                long_password.encode()[:72], bcrypt.gensalt(4)).decode())
        # Then anyone's long password is refused as any wrong one,
        self.assertError(self.get('/v1/nodes', headers=basic(
            'alice', 'x' * 100)), 401)
        self.assertError(self.get('/v1/nodes', headers=basic(
            'nobody', 'x' * 1000)), 401)
        # and the user's own is accepted, as Apache accepts it
        self.assertEqual(200, self.get('/v1/nodes', headers=basic(
            'lena', long_password)).status_code)

    @ddt.data('pass\x00word', '\u00e9' * 40)
    def test_any_password_bytes_are_401_never_500(self, password):
        self.assertError(self.get('/v1/nodes', headers=basic(
            'alice', password)), 401)

    def test_a_missing_password_file_stops_the_app_from_starting(self):
        self.config(http_basic_auth_user_file='/nonexistent', group='api')
        self.assertRaises(middleware_exc.ConfigInvalid, self.make_client)


class PolicyRulesTest(base.ApiTestCase):

    def test_every_rule_the_api_checks_is_documented(self):
        rules = {rule.name: rule for rule in policy.list_rules()}
        for name in ('baremetal:node:get', 'baremetal:node:list',
                     'baremetal:node:create', 'baremetal:node:update',
                     'baremetal:node:delete',
                     'baremetal:node:set_provision_state',
                     'baremetal:node:ipa_heartbeat', 'baremetal:driver:get',
                     'baremetal:node:traits:list',
                     'baremetal:node:traits:set',
                     'baremetal:node:traits:delete',
                     'baremetal:deploy_template:get',
                     'baremetal:deploy_template:create',
                     'baremetal:deploy_template:update',
                     'baremetal:deploy_template:delete'):
            self.assertIn(name, rules)
            self.assertTrue(rules[name].description)
            self.assertTrue(rules[name].operations)

    def test_heartbeats_are_open_to_all(self):
        rules = {rule.name: rule for rule in policy.list_rules()}
        self.assertEqual('@', rules['baremetal:node:ipa_heartbeat'].check_str)

    def test_every_rule_in_code_looks_at_roles_scope_and_project_only(self):
        # authorize() remembers a system caller's grants by roles; a rule
        # in code that looked at anything but roles, the system scope and
        # the caller's project (which a system caller has not) would make
        # that wrong.
        atom = (r'(@|role:\w+|system_scope:all|'
                r'project_id:%\((node|allocation)\.(owner|lessee)\)s)')
        for rule in policy.list_rules():
            for word in re.findall(r'project_id:%\(\w+\.\w+\)s|[^\s()]+',
                                   rule.check_str):
                if word not in ('and', 'or'):
                    self.assertRegex(word, '^%s$' % atom, rule.name)

    def test_an_edited_policy_file_applies_to_rules_already_granted(self):
        # Given a service started with a policy file, where an admin reads
        node = self.create_node(name='node-9')
        directory = self.useFixture(fixtures.TempDir()).path
        policy_file = os.path.join(directory, 'policy.yaml')
        with open(policy_file, 'w') as rules:
            rules.write('"baremetal:node:get": "role:admin"\n')
        self.config(policy_file=policy_file, group='oslo_policy')
        self.make_client()
        self.assertEqual(200, self.get('/v1/nodes/node-9').status_code)
        # When the operator reserves reads for a role the admin lacks
        with open(policy_file, 'w') as rules:
            rules.write('"baremetal:node:get": "role:auditor"\n')
        later = os.stat(policy_file).st_mtime + 10
        os.utime(policy_file, (later, later))
        # Then the edited rule applies at once, without a restart
        self.assertError(self.get('/v1/nodes/node-9'), 403,
                         'baremetal:node:get')
        # and the rules the file does not name still apply
        self.assertEqual(node.uuid, self.get('/v1/nodes').get_json()[
            'nodes'][0]['uuid'])
