"""The API under a release pin, and over oslo.messaging to conductors."""

import ddt

from ironic_steps.api import versions
from ironic_steps.common import states
from ironic_steps.conductor import registry
from ironic_steps import objects
from ironic_steps import release_mappings
from tests import base as tests_base
from tests.unit.api import base
from tests.unit.conductor import test_hash_ring


class PinnedApiTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.config(pin_release_version='0.1')
        self.make_client()

    def test_the_maximum_is_the_pinned_releases(self):
        body = self.get('/v1', version=None).get_json()
        self.assertEqual('1.43', body['version']['version'])
        response = self.get('/v1/nodes', version='latest')
        self.assertEqual('1.43', response.headers[versions.HEADER])
        self.assertEqual('1.43', response.headers[versions.MAX_HEADER])

    def test_deploy_step_does_not_exist_while_pinned_before_it(self):
        self.create_node(name='node-1')
        self.assertNotIn('deploy_step', self.get('/v1/nodes/node-1',
                                                 version='latest').get_json())
        self.assertError(self.get('/v1/nodes/node-1', version='1.44'), 406,
                         '[1.1, 1.43]')

    def test_unpinned_the_maximum_is_the_newest_releases(self):
        self.config(pin_release_version=None)
        self.assertEqual(
            release_mappings.RELEASE_MAPPING['master']['api'],
            versions.to_string(versions.max_version()))


class PinnedBeforeStepRequestsTest(base.ApiTestCase):
    """Pinned to 0.2 (deploy steps, but no requested steps): what the
    conductors of that release cannot do is refused, clearly."""

    def setUp(self):
        super().setUp()
        self.config(pin_release_version='0.2')
        self.make_client()

    def request(self, method, path, version='1.44', **kwargs):
        return super().request(method, path, version=version, **kwargs)

    def test_the_maximum_stays_1_44(self):
        self.assertEqual('1.44', self.get('/v1/nodes', version='latest')
                         .headers[versions.MAX_HEADER])
        self.assertError(self.get('/v1/nodes', version='1.69'), 406,
                         '[1.1, 1.44]')

    def test_manual_cleaning_and_abort_are_refused_naming_the_pin(self):
        node = self.create_node(name='node-1')
        self.provision('node-1', 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'clean_steps': [
                {'interface': 'deploy', 'step': 'erase_devices_metadata'}]})
        self.assertError(response, 406, 'Manual cleaning', '0.2')
        self.assertError(self.provision('node-1', 'abort'), 406,
                         'Aborting', '0.2')
        self.assertEqual(node.updated_at, objects.Node.get(
            self.context, node.uuid).updated_at)

    def test_agents_need_no_token_and_get_none(self):
        node = self.make_available(name='node-1')
        self.assertEqual(202, self.provision('node-1', 'active').status_code)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        looked_up = self.get('/v1/lookup?node_uuid=%s' % node.uuid,
                             version='latest').get_json()
        self.assertNotIn('agent_token', looked_up['config'])
        self.assertEqual(202, self.post('/v1/heartbeat/node-1').status_code)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn('agent_secret_token', node.driver_internal_info)

    def test_active_on_an_active_node_is_still_refused(self):
        node = self.make_available(name='node-1')
        self.provision('node-1', 'active')
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        self.wait_for_state(node, states.ACTIVE)
        self.assertError(self.provision('node-1', 'active'), 400,
                         "'deploy'", "'active'")


class TwoConductorsOverMessaging(base.ApiTestMixin):
    """The API over two conductors behind oslo.messaging's in-memory
    transport (mix in before a TestCase)."""

    wait_for_state = tests_base.ConductorTestCase.wait_for_state

    def setUp(self):
        super().setUp()
        self.use_in_memory_messaging()
        self.useFixture(tests_base.RPCConductors(
            self.context, ['conductor-a', 'conductor-b']))
        self.make_client()


