"""The service with auth_strategy = keystone, against a real Keystone.

Tokens come from Keystone's API (tests.functional.keystone), the
service's keystonemiddleware validates them with Keystone, and the
operator's real `openstack` CLI logs in with a Keystone password.
"""

from http import server
import json
import threading
import urllib.error
import urllib.request
import uuid

import fixtures
import testtools

from tests.functional import fixtures as functional
from tests.functional import keystone


def call(endpoint, method, path, token=None, body=None):
    """(status, headers, parsed body) of one request, whatever its status."""
    headers = {'X-OpenStack-Ironic-API-Version': 'latest',
               'Content-Type': 'application/json'}
    if token is not None:
        headers['X-Auth-Token'] = token
    request = urllib.request.Request(
        endpoint + path, method=method, headers=headers,
        data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, answer, payload = (response.status, response.headers,
                                       response.read())
    except urllib.error.HTTPError as exc:
        status, answer, payload = exc.code, exc.headers, exc.read()
    return status, answer, json.loads(payload) if payload else None


def fault(body):
    """The message of an error body in Ironic's format."""
    return json.loads(body['error_message'])['faultstring']


class KeystoneTestCase(testtools.TestCase):
    """An all-in-one service whose API trusts the shared Keystone."""

    def setUp(self):
        super().setUp()
        keystone.require(self)
        self.keystone = keystone.KeystoneServer.shared()

    def start_service(self, **authtoken):
        service = self.useFixture(functional.AllInOneService({
            'DEFAULT': {'auth_strategy': 'keystone'},
            'keystone_authtoken': self.keystone.authtoken_options(
                **authtoken),
            'fake': {'agent_delay': 0},
            'conductor': {'node_locked_retry_interval': 0.1}}))
        self.keystone.register_baremetal(service.endpoint)
        return service


class KeystoneAuthTest(KeystoneTestCase):

    def setUp(self):
        super().setUp()
        self.endpoint = self.start_service().endpoint

    def test_a_system_admin_creates_and_deploys_a_node(self):
        token = self.keystone.token('admin', system=True)
        client = functional.RestClient(self.endpoint, token=token)
        node = str(uuid.uuid4())
        client.enrol_available([node])
        client.request('PUT', '/v1/nodes/%s/states/provision' % node,
                       {'target': 'active'})
        self.assertEqual('active',
                         client.wait_for(node, 'active')['provision_state'])

    def test_a_system_reader_reads_every_node_but_changes_none(self):
        admin = functional.RestClient(
            self.endpoint, token=self.keystone.token('admin', system=True))
        admin.request('POST', '/v1/nodes', {'name': 'node-1',
                                            'driver': 'fake-hardware'})
        reader = self.keystone.token('system-reader', system=True)

        status, _, listed = call(self.endpoint, 'GET', '/v1/nodes', reader)
        self.assertEqual(200, status)
        self.assertEqual(['node-1'], [n['name'] for n in listed['nodes']])
        for method, path, body, rule in (
                ('POST', '/v1/nodes', {'driver': 'fake-hardware'},
                 'baremetal:node:create'),
                ('PATCH', '/v1/nodes/node-1', [
                    {'op': 'add', 'path': '/extra/a', 'value': 1}],
                 'baremetal:node:update'),
                ('PUT', '/v1/nodes/node-1/states/provision',
                 {'target': 'manage'}, 'baremetal:node:set_provision_state'),
                ('DELETE', '/v1/nodes/node-1', None,
                 'baremetal:node:delete')):
            status, _, refusal = call(self.endpoint, method, path, reader,
                                      body)
            self.assertEqual(403, status, (method, path))
            self.assertIn(rule, fault(refusal))
            self.assertIn('reader', fault(refusal))
        self.assertEqual('enroll', admin.node('node-1')['provision_state'])

    def test_projects_see_and_change_only_the_nodes_they_own_or_lease(self):
        # Given node-a owned by project-a and leased to project-b, and
        # node-b owned by project-b
        admin = functional.RestClient(
            self.endpoint, token=self.keystone.token('admin', system=True))
        project_a = self.keystone.project_id('project-a')
        project_b = self.keystone.project_id('project-b')
        admin.request('POST', '/v1/nodes', {
            'name': 'node-a', 'driver': 'fake-hardware', 'owner': project_a,
            'lessee': project_b,
            'driver_info': {'ipmi_address': '10.1.1.1'}})
        admin.request('POST', '/v1/nodes', {
            'name': 'node-b', 'driver': 'fake-hardware', 'owner': project_b})
        member_a = self.keystone.token('member-a', project='project-a')
        member_b = self.keystone.token('member-b', project='project-b')
        reader_a = self.keystone.token('reader-a', project='project-a')
        system_reader = self.keystone.token('system-reader', system=True)

        def names(token):
            status, _, listed = call(self.endpoint, 'GET', '/v1/nodes',
                                     token)
            self.assertEqual(200, status, listed)
            return sorted(n['name'] for n in listed['nodes'])

        # Then each project lists its own (owned or leased) nodes only
        self.assertEqual(['node-a'], names(member_a))
        self.assertEqual(['node-a', 'node-b'], names(member_b))
        self.assertEqual(['node-a', 'node-b'], names(system_reader))
        # project-a's member cannot see, patch or deploy project-b's node
        for method, path, body in (
                ('GET', '/v1/nodes/node-b', None),
                ('PATCH', '/v1/nodes/node-b', [
                    {'op': 'add', 'path': '/extra/a', 'value': 1}]),
                ('PUT', '/v1/nodes/node-b/states/provision',
                 {'target': 'manage'})):
            status, _, refusal = call(self.endpoint, method, path, member_a,
                                      body)
            self.assertEqual(404, status, (method, path, refusal))
        self.assertEqual('enroll', admin.node('node-b')['provision_state'])
        self.assertNotIn('a', admin.node('node-b')['extra'])
        # the lessee sees node-a without its driver_info, and may not
        # change it; the owner's member may
        status, _, shown = call(self.endpoint, 'GET', '/v1/nodes/node-a',
                                member_b)
        self.assertEqual(200, status)
        self.assertNotIn('10.1.1.1', json.dumps(shown))
        patch = [{'op': 'add', 'path': '/driver_info/x', 'value': 1}]
        status, _, refusal = call(self.endpoint, 'PATCH', '/v1/nodes/node-a',
                                  member_b, patch)
        self.assertEqual(403, status)
        self.assertIn('baremetal:node:update:driver_info', fault(refusal))
        self.assertEqual(200, call(self.endpoint, 'PATCH',
                                   '/v1/nodes/node-a', member_a, patch)[0])
        # a project reader writes nothing
        status, _, refusal = call(self.endpoint, 'PATCH', '/v1/nodes/node-a',
                                  reader_a, [{'op': 'add',
                                              'path': '/extra/r',
                                              'value': 1}])
        self.assertEqual(403, status)
        self.assertNotIn('r', admin.node('node-a')['extra'])

    def test_a_token_with_no_role_the_policy_knows_is_refused(self):
        token = self.keystone.token('observer-a', project='project-a')
        status, _, refusal = call(self.endpoint, 'GET', '/v1/nodes', token)
        self.assertEqual(403, status)
        self.assertIn('baremetal:node:list', fault(refusal))
        self.assertIn('observer', fault(refusal))

    def test_no_token_is_401_saying_where_to_authenticate(self):
        status, headers, body = call(self.endpoint, 'GET', '/v1/nodes')
        self.assertEqual(401, status)
        self.assertEqual('Keystone uri="%s"' % self.keystone.url,
                         headers['WWW-Authenticate'])
        self.assertEqual(401, body['error']['code'])

    def test_a_token_keystone_does_not_know_is_401(self):
        status, headers, _ = call(self.endpoint, 'GET', '/v1/nodes',
                                  'gAAAAAB-not-a-token')
        self.assertEqual(401, status)
        self.assertIn('Keystone uri=', headers['WWW-Authenticate'])

    def test_version_discovery_and_the_agent_need_no_token(self):
        for path in ('/', '/v1'):
            self.assertEqual(200, call(self.endpoint, 'GET', path)[0])
        node = str(uuid.uuid4())
        status, _, body = call(self.endpoint, 'GET',
                               '/v1/lookup?node_uuid=%s' % node)
        self.assertEqual(404, status, body)   # no such node; not a 401
        status, _, body = call(self.endpoint, 'POST',
                               '/v1/heartbeat/%s' % node, body={})
        self.assertEqual(404, status, body)


class KeystoneCLITest(KeystoneTestCase):
    """The operator's `openstack baremetal` with Keystone credentials."""

    def test_an_admin_lists_and_creates_nodes_a_reader_only_lists(self):
        self.start_service()
        admin = functional.OpenStackClient(
            None, auth_env=self.keystone.cli_environment('admin',
                                                         system=True))
        created = admin.json('node', 'create', '--driver', 'fake-hardware',
                             '--name', 'cli-node')
        self.assertEqual('enroll', created['provision_state'])
        self.assertEqual(['cli-node'],
                         [n['name'] for n in admin.json('node', 'list')])

        admin.json('node', 'create', '--driver', 'fake-hardware',
                   '--name', 'cli-node-a', '--owner',
                   self.keystone.project_id('project-a'))
        # A project-scoped list shows the project's nodes only.
        member = functional.OpenStackClient(
            None, auth_env=self.keystone.cli_environment('member-a',
                                                         'project-a'))
        self.assertEqual(['cli-node-a'],
                         [n['name'] for n in member.json('node', 'list')])
        reader = functional.OpenStackClient(
            None, auth_env=self.keystone.cli_environment('reader-a',
                                                         'project-a'))
        refused = reader.run('node', 'set', 'cli-node-a', '--extra', 'a=1',
                             check=False)
        self.assertNotEqual(0, refused.returncode)
        self.assertIn('baremetal:node:update_extra', refused.stderr)
        self.assertNotIn('Traceback', refused.stderr)


class KeystoneTroubleTest(KeystoneTestCase):
    """What callers are told when the API cannot validate their tokens:
    503, its cause in the log, never a 401 that blames their token."""

    def assertUnavailable(self, service, logged):
        token = self.keystone.token('admin', system=True)
        status, headers, body = call(service.endpoint, 'GET', '/v1/nodes',
                                     token)
        self.assertEqual(503, status, body)
        self.assertIn('Keystone', fault(body))
        self.assertIn('Retry-After', headers)
        self.assertNotIn('Traceback', json.dumps(body))
        self.assertIn(logged, service.log())

    def test_keystone_refusing_the_service_s_credentials_is_503(self):
        service = self.start_service(password='not-the-password')
        self.assertUnavailable(service, 'Unable to validate token')

    def test_a_wrong_path_on_keystone_is_503(self):
        wrong = self.keystone.url.replace('/v3', '/not-keystone/v3')
        service = self.start_service(auth_url=wrong)
        self.assertUnavailable(service, 'check that your auth_url is correct')

    def test_an_auth_url_where_another_service_answers_is_503(self):
        # Given a web service that is not Keystone: it answers 404, which
        # keystonemiddleware alone would take for "no such token".
        other = self.useFixture(_NotKeystone())
        service = self.start_service(auth_url=other.url)
        self.assertUnavailable(service, 'Keystone gives this service no '
                                        'token')


class _NotKeystone(fixtures.Fixture):
    """An HTTP server on loopback answering 404 to everything."""

    class _Handler(server.BaseHTTPRequestHandler):

        def _not_found(self):
            body = b'{"error": "not here"}'
            self.send_response(404)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _not_found

        def log_message(self, *args):
            pass

    def _setUp(self):
        httpd = server.ThreadingHTTPServer(('127.0.0.1', 0), self._Handler)
        self.url = 'http://127.0.0.1:%d/v3' % httpd.server_address[1]
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
