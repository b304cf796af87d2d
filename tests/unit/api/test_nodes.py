"""Creating, showing, changing and deleting nodes through /v1/nodes."""

import logging

import ddt
import fixtures
from oslo_utils import uuidutils

from ironic_steps.common import masking
from ironic_steps.common import states
from ironic_steps.conductor import rpcapi
from ironic_steps import objects
from tests.unit.api import base


class CreateNodeTest(base.ApiTestCase):

    def test_a_new_node_is_enrolled_and_answered_201_with_its_location(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'node-1',
            'properties': {'cpus': 8}, 'resource_class': 'gold'})
        self.assertEqual(201, response.status_code)
        body = response.get_json()
        self.assertEqual('http://localhost/v1/nodes/%s' % body['uuid'],
                         response.headers['Location'])
        self.assertEqual(states.ENROLL, body['provision_state'])
        self.assertEqual({'cpus': 8}, body['properties'])
        self.assertEqual('gold', body['resource_class'])
        self.assertEqual('fake', body['deploy_interface'])
        self.assertEqual({}, body['deploy_step'])
        stored = objects.Node.get(self.context, 'node-1')
        self.assertEqual(body['uuid'], stored.uuid)

    def test_a_given_uuid_is_kept(self):
        uuid = uuidutils.generate_uuid()
        self.assertEqual(uuid, self.api_create(uuid=uuid)['uuid'])

    def test_a_chosen_interface_is_kept(self):
        body = self.api_create(deploy_interface='fake-legacy')
        self.assertEqual('fake-legacy', body['deploy_interface'])

    def test_a_node_needs_a_driver(self):
        self.assertError(self.post('/v1/nodes', json={'name': 'x'}), 400,
                         'driver')

    def test_an_unknown_driver_is_a_bad_request_naming_it(self):
        response = self.post('/v1/nodes', json={'driver': 'no-such-driver'})
        self.assertError(response, 400, 'no-such-driver', 'fake-hardware')

    def test_an_unsupported_interface_is_a_bad_request_naming_it(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'power_interface': 'ipmitool'})
        self.assertError(response, 400, 'ipmitool', 'fake')

    def test_unknown_fields_are_refused_by_name(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'colour': 'red'})
        self.assertError(response, 400, 'colour', 'driver_info')

    def test_read_only_fields_are_refused_by_name(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'provision_state': 'active'})
        self.assertError(response, 400, 'provision_state', 'read-only')

    def test_a_value_of_the_wrong_type_is_refused_naming_the_field(self):
        response = self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                                'driver_info': 'secret'})
        self.assertError(response, 400, 'driver_info')

    def test_a_name_that_looks_like_a_uuid_or_a_number_is_refused(self):
        for name in (uuidutils.generate_uuid(), '42'):
            response = self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                                    'name': name})
            self.assertError(response, 400, 'name', name)

    def test_a_name_with_spaces_is_refused(self):
        response = self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                                'name': 'my node'})
        self.assertError(response, 400, 'name')

    def test_a_duplicate_name_is_a_conflict(self):
        self.api_create(name='twin')
        response = self.post('/v1/nodes', json={'driver': 'fake-hardware',
                                                'name': 'twin'})
        self.assertError(response, 409, 'twin')

    def test_the_body_must_be_a_json_object(self):
        self.assertError(self.post('/v1/nodes', json=['fake-hardware']),
                         400, 'JSON object')

    def test_malformed_json_is_a_bad_request(self):
        response = self.post('/v1/nodes', data='{"driver": ',
                             content_type='application/json')
        self.assertError(response, 400, 'malformed JSON')

    def test_an_empty_body_is_a_bad_request(self):
        self.assertError(self.post('/v1/nodes'), 400, 'body is required')

    def test_without_a_conductor_the_api_answers_503(self):
        rpcapi.set_local_manager(None)
        response = self.post('/v1/nodes', json={'driver': 'fake-hardware'})
        self.assertError(response, 503, 'No conductor')


