"""Inspection through the API: the ``inspect`` target (1.6), ``inspect
wait`` as older versions show it (1.39), aborting it (1.41), and what the
last inspection found (``GET /v1/nodes/{node}/inventory``, 1.81).

Through the real API, a real conductor and fake hardware on SQLite.
"""

import ddt

from ironic_steps.common import states
from ironic_steps.drivers.modules import fake_inspect
from ironic_steps import objects
from tests.unit.api import base

INVENTORY = '/v1/nodes/node-1/inventory'


class _InspectionApiTestCase(base.ApiTestCase):

    def manageable(self, **fields):
        node = self.create_node(name='node-1', **fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def inspect(self, version='1.6', ends_in=states.MANAGEABLE):
        response = self.provision('node-1', 'inspect', version=version)
        self.assertEqual(202, response.status_code, response.data)
        return self.wait_for_state(objects.Node.get(self.context, 'node-1'),
                                   ends_in)


@ddt.ddt
class InspectTargetTest(_InspectionApiTestCase):

    def test_inspect_reads_the_hardware_and_shows_the_times(self):
        node = self.manageable(properties={'cpus': 2})
        self.assertIsNone(self.get('/v1/nodes/node-1', version='1.6')
                          .get_json()['inspection_finished_at'])
        response = self.provision('node-1', 'inspect', version='1.6')
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual('http://localhost/v1/nodes/%s/states' % node.uuid,
                         response.headers['Location'])
        node = self.wait_for_state(node, states.MANAGEABLE)
        body = self.get('/v1/nodes/node-1', version='latest').get_json()
        self.assertEqual(2, body['properties']['cpus'])
        self.assertIsNotNone(body['inspection_started_at'])
        self.assertIsNotNone(body['inspection_finished_at'])
        self.assertLessEqual(body['inspection_started_at'],
                             body['inspection_finished_at'])
        ports = self.get('/v1/ports?node=node-1', version='latest')
        self.assertEqual([fake_inspect.mac_addresses(node.uuid)[0]],
                         [port['address'] for port in
                          ports.get_json()['ports']])

    def test_inspect_needs_1_6(self):
        node = self.manageable()
        self.assertError(self.provision('node-1', 'inspect', version='1.5'),
                         406, "'inspect'", '1.6')
        self.assertNodeUnchanged(node)

    def test_an_enrolled_node_is_not_inspected(self):
        node = self.create_node(name='node-1')
        self.assertError(self.provision('node-1', 'inspect'), 400,
                         "'inspect'", "'enroll'", 'manage')
        self.assertNodeUnchanged(node)

    def test_a_node_with_no_inspect_is_400_naming_it(self):
        node = self.manageable(inspect_interface='no-inspect')
        self.assertError(self.provision('node-1', 'inspect'), 400,
                         'no-inspect')
        self.assertNodeUnchanged(node)

    def test_a_failure_is_inspect_failed_and_its_last_error(self):
        self.manageable(driver_info={
            'fake_fail_step': 'inspect.inspect_hardware'})
        self.inspect(ends_in=states.INSPECTFAIL)
        body = self.get('/v1/nodes/node-1/states').get_json()
        self.assertEqual(states.INSPECTFAIL, body['provision_state'])
        self.assertIn('simulated failure', body['last_error'])
        # The operator takes it back.
        self.assertEqual(202, self.provision('node-1', 'manage').status_code)
        self.wait_for_state(objects.Node.get(self.context, 'node-1'),
                            states.MANAGEABLE)

    @ddt.data(('1.38', states.INSPECTING), ('1.39', states.INSPECTWAIT))
    @ddt.unpack
    def test_inspect_wait_is_shown_as_such_from_1_39(self, version, shown):
        self.manageable(driver_info={'fake_inspect_wait': True})
        self.inspect(ends_in=states.INSPECTWAIT)
        for path in ('/v1/nodes/node-1', '/v1/nodes/node-1/states'):
            body = self.get(path, version=version).get_json()
            self.assertEqual(shown, body['provision_state'], path)

    def test_an_inspection_that_waits_is_aborted_from_1_41(self):
        self.manageable(driver_info={'fake_inspect_wait': True})
        node = self.inspect(ends_in=states.INSPECTWAIT)
        self.assertError(self.provision('node-1', 'abort', version='1.40'),
                         406, 'Aborting an inspection', '1.41')
        self.assertNodeUnchanged(node)
        self.assertEqual(202, self.provision('node-1', 'abort',
                                             version='1.41').status_code)
        node = self.wait_for_state(node, states.INSPECTFAIL)
        self.assertIn('aborted by request', node.last_error)


class InventoryTest(_InspectionApiTestCase):

    def test_the_inventory_of_the_last_inspection_is_shown(self):
        node = self.manageable()
        self.inspect()
        response = self.get(INVENTORY, version='1.81')
        self.assertEqual(200, response.status_code, response.data)
        body = response.get_json()
        self.assertEqual({'inventory', 'plugin_data'}, set(body))
        self.assertEqual(fake_inspect.inventory(node, 'uefi'),
                         body['inventory'])
        self.assertEqual({}, body['plugin_data'])
        # The same by UUID.
        self.assertEqual(body, self.get('/v1/nodes/%s/inventory' % node.uuid,
                                        version='latest').get_json())

    def test_a_node_never_inspected_has_none_404_naming_it(self):
        node = self.manageable()
        self.assertError(self.get(INVENTORY, version='1.81'), 404,
                         'Node inventory for node %s could not be found'
                         % node.uuid)

    def test_the_endpoint_exists_from_1_81(self):
        self.manageable()
        self.inspect()
        self.assertError(self.get(INVENTORY, version='1.80'), 404, '1.81')

    def test_an_unknown_node_is_404(self):
        self.assertError(self.get('/v1/nodes/nope/inventory',
                                  version='latest'), 404, 'nope')

    def test_the_inventory_goes_with_its_node(self):
        node = self.manageable()
        self.inspect()
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        self.assertRaises(Exception, objects.NodeInventory.get_by_node_id,
                          self.context, node.id)

    def test_reading_it_needs_its_rule(self):
        self.manageable()
        self.inspect()
        self.use_policy({'baremetal:node:inventory:get': '!'})
        self.assertError(self.get(INVENTORY, version='latest'), 403,
                         'baremetal:node:inventory:get')


class PinnedTo010Test(_InspectionApiTestCase):
    """Release 0.10 has no inspection: the API answers as 0.10 did."""

    conductor_config = {None: {'pin_release_version': '0.10'}}

    def test_inspect_is_refused_and_nothing_recorded(self):
        node = self.manageable()
        self.assertEqual('1.80', self.get('/v1').get_json()['version'][
            'version'])
        self.assertError(self.provision('node-1', 'inspect',
                                        version='1.80'), 406, '0.11')
        self.assertNodeUnchanged(node)
        self.assertError(self.get(INVENTORY, version='1.81'), 406, '1.80')
        self.assertError(self.get(INVENTORY, version='1.80'), 404)
