"""The API under a release pin, and over oslo.messaging to conductors."""

from oslo_messaging import conffixture

from ironic_steps.api import versions
from ironic_steps.common import release_mappings
from ironic_steps.common import states
from ironic_steps.conductor import rpcapi
from ironic_steps.conf import CONF
from ironic_steps import objects
from tests import base as tests_base
from tests.unit.api import base


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


class OverMessagingTest(base.ApiTestMixin, tests_base.TestCase):
    """Two conductors behind oslo.messaging's in-memory transport."""

    wait_for_state = tests_base.ConductorTestCase.wait_for_state

    def setUp(self):
        super().setUp()
        self.useFixture(conffixture.ConfFixture(CONF,
                                                transport_url='fake:/'))
        self.config(rpc_transport='oslo')
        self.config(rpc_response_timeout=10)
        self.useFixture(tests_base.RPCConductors(
            self.context, ['conductor-a', 'conductor-b']))
        rpcapi._hash_ring().reset()
        self.addCleanup(rpcapi._hash_ring().reset)
        self.make_client()

    def test_nodes_are_created_and_provided_through_their_conductor(self):
        node = self.api_create(name='node-1')
        self.assertEqual(202, self.provision('node-1', 'manage').status_code)
        self.wait_for_state(objects.Node.get(
            self.context, node['uuid']), states.MANAGEABLE)

    def test_conductor_errors_keep_their_status_but_not_their_traceback(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'power_interface': 'ipmitool'})
        message = self.assertError(response, 400, 'ipmitool')
        self.assertNotIn('Traceback', message)
        response = self.post('/v1/nodes', json={'driver': 'no-such-driver'})
        message = self.assertError(response, 400, 'no-such-driver')
        self.assertNotIn('Traceback', message)