class OverMessagingTest(TwoConductorsOverMessaging, tests_base.TestCase):
    """Two conductors behind oslo.messaging's in-memory transport."""

    def test_nodes_are_created_and_provided_through_their_conductor(self):
        node = self.api_create(name='node-1')
        self.assertEqual(202, self.provision('node-1', 'manage').status_code)
        self.wait_for_state(objects.Node.get(
            self.context, node['uuid']), states.MANAGEABLE)

    def test_power_raid_validate_and_conductor_go_through_the_ring(self):
        node = self.api_create(name='node-1')
        owner = registry.conductor_for(node['uuid'], node['driver'])
        self.assertEqual(owner, self.get('/v1/nodes/node-1').get_json()[
            'conductor'])
        self.assertEqual(202, self.put(
            '/v1/nodes/node-1/states/power',
            json={'target': states.POWER_ON}).status_code)
        layout = {'logical_disks': [{'size_gb': 1, 'raid_level': '0'}]}
        self.assertEqual(204, self.put('/v1/nodes/node-1/states/raid',
                                       json=layout).status_code)
        validated = self.get('/v1/nodes/node-1/validate').get_json()
        self.assertTrue(validated['power']['result'])
        stored = self.wait_for_state(objects.Node.get(
            self.context, node['uuid']), states.ENROLL)
        self.assertEqual(states.POWER_ON, stored.power_state)
        self.assertEqual(layout, stored.target_raid_config)

    def test_conductor_errors_keep_their_status_but_not_their_traceback(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'power_interface': 'ipmitool'})
        message = self.assertError(response, 400, 'ipmitool')
        self.assertNotIn('Traceback', message)
        response = self.post('/v1/nodes', json={'driver': 'no-such-driver'})
        message = self.assertError(response, 400, 'no-such-driver')
        self.assertNotIn('Traceback', message)


class ConductorsServingDifferentTypesTest(base.ApiTestMixin,
                                          tests_base.TestCase):
    """conductor-b serves fake-hardware and redfish; conductor-a, alive,
    registered fake-hardware only and answers no call at all (it has no
    RPC server), so a redfish request routed to it would time out."""

    wait_for_state = tests_base.ConductorTestCase.wait_for_state

    def setUp(self):
        super().setUp()
        self.use_in_memory_messaging(response_timeout=3)
        self.useFixture(tests_base.RPCConductors(self.context,
                                                 ['conductor-b']))
        registry.register('conductor-a', {
            'fake-hardware': {'deploy': ('fake',)}})
        self.make_client()

    def create_redfish(self, **fields):
        return self.api_create(driver='redfish', driver_info={
            'redfish_address': 'http://127.0.0.1:9'}, **fields)

    def test_every_redfish_request_reaches_the_conductor_serving_it(self):
        nodes = [self.create_redfish(name='rf-%d' % index)
                 for index in range(4)]
        nodes.append(self.create_redfish(
            uuid='0f8c5e5e-8a7b-4e0c-9f3e-2a4b6c8d0e1f'))
        for node in nodes:
            self.assertEqual('conductor-b', self.get(
                '/v1/nodes/%s' % node['uuid']).get_json()['conductor'])
            self.assertEqual(200, self.get(
                '/v1/nodes/%s/validate' % node['uuid']).status_code)
            patched = self.patch('/v1/nodes/%s' % node['uuid'], json=[
                {'op': 'add', 'path': '/extra/rack', 'value': 'r1'}])
            self.assertEqual(200, patched.status_code, patched.data)
        self.assertEqual([], self.get(
            '/v1/nodes?conductor=conductor-a').get_json()['nodes'])
        properties = self.get('/v1/drivers/redfish/properties').get_json()
        self.assertIn('redfish_address', properties)

    def test_fake_hardware_nodes_spread_over_both(self):
        conductors = {registry.conductor_for(uuid, 'fake-hardware')
                      for uuid in test_hash_ring.node_uuids(50)}
        self.assertEqual({'conductor-a', 'conductor-b'}, conductors)

    def test_the_api_shows_what_each_conductor_serves(self):
        drivers = self.get('/v1/drivers').get_json()['drivers']
        self.assertEqual(
            [('fake-hardware', ['conductor-a', 'conductor-b']),
             ('redfish', ['conductor-b'])],
            [(d['name'], d['hosts']) for d in drivers])
        self.assertEqual(['fake-hardware'], self.get(
            '/v1/conductors/conductor-a').get_json()['drivers'])
        self.assertEqual(['fake-hardware', 'redfish'], self.get(
            '/v1/conductors/conductor-b').get_json()['drivers'])


