"""POST /v1/continue_inspection (API 1.84): the agent of a node inspected
in band posts its inventory, anonymously, and the node is found by what
the inventory says of the machine, as Ironic finds it."""

import copy
import os

import bcrypt
import ddt
import fixtures

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.drivers.modules import agent_inspect
from ironic_steps import objects
from tests.unit.api import base

PATH = '/v1/continue_inspection'
MAC = '52:54:00:12:34:56'
BMC = '192.0.2.200'
INVENTORY = {
    'cpu': {'count': 16, 'architecture': 'x86_64'},
    'memory': {'physical_mb': 65536},
    'disks': [{'name': '/dev/sda', 'size': 480 * 1024 ** 3}],
    'interfaces': [{'name': 'eno1', 'mac_address': MAC,
                    'ipv4_address': '192.0.2.20'}],
    'boot': {'current_boot_mode': 'uefi', 'pxe_interface': MAC},
}


def inventory(**changes):
    found = copy.deepcopy(INVENTORY)
    found.update(changes)
    return found


class _ContinueInspectionTestCase(base.ApiTestCase):

    def waiting(self, name='node-1', driver_info=None, port=MAC):
        """A node of the agent inspect interface in ``inspect wait`` (the
        fake agent is off: the test posts for it)."""
        node = self.api_create(name=name, inspect_interface='agent',
                               driver_info=driver_info or {})
        if port:
            response = self.post('/v1/ports', json={
                'node_uuid': node['uuid'], 'address': port})
            self.assertEqual(201, response.status_code, response.data)
        self.assertEqual(202, self.provision(name, 'manage').status_code)
        self.wait_for_state(objects.Node.get(self.context, name),
                            states.MANAGEABLE)
        response = self.provision(name, 'inspect', version='1.84')
        self.assertEqual(202, response.status_code, response.data)
        return self.wait_for_state(objects.Node.get(self.context, name),
                                   states.INSPECTWAIT)

    def post_inventory(self, body, version='1.84', query=''):
        return self.post(PATH + query, json=body, version=version)


