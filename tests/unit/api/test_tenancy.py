"""Project scoping through the real API: HTTP basic users given roles and
projects by ``[api] http_basic_roles_file``, as Ironic 39 scopes
Keystone's system- and project-scoped callers.

Project A owns node-a and leases it to project L; project B owns node-b.
"""

import base64
import os
import time

import bcrypt
import ddt
import fixtures

from ironic_steps.common import exception
from ironic_steps import objects
from tests.unit.api import base

#: user -> (roles, project); None: not in the roles file.
USERS = {
    'sysadmin': None,                     # admin, system scoped
    'sysreader': None,                    # reader_users: reader, system
    'a-admin': (['admin'], 'proj-a'),
    'a-member': (['member'], 'proj-a'),
    'a-reader': (['reader'], 'proj-a'),
    'b-member': (['member'], 'proj-b'),
    'l-member': (['member'], 'proj-l'),
    'l-admin': (['admin'], 'proj-l'),
}
SECRET = 'the-last-error names conductor-7'


def basic(user):
    token = base64.b64encode(('%s:%s-pw' % (user, user)).encode()).decode()
    return {'Authorization': 'Basic %s' % token}


class TenancyTestCase(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        directory = self.useFixture(fixtures.TempDir()).path
        htpasswd = os.path.join(directory, 'htpasswd')
        roles = os.path.join(directory, 'roles.yaml')
        with open(htpasswd, 'w') as users:
            for user in USERS:
                hashed = bcrypt.hashpw(('%s-pw' % user).encode(),
                                       bcrypt.gensalt(4))
                users.write('%s:%s\n' % (user, hashed.decode()))
        with open(roles, 'w') as written:
            for user, grant in USERS.items():
                if grant is not None:
                    written.write('%s: {roles: [%s], project: %s}\n' % (
                        user, ', '.join(grant[0]), grant[1]))
        self.config(auth_strategy='http_basic')
        self.config(http_basic_auth_user_file=htpasswd,
                    http_basic_roles_file=roles, reader_users=['sysreader'],
                    group='api')
        self.make_client()
        self.node_a = self.create_node(
            name='node-a', owner='proj-a', lessee='proj-l',
            last_error=SECRET, driver_info={'ipmi_address': '10.0.0.9'})
        self.node_b = self.create_node(name='node-b', owner='proj-b')

    def as_user(self, user, method, path, **kwargs):
        headers = basic(user)
        headers.update(kwargs.pop('headers', {}))
        return self.request(method, path, headers=headers, **kwargs)


@ddt.ddt
class NodeVisibilityTest(TenancyTestCase):

    @ddt.data(('sysadmin', 'node-b', 200), ('sysreader', 'node-a', 200),
              ('a-member', 'node-a', 200), ('a-reader', 'node-a', 200),
              ('l-member', 'node-a', 200), ('a-member', 'node-b', 404),
              ('b-member', 'node-a', 404), ('l-admin', 'node-b', 404))
    @ddt.unpack
    def test_a_project_sees_the_nodes_it_owns_or_leases_only(
            self, user, node, status):
        response = self.as_user(user, 'GET', '/v1/nodes/%s' % node,
                                version='1.80')
        self.assertEqual(status, response.status_code, response.data)
        if status == 404:
            # The same answer as for a node that does not exist.
            self.assertError(response, 404, 'Node %s could not be found'
                             % node)

    @ddt.data(('sysadmin', ['node-a', 'node-b']),
              ('sysreader', ['node-a', 'node-b']),
              ('a-reader', ['node-a']), ('l-member', ['node-a']),
              ('b-member', ['node-b']))
    @ddt.unpack
    def test_lists_show_a_project_its_nodes_only(self, user, names):
        for path in ('/v1/nodes', '/v1/nodes/detail',
                     '/v1/nodes?owner=proj-b'):
            response = self.as_user(user, 'GET', path, version='1.80')
            self.assertEqual(200, response.status_code, response.data)
            listed = sorted(n['name'] for n in response.get_json()['nodes'])
            if 'owner=' in path:
                names = [n for n in names if n == 'node-b']
            self.assertEqual(names, listed, path)

    @ddt.data('node-b', 'node-b/traits', 'node-b/states', 'node-b/history',
              'node-b/bios', 'node-b/vifs', 'node-b/ports',
              'node-b/validate', 'node-b/management/boot_device',
              'node-b/x-steps/history', 'node-b/firmware')
    def test_everything_of_another_projects_node_is_404(self, path):
        response = self.as_user('a-member', 'GET', '/v1/nodes/' + path,
                                version='latest')
        self.assertError(response, 404, 'node-b')

    @ddt.data('/v1/ports', '/v1/ports/detail', '/v1/portgroups',
              '/v1/portgroups/detail', '/v1/volume/connectors',
              '/v1/volume/targets', '/v1/allocations')
    def test_a_list_filtered_by_another_projects_node_answers_as_for_none(
            self, path):
        # The answer for a node that does not exist (404, or 400 for
        # allocations, as Ironic) is the answer for node-b, by UUID or
        # name: the filter does not tell that it exists.
        for missing, hidden in (
                ('7b0a7b5c-1d2e-4f3a-9b8c-0d1e2f3a4b5c', self.node_b.uuid),
                ('node-zz', 'node-b')):
            absent = self.as_user('a-reader', 'GET', '%s?node=%s' % (
                path, missing), version='latest')
            refused = self.as_user('a-reader', 'GET', '%s?node=%s' % (
                path, hidden), version='latest')
            self.assertIn(absent.status_code, (400, 404), absent.data)
            self.assertEqual(
                (absent.status_code,
                 absent.get_json()['error_message'].replace(missing, 'X')),
                (refused.status_code,
                 refused.get_json()['error_message'].replace(hidden, 'X')))
        # while its own node, and any node for the system reader, filter
        for user, node in (('a-reader', 'node-a'), ('l-member', 'node-a'),
                           ('sysreader', 'node-b')):
            response = self.as_user(user, 'GET', '%s?node=%s' % (path, node),
                                    version='latest')
            self.assertEqual(200, response.status_code, (user, node))

    def test_a_project_list_shows_the_fields_asked_for_only(self):
        listed = self.as_user('a-reader', 'GET', '/v1/nodes?fields=name',
                              version='1.80').get_json()['nodes']
        self.assertEqual([{'name': 'node-a'}],
                         [{k: v for k, v in n.items() if k != 'links'}
                          for n in listed])

    def test_a_lessee_sees_the_fields_below_the_threshold_redacted(self):
        body = self.as_user('l-member', 'GET', '/v1/nodes/node-a',
                            version='1.80').get_json()
        self.assertNotIn(SECRET, str(body))
        self.assertIn('baremetal:node:get:last_error', body['last_error'])
        self.assertEqual({'content': '** Redacted - requires baremetal:node:'
                                     'get:driver_info permission. **'},
                         body['driver_info'])
        listed = self.as_user('l-member', 'GET', '/v1/nodes/detail',
                              version='1.80').get_json()['nodes']
        self.assertNotIn(SECRET, str(listed))
        self.assertNotIn('10.0.0.9', str(listed))

    @ddt.data('a-reader', 'sysreader')
    def test_the_owner_and_the_system_see_every_field(self, user):
        body = self.as_user(user, 'GET', '/v1/nodes/node-a',
                            version='1.80').get_json()
        self.assertEqual(SECRET, body['last_error'])
        self.assertEqual('10.0.0.9', body['driver_info']['ipmi_address'])

    @ddt.data(('a-reader', 200), ('l-member', 403), ('l-admin', 403),
              ('sysreader', 200))
    @ddt.unpack
    def test_a_nodes_history_is_for_its_owner_not_its_lessee(
            self, user, status):
        response = self.as_user(user, 'GET', '/v1/nodes/node-a/history',
                                version='latest')
        self.assertEqual(status, response.status_code, response.data)
        if status == 403:
            self.assertError(response, 403, 'baremetal:node:history:get')

    def test_a_lessee_cannot_copy_a_hidden_field_somewhere_it_sees(self):
        response = self.as_user(
            'l-member', 'PATCH', '/v1/nodes/node-a', json=[
                {'op': 'copy', 'from': '/driver_info', 'path': '/extra/x'}])
        self.assertError(response, 403, 'baremetal:node:get:driver_info')
        self.assertFalse(objects.Node.get(self.context, 'node-a').extra)


@ddt.ddt
class NodeChangeTest(TenancyTestCase):

    @ddt.data(('a-member', '/extra/k', 200, None),
              ('l-member', '/extra/k', 200, None),
              ('a-member', '/driver_info/k', 200, None),
              ('l-member', '/driver_info/k', 403, 'update:driver_info'),
              ('l-member', '/instance_info/k', 403, 'update_instance_info'),
              ('l-admin', '/instance_info/k', 200, None),
              ('a-member', '/owner', 403, 'update:owner'),
              ('a-member', '/lessee', 200, None),
              ('l-member', '/lessee', 403, 'update:lessee'),
              ('a-reader', '/extra/k', 403, 'baremetal:node:update_extra'),
              ('a-member', '/description', 200, None),
              ('a-reader', '/description', 403, 'baremetal:node:update'),
              ('b-member', '/extra/k', 404, 'node-a'),
              ('sysadmin', '/owner', 200, None))
    @ddt.unpack
    def test_which_fields_a_project_member_may_patch(self, user, path,
                                                     status, named):
        before = objects.Node.get(self.context, 'node-a')
        response = self.as_user(user, 'PATCH', '/v1/nodes/node-a', json=[
            {'op': 'add', 'path': path, 'value': 'proj-x'}])
        if status == 200:
            self.assertEqual(200, response.status_code, response.data)
            return
        self.assertError(response, status, named)
        after = objects.Node.get(self.context, 'node-a')
        self.assertEqual(
            [before.extra, before.driver_info, before.owner, before.lessee,
             before.instance_info, before.description],
            [after.extra, after.driver_info, after.owner, after.lessee,
             after.instance_info, after.description])

    @ddt.data(('a-member', 'node-a', 202), ('l-member', 'node-a', 403),
              ('l-admin', 'node-a', 202), ('a-reader', 'node-a', 403),
              ('a-member', 'node-b', 404))
    @ddt.unpack
    def test_provisioning_needs_the_owner_member_or_the_lessee_admin(
            self, user, node, status):
        response = self.as_user(user, 'PUT',
                                '/v1/nodes/%s/states/provision' % node,
                                json={'target': 'manage'})
        self.assertEqual(status, response.status_code, response.data)
        if status != 202:
            self.assertEqual('enroll', objects.Node.get(
                self.context, node).provision_state)

    @ddt.data(('a-member', 'node-a', 202), ('b-member', 'node-a', 404),
              ('a-reader', 'node-a', 403))
    @ddt.unpack
    def test_maintenance_follows_the_node(self, user, node, status):
        response = self.as_user(user, 'PUT',
                                '/v1/nodes/%s/maintenance' % node,
                                json={'reason': 'r'})
        self.assertEqual(status, response.status_code, response.data)
        self.assertEqual(status == 202, objects.Node.get(
            self.context, node).maintenance)


@ddt.ddt
class SelfOwnedNodeTest(TenancyTestCase):

    def test_a_project_admin_creates_a_node_its_project_owns(self):
        response = self.as_user('a-admin', 'POST', '/v1/nodes',
                                version='1.80',
                                json={'driver': 'fake-hardware'})
        self.assertEqual(201, response.status_code, response.data)
        self.assertEqual('proj-a', response.get_json()['owner'])

    @ddt.data(('a-admin', '1.80', {'owner': 'proj-b'}, 'proj-b'),
              ('a-admin', '1.79', {}, 'baremetal:node:create'),
              ('a-member', '1.80', {}, 'create:self_owned_node'))
    @ddt.unpack
    def test_other_creates_by_projects_are_refused(self, user, version,
                                                   extra, named):
        count = len(objects.Node.list(self.context))
        response = self.as_user(user, 'POST', '/v1/nodes', version=version,
                                json=dict(driver='fake-hardware', **extra))
        self.assertError(response, 403, named)
        self.assertEqual(count, len(objects.Node.list(self.context)))

    @ddt.data(('a-admin', 204), ('l-admin', 403), ('a-member', 403))
    @ddt.unpack
    def test_a_project_admin_deletes_only_nodes_its_project_owns(
            self, user, status):
        response = self.as_user(user, 'DELETE', '/v1/nodes/node-a',
                                version='1.80')
        self.assertEqual(status, response.status_code, response.data)
        self.assertEqual(status != 204, 'node-a' in [
            n.name for n in objects.Node.list(self.context)])


class NodeRecordsTest(TenancyTestCase):

    def setUp(self):
        super().setUp()
        for node, mac in ((self.node_a, '52:54:00:00:00:0a'),
                          (self.node_b, '52:54:00:00:00:0b')):
            response = self.as_user('sysadmin', 'POST', '/v1/ports', json={
                'node_uuid': node.uuid, 'address': mac})
            self.assertEqual(201, response.status_code, response.data)
        self.port_b = response.get_json()['uuid']

    def test_a_project_lists_the_ports_of_its_nodes_only(self):
        ports = self.as_user('l-member', 'GET', '/v1/ports').get_json()
        self.assertEqual(['52:54:00:00:00:0a'],
                         [p['address'] for p in ports['ports']])

    def test_another_projects_port_is_404_and_stays(self):
        for method in ('GET', 'DELETE'):
            response = self.as_user('a-admin', method,
                                    '/v1/ports/' + self.port_b)
            self.assertError(response, 404, self.port_b)
        self.assertEqual(200, self.as_user(
            'sysreader', 'GET', '/v1/ports/' + self.port_b).status_code)

    def test_a_project_cannot_add_a_port_to_another_projects_node(self):
        response = self.as_user('a-admin', 'POST', '/v1/ports', json={
            'node_uuid': self.node_b.uuid, 'address': '52:54:00:00:00:99'})
        self.assertError(response, 404, self.node_b.uuid)
        response = self.as_user('a-admin', 'POST', '/v1/ports', json={
            'node_uuid': self.node_a.uuid, 'address': '52:54:00:00:00:99'})
        self.assertEqual(201, response.status_code, response.data)

    def test_system_only_records_are_refused_to_projects(self):
        for path in ('/v1/chassis', '/v1/drivers', '/v1/conductors'):
            response = self.as_user('a-admin', 'GET', path)
            self.assertEqual(403, response.status_code, path)


class AllocationTenancyTest(TenancyTestCase):

    def allocate(self, user, expected=201, **fields):
        response = self.as_user(user, 'POST', '/v1/allocations',
                                version='1.80', json=fields)
        self.assertEqual(expected, response.status_code, response.data)
        return response.get_json()

    def settled(self, uuid, timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            shown = self.as_user('sysreader', 'GET', '/v1/allocations/' + uuid,
                                 version='1.80').get_json()
            if shown['state'] != 'allocating':
                return shown
            if time.monotonic() > deadline:
                self.fail('allocation %s still allocating' % uuid)
            time.sleep(0.02)

    def test_a_project_member_s_allocation_is_its_project_s(self):
        made = self.allocate('l-member', resource_class='gold')
        self.assertEqual('proj-l', made['owner'])
        refused = self.as_user('l-member', 'POST', '/v1/allocations',
                               version='1.80', json={
                                   'resource_class': 'gold',
                                   'owner': 'proj-b'})
        self.assertError(refused, 403, 'proj-l', 'proj-b')
        self.assertEqual(1, len(objects.Allocation.list(self.context)))

    def test_a_lessee_s_allocation_gets_a_node_it_leases(self):
        # Given an available node owned by proj-x and leased to proj-l,
        # and another one proj-l neither owns nor leases
        self.make_available(name='other', resource_class='gold',
                            owner='proj-b')
        leased = self.make_available(name='leased', resource_class='gold',
                                     owner='proj-x', lessee='proj-l')
        made = self.allocate('l-member', resource_class='gold')
        self.assertEqual(leased.uuid, self.settled(made['uuid'])['node_uuid'])

    def test_allocations_are_scoped_by_their_owner(self):
        a = self.allocate('sysadmin', resource_class='gold', owner='proj-a')
        b = self.allocate('sysadmin', resource_class='gold', owner='proj-b')
        listed = self.as_user('a-reader', 'GET', '/v1/allocations',
                              version='1.80').get_json()['allocations']
        self.assertEqual([a['uuid']], [x['uuid'] for x in listed])
        for method in ('GET', 'DELETE'):
            response = self.as_user('a-member', method,
                                    '/v1/allocations/' + b['uuid'],
                                    version='1.80')
            self.assertError(response, 404, b['uuid'])
        self.assertError(self.as_user(
            'a-reader', 'DELETE', '/v1/allocations/' + a['uuid'],
            version='1.80'), 403, 'baremetal:allocation:delete')
        self.assertEqual(2, len(objects.Allocation.list(self.context)))


@ddt.ddt
class RolesFileTest(base.ApiTestCase):

    @ddt.data(('carol: [member]\n', 'user carol must be a mapping'),
              ('carol: {roles: member}\n', 'roles of user carol must be a '
                                           'list'),
              ('carol: {roles: [member], project: 7}\n',
               'project of user carol'),
              ('carol: {roles: [member], projects: p}\n', 'carol'),
              ('- carol\n', 'must map user names'),
              ('carol: {roles: [member\n', 'cannot be read'))
    @ddt.unpack
    def test_a_wrong_roles_file_stops_the_start_naming_what_is_wrong(
            self, content, named):
        directory = self.useFixture(fixtures.TempDir()).path
        htpasswd = os.path.join(directory, 'htpasswd')
        with open(htpasswd, 'w') as users:
            users.write('carol:%s\n' % bcrypt.hashpw(
                b'pw', bcrypt.gensalt(4)).decode())
        roles = os.path.join(directory, 'roles.yaml')
        with open(roles, 'w') as written:
            written.write(content)
        self.config(auth_strategy='http_basic')
        self.config(http_basic_auth_user_file=htpasswd,
                    http_basic_roles_file=roles, group='api')
        error = self.assertRaises(exception.RolesFileInvalid,
                                  self.make_client)
        self.assertIn(roles, str(error))
        self.assertIn(named, str(error))

    def test_a_client_cannot_name_its_own_project_or_roles(self):
        # noauth: whatever headers say, the caller is a system admin.
        self.create_node(name='n', owner='someone', last_error=SECRET)
        response = self.get('/v1/nodes/n', headers={
            'X-Project-Id': 'other', 'X-Roles': 'reader'})
        self.assertEqual(SECRET, response.get_json()['last_error'])