class ShowNodeTest(base.ApiTestCase):

    def test_a_node_is_found_by_uuid_and_by_name(self):
        node = self.create_node(name='node-1')
        by_uuid = self.get('/v1/nodes/%s' % node.uuid).get_json()
        by_name = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual(by_uuid, by_name)
        self.assertEqual('node-1', by_uuid['name'])
        self.assertEqual([
            {'href': 'http://localhost/v1/nodes/%s' % node.uuid,
             'rel': 'self'},
            {'href': 'http://localhost/nodes/%s' % node.uuid,
             'rel': 'bookmark'}], by_uuid['links'])
        self.assertNotIn('id', by_uuid)

    def test_an_unknown_node_is_404_naming_it(self):
        self.assertError(self.get('/v1/nodes/no-such-node'), 404,
                         'no-such-node', 'could not be found')

    def test_a_database_id_is_not_an_identifier(self):
        node = self.create_node()
        self.assertError(self.get('/v1/nodes/%d' % node.id), 404,
                         str(node.id))

    def test_fields_selects_the_fields_shown_plus_links(self):
        node = self.create_node(name='node-1')
        body = self.get('/v1/nodes/node-1?fields=uuid,provision_state')
        self.assertEqual({'uuid': node.uuid, 'provision_state': 'enroll',
                          'links': body.get_json()['links']},
                         body.get_json())

    def test_an_unknown_field_is_400_naming_it(self):
        self.create_node(name='node-1')
        self.assertError(self.get('/v1/nodes/node-1?fields=uuid,colour'),
                         400, 'colour')

    def test_an_unknown_query_parameter_is_400(self):
        self.create_node(name='node-1')
        self.assertError(self.get('/v1/nodes/node-1?detail=true'), 400,
                         'detail')

    def test_times_are_iso_8601(self):
        self.create_node(name='node-1')
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertRegex(body['created_at'],
                         r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d.*\+00:00$')

    def test_states_shows_the_states_of_a_node(self):
        self.create_node(name='node-1')
        body = self.get('/v1/nodes/node-1/states').get_json()
        self.assertEqual({'provision_state': 'enroll',
                          'target_provision_state': None,
                          'provision_updated_at': None,
                          'power_state': None, 'target_power_state': None,
                          'console_enabled': False, 'last_error': None,
                          'raid_config': {}, 'target_raid_config': {}},
                         body)
        old = self.get('/v1/nodes/node-1/states', version='1.11').get_json()
        self.assertNotIn('raid_config', old)


@ddt.ddt
class FieldsByVersionTest(base.ApiTestCase):

    @ddt.data(('deploy_step', '1.44', '1.43'),
              ('resource_class', '1.21', '1.20'),
              ('deploy_interface', '1.31', '1.30'),
              ('vendor_interface', '1.31', '1.30'),
              ('bios_interface', '1.40', '1.39'))
    @ddt.unpack
    def test_a_field_exists_from_its_version_on(self, field, since, before):
        self.create_node(name='node-1')
        self.assertIn(field, self.get('/v1/nodes/node-1',
                                      version=since).get_json())
        self.assertNotIn(field, self.get('/v1/nodes/node-1',
                                         version=before).get_json())
        self.assertNotIn(field, self.get('/v1/nodes/detail',
                                         version=before).get_json()[
                                             'nodes'][0])

    def test_asking_for_a_field_before_its_version_is_406(self):
        self.create_node(name='node-1')
        response = self.get('/v1/nodes/node-1?fields=deploy_step',
                            version='1.43')
        self.assertError(response, 406, 'deploy_step', '1.44', '1.43')

    def test_setting_a_field_before_its_version_is_406(self):
        response = self.post('/v1/nodes', version='1.20', json={
            'driver': 'fake-hardware', 'resource_class': 'gold'})
        self.assertError(response, 406, 'resource_class', '1.21')

    def test_patching_deploy_step_is_406_before_1_44_and_400_after(self):
        self.create_node(name='node-1')
        patch = [{'op': 'add', 'path': '/deploy_step', 'value': {}}]
        self.assertError(self.patch('/v1/nodes/node-1', json=patch,
                                    version='1.43'), 406, 'deploy_step')
        self.assertError(self.patch('/v1/nodes/node-1', json=patch,
                                    version='1.44'), 400, 'deploy_step',
                         'read-only')


class MaskingTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(
            name='node-1',
            driver_info={'ipmi_username': 'admin', 'ipmi_password': 'pw',
                         'nested': {'API_Key': 'k', 'port': 623}},
            driver_internal_info={'agent_secret_token': 't',
                                  'steps': [{'auth_token': 't2', 'n': 1}]},
            instance_info={'image_source': 'http://img', 'root_secret': 's'})

    def test_secrets_are_masked_at_any_depth_and_other_values_shown(self):
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual({'ipmi_username': 'admin',
                          'ipmi_password': masking.MASK,
                          'nested': {'API_Key': masking.MASK, 'port': 623}},
                         body['driver_info'])
        self.assertEqual({'agent_secret_token': masking.MASK,
                          'steps': [{'auth_token': masking.MASK, 'n': 1}]},
                         body['driver_internal_info'])
        self.assertEqual({'image_source': 'http://img',
                          'root_secret': masking.MASK},
                         body['instance_info'])

    def test_the_detailed_list_masks_secrets_too(self):
        node = self.get('/v1/nodes/detail').get_json()['nodes'][0]
        self.assertEqual(masking.MASK, node['driver_info']['ipmi_password'])

    def test_patching_next_to_a_secret_keeps_the_real_secret(self):
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/driver_info/ipmi_address',
             'value': '10.0.0.1'}])
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(masking.MASK,
                         response.get_json()['driver_info']['ipmi_password'])
        stored = objects.Node.get(self.context, 'node-1')
        self.assertEqual('pw', stored.driver_info['ipmi_password'])
        self.assertEqual('10.0.0.1', stored.driver_info['ipmi_address'])


class DeleteNodeTest(base.ApiTestCase):

    def test_an_enrolled_node_is_deleted_with_204(self):
        self.create_node(name='node-1')
        response = self.delete('/v1/nodes/node-1')
        self.assertEqual(204, response.status_code)
        self.assertEqual(b'', response.data)
        self.assertError(self.get('/v1/nodes/node-1'), 404)

    def test_a_deletion_logs_no_warning(self):
        # The lock goes with the row: nothing is left to release.
        logs = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        self.create_node(name='node-1')
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        self.assertEqual('', logs.output)

    def test_deleting_an_unknown_node_is_404(self):
        self.assertError(self.delete('/v1/nodes/no-such-node'), 404,
                         'no-such-node')

    def test_an_active_node_cannot_be_deleted(self):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.DEPLOYWAIT)
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        response = self.delete('/v1/nodes/node-1')
        self.assertError(response, 409, node.uuid, 'active')
        self.assertEqual(states.ACTIVE, objects.Node.get(
            self.context, node.uuid).provision_state)