@ddt.ddt
class PinnedBeforeTheNodeApiTest(base.ApiTestCase):
    """Pinned to 0.2, the release before power, RAID, validation and the
    node fields of RPC 1.2 / Node 1.2: none of it is offered or written."""

    def setUp(self):
        super().setUp()
        self.config(pin_release_version='0.2')
        self.make_client()
        self.node = self.create_node(name='node-1')

    def test_the_maximum_stays_1_44(self):
        response = self.get('/v1/nodes/node-1', version='latest')
        self.assertEqual('1.44', response.headers[versions.HEADER])
        self.assertNotIn('owner', response.get_json())
        self.assertError(self.get('/v1/conductors', version='1.49'), 406,
                         '1.44')

    def test_features_needing_the_new_conductors_are_refused_clearly(self):
        for response, feature in (
                (self.put('/v1/nodes/node-1/states/power', version='1.44',
                          json={'target': states.POWER_ON}), 'power state'),
                (self.put('/v1/nodes/node-1/states/raid', json={},
                          version='1.44'), 'RAID configuration'),
                (self.get('/v1/nodes/node-1/validate', version='1.44'),
                 'Validating'),
                (self.post('/v1/nodes', version='1.10',
                           json={'driver': 'fake-hardware'}),
                 'starts available')):
            self.assertError(response, 406, feature, 'release 0.2',
                             'pin_release_version')
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertIsNone(stored.power_state)

    def test_a_node_looks_as_release_0_2_showed_it(self):
        body = self.get('/v1/nodes/node-1', version='1.44').get_json()
        for field in ('traits', 'raid_config', 'fault', 'console_enabled',
                      'inspection_started_at', 'network_interface',
                      'console_interface', 'rescue_interface'):
            self.assertNotIn(field, body)
        self.assertIn('deploy_step', body)
        self.assertError(self.get('/v1/nodes/node-1?fields=raid_config',
                                  version='1.44'), 406, 'raid_config',
                         'release 0.2')

    @ddt.data(('network_interface', 'noop'),
              ('console_interface', 'no-console'))
    @ddt.unpack
    def test_a_field_that_release_lacks_is_refused_not_dropped(
            self, field, value):
        node = objects.Node.get(self.context, self.node.uuid)
        for response in (
                self.patch('/v1/nodes/node-1', version='1.44', json=[
                    {'op': 'replace', 'path': '/' + field,
                     'value': value}]),
                self.post('/v1/nodes', version='1.44', json={
                    'driver': 'fake-hardware', field: value})):
            self.assertError(response, 406, field, 'release 0.2')
        self.assertNodeUnchanged(node)
        self.assertEqual(1, len(objects.Node.list(self.context)))

    def test_maintenance_still_works_through_the_old_update(self):
        self.assertEqual(202, self.put('/v1/nodes/node-1/maintenance',
                                       json={'reason': 'x'},
                                       version='1.44').status_code)
        self.assertEqual('x', objects.Node.get(
            self.context, self.node.uuid).maintenance_reason)

    def test_the_new_columns_are_not_written(self):
        node = objects.Node.get(self.context, self.node.uuid)
        node.owner = 'p1'
        node.target_raid_config = {'logical_disks': []}
        node.extra = {'still': 'written'}
        node.save()
        stored = objects.Node.get(self.context, self.node.uuid)
        self.assertIsNone(stored.owner)
        self.assertIsNone(stored.target_raid_config)
        self.assertEqual({'still': 'written'}, stored.extra)
        created = objects.Node(self.context, driver='fake-hardware',
                               provision_state=states.ENROLL,
                               description='not written')
        created.create()
        self.assertIsNone(created.description)