@ddt.ddt
class ContinueInspectionTest(_ContinueInspectionTestCase):

    def test_the_agent_posts_and_the_inventory_is_recorded(self):
        node = self.waiting()
        response = self.post_inventory({'inventory': INVENTORY,
                                        'root_disk': {'name': '/dev/sda'}})
        self.assertEqual(202, response.status_code, response.data)
        answer = response.get_json()
        self.assertEqual(node.uuid, answer['node']['uuid'])
        self.assertEqual({'uuid', 'properties', 'instance_info',
                          'driver_internal_info'}, set(answer['node']))
        config = answer['config']
        self.assertIs(True, config['agent_token_required'])
        self.assertGreaterEqual(len(config['agent_token']), 32)
        self.assertEqual(
            '******', answer['node']['driver_internal_info'].get(
                'agent_secret_token', '******'))
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual((16, 65536, 479, 'x86_64'),
                         tuple(node.properties[key] for key in (
                             'cpus', 'memory_mb', 'local_gb', 'cpu_arch')))
        shown = self.get('/v1/nodes/node-1/inventory', version='1.84')
        self.assertEqual({'inventory': INVENTORY,
                          'plugin_data': {'root_disk': {'name': '/dev/sda'}}},
                         shown.get_json())

    def test_without_a_version_it_answers_as_ironic_inspector_did(self):
        node = self.waiting()
        response = self.post_inventory({'inventory': INVENTORY},
                                       version=None)
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual({'uuid': node.uuid}, response.get_json())
        self.wait_for_state(node, states.MANAGEABLE)

    @ddt.data('1.2', '1.22', '1.83')
    def test_between_1_2_and_1_83_the_endpoint_does_not_exist(self, version):
        node = self.waiting()
        self.assertError(self.post_inventory({'inventory': INVENTORY},
                                             version=version), 404, '1.84')
        self.assertEqual(states.INSPECTWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_v1_links_to_it_from_1_84(self):
        self.assertIn('continue_inspection',
                      self.get('/v1', version='1.84').get_json())
        self.assertNotIn('continue_inspection',
                         self.get('/v1', version='1.83').get_json())

    def test_the_node_is_found_by_its_bmc_address_without_a_port(self):
        node = self.waiting(driver_info={
            'redfish_address': 'https://%s:8000' % BMC}, port=None)
        self.assertEqual([BMC], node.driver_internal_info[
            agent_inspect.LOOKUP_KEY])
        response = self.post_inventory({'inventory': inventory(
            bmc_address=BMC)})
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual(node.uuid, response.get_json()['node']['uuid'])
        self.wait_for_state(node, states.MANAGEABLE)

    def test_the_node_is_found_by_node_uuid(self):
        node = self.waiting(port=None)
        response = self.post_inventory({'inventory': INVENTORY},
                                       query='?node_uuid=%s' % node.uuid)
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.MANAGEABLE)

    def test_a_port_of_another_node_than_node_uuid_finds_nothing(self):
        self.waiting('node-1')
        other = self.waiting('node-2', port='52:54:00:00:00:02')
        self.assertError(self.post_inventory(
            {'inventory': INVENTORY}, query='?node_uuid=%s' % other.uuid),
            404, 'No node waiting')

    def test_a_bmc_of_another_node_than_the_ports_finds_nothing(self):
        first = self.waiting('node-1')
        self.waiting('node-2', port='52:54:00:00:00:02',
                     driver_info={'ipmi_address': BMC})
        self.assertError(self.post_inventory(
            {'inventory': inventory(bmc_address=BMC)}), 404)
        self.assertEqual(states.INSPECTWAIT, objects.Node.get(
            self.context, first.uuid).provision_state)

    def test_every_reason_to_find_nothing_says_the_same(self):
        node = self.api_create(name='manageable-1')
        self.post('/v1/ports', json={'node_uuid': node['uuid'],
                                     'address': MAC})
        not_waiting = self.assertError(
            self.post_inventory({'inventory': INVENTORY}), 404)
        unknown = self.assertError(self.post_inventory({
            'inventory': inventory(interfaces=[
                {'name': 'eth0', 'mac_address': '52:54:00:99:99:99'}])}),
            404)
        self.assertEqual(not_waiting, unknown)
        self.assertNotIn(node['uuid'], not_waiting)

    def test_a_locked_or_busy_node_is_409_and_changes_nothing(self):
        node = self.waiting()
        objects.Node.reserve(self.context, 'other-conductor', node.id)
        self.config(node_locked_retry_attempts=1, group='conductor')
        self.assertError(self.post_inventory({'inventory': INVENTORY}), 409)
        self.assertRaises(exception.NodeInventoryNotFound,
                          objects.NodeInventory.get_by_node_id,
                          self.context, node.id)
        self.assertEqual(states.INSPECTWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)

    @ddt.data(
        ([], 'JSON object'),
        ({}, '"inventory" must be a JSON object'),
        ({'inventory': 'x'}, '"inventory" must be a JSON object'),
        ({'inventory': inventory(cpu={'count': 'many',
                                      'architecture': 'x86_64'})},
         'malformed at cpu/count'),
        ({'inventory': {'cpu': {'count': 1, 'architecture': 'x86_64'},
                        'memory': {'physical_mb': 1}}},
         "'interfaces' is a required property"),
        ({'inventory': inventory(interfaces=[])}, 'no network interface'),
        ({'inventory': inventory(interfaces=[{'name': 'eth0'}])},
         'interfaces/0: it has no mac_address'),
        ({'inventory': inventory(bmc_address=5)}, 'bmc_address'),
        ({'inventory': inventory(interfaces=[
            {'name': 'eth0', 'mac_address': 'not-a-mac'}])},
         'nothing to find the node by'),
    )
    @ddt.unpack
    def test_a_bad_body_is_400_naming_the_problem_and_changes_nothing(
            self, body, fragment):
        node = self.waiting()
        self.assertError(self.post_inventory(body), 400, fragment)
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual((states.INSPECTWAIT, None),
                         (node.provision_state, node.reservation))

    def test_a_bad_node_uuid_or_an_unknown_parameter_is_400(self):
        self.assertError(self.post_inventory(
            {'inventory': INVENTORY}, query='?node_uuid=node-1'), 400,
            'node_uuid')
        self.assertError(self.post_inventory(
            {'inventory': INVENTORY}, query='?addresses=%s' % MAC), 400,
            'addresses')

    def test_node_uuid_at_1_1_is_404(self):
        node = self.waiting()
        self.assertError(self.post_inventory(
            {'inventory': INVENTORY}, version=None,
            query='?node_uuid=%s' % node.uuid), 404, '1.84')

    def test_it_needs_no_credentials_under_http_basic(self):
        node = self.waiting()
        directory = self.useFixture(fixtures.TempDir()).path
        htpasswd = os.path.join(directory, 'htpasswd')
        with open(htpasswd, 'w') as users:
            users.write('admin:%s\n' % bcrypt.hashpw(
                b'secret', bcrypt.gensalt(4)).decode())
        self.config(auth_strategy='http_basic')
        self.config(http_basic_auth_user_file=htpasswd, group='api')
        self.make_client()
        self.assertEqual(401, self.get('/v1/nodes').status_code)
        response = self.post_inventory({'inventory': INVENTORY})
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.MANAGEABLE)

    def test_a_lookup_finds_a_node_in_inspect_wait(self):
        node = self.waiting()
        response = self.get('/v1/lookup?addresses=%s' % MAC,
                            version='1.84')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(node.uuid, response.get_json()['node']['uuid'])


class PinnedTo011Test(_ContinueInspectionTestCase):
    """Release 0.11 inspects out of band only."""

    conductor_config = {None: {'pin_release_version': '0.11'}}

    def test_the_endpoint_is_404_and_refused_at_1_1_naming_the_release(
            self):
        # A node waiting in inspect wait as release 0.11 can (fake's test
        # mode), with a port of the inventory's MAC address.
        node = self.api_create(name='node-1', inspect_interface='fake',
                               driver_info={'fake_inspect_wait': True})
        self.post('/v1/ports', json={'node_uuid': node['uuid'],
                                     'address': MAC})
        self.provision('node-1', 'manage')
        self.wait_for_state(objects.Node.get(self.context, 'node-1'),
                            states.MANAGEABLE)
        self.provision('node-1', 'inspect', version='1.83')
        self.wait_for_state(objects.Node.get(self.context, 'node-1'),
                            states.INSPECTWAIT)
        self.assertError(self.post_inventory({'inventory': INVENTORY},
                                             version='1.84'), 406)
        self.assertError(self.post_inventory({'inventory': INVENTORY},
                                             version='1.83'), 404)
        self.assertError(self.post_inventory({'inventory': INVENTORY},
                                             version=None), 406, '0.12')
        self.assertEqual(states.INSPECTWAIT, objects.Node.get(
            self.context, 'node-1').provision_state)

    def test_a_node_cannot_get_the_agent_inspect_interface(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'inspect_interface': 'agent'},
            version='1.83')
        self.assertError(response, 406, '0.12')
