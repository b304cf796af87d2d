"""Maintenance (PUT/DELETE /v1/nodes/{node}/maintenance) and validation
(GET /v1/nodes/{node}/validate)."""

from ironic_steps import objects
from tests.unit.api import base


class MaintenanceTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')

    def stored(self):
        return objects.Node.get(self.context, self.node.uuid)

    def test_setting_it_with_a_reason_is_202_and_shown(self):
        response = self.put('/v1/nodes/node-1/maintenance',
                            json={'reason': 'disk swap'})
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual(b'', response.data)
        body = self.get('/v1/nodes/node-1').get_json()
        self.assertTrue(body['maintenance'])
        self.assertEqual('disk swap', body['maintenance_reason'])

    def test_the_reason_may_come_in_the_query_or_not_at_all(self):
        self.put('/v1/nodes/node-1/maintenance?reason=bios')
        self.assertEqual('bios', self.stored().maintenance_reason)
        self.assertEqual(202, self.put(
            '/v1/nodes/node-1/maintenance').status_code)
        self.assertTrue(self.stored().maintenance)
        self.assertIsNone(self.stored().maintenance_reason)

    def test_a_node_in_maintenance_is_deleted_in_any_state(self):
        # As in Ironic: Metal3 deletes a host stuck in a failed state so.
        node = self.stored()
        node.provision_state = 'inspect failed'
        node.save()
        self.assertError(self.delete('/v1/nodes/node-1'), 409,
                         'cannot be deleted while it is in state '
                         'inspect failed')
        self.assertEqual('inspect failed', self.stored().provision_state)
        self.put('/v1/nodes/node-1/maintenance',
                 json={'reason': 'forcing deletion'})
        self.assertEqual(204, self.delete('/v1/nodes/node-1').status_code)
        self.assertEqual(404, self.get('/v1/nodes/node-1').status_code)

    def test_unsetting_it_clears_the_reason_and_the_fault(self):
        node = self.stored()
        node.maintenance, node.maintenance_reason = True, 'x'
        node.fault = 'power failure'
        node.save()
        response = self.delete('/v1/nodes/node-1/maintenance')
        self.assertEqual(202, response.status_code, response.data)
        stored = self.stored()
        self.assertFalse(stored.maintenance)
        self.assertIsNone(stored.maintenance_reason)
        self.assertIsNone(stored.fault)

    def test_a_reason_that_is_not_a_string_is_400(self):
        self.assertError(self.put('/v1/nodes/node-1/maintenance',
                                  json={'reason': 5}), 400, 'reason')
        self.assertError(self.put('/v1/nodes/node-1/maintenance',
                                  json={'why': 'x'}), 400, 'why')

    def test_a_locked_node_is_409(self):
        objects.Node.reserve(self.context, 'other-conductor', self.node.id)
        self.assertError(self.put('/v1/nodes/node-1/maintenance'), 409,
                         'other-conductor')

    def test_an_unknown_node_is_404(self):
        self.assertError(self.delete('/v1/nodes/nope/maintenance'), 404,
                         'nope')


class ValidateTest(base.ApiTestCase):

    def test_each_interface_but_vendor_says_whether_the_node_will_do(self):
        node = self.create_node(name='node-1')
        body = self.get('/v1/nodes/node-1/validate').get_json()
        unsupported = {
            name: {'result': False, 'reason': body[name]['reason']}
            for name in ('console',)}
        self.assertEqual(dict({
            name: {'result': True, 'reason': None}
            for name in ('bios', 'boot', 'deploy', 'firmware', 'inspect',
                         'management',
                         'network', 'power', 'raid', 'rescue', 'storage')},
            **unsupported), body)
        self.assertIn(node.uuid, body['console']['reason'])
        self.assertIn('no-console', body['console']['reason'])

    def test_an_unknown_node_is_404(self):
        self.assertError(self.get('/v1/nodes/nope/validate'), 404, 'nope')
