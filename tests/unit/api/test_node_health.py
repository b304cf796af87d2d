"""Node ``health`` (API 1.109) through the real API and SQLite: read only,
shown from its version (what sets it is tested against the Redfish
emulator in tests/functional/test_redfish_driver.py, HealthTest)."""

from ironic_steps import objects
from tests.unit.api import base

AT = '1.109'
BEFORE = '1.108'


class NodeHealthTest(base.AheadOfTheLadderTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='n1')
        self.node.health = 'Critical'
        self.node.save()

    def test_it_is_shown_from_1_109_only(self):
        self.assertEqual('Critical', self.get('/v1/nodes/n1', version=AT)
                         .get_json()['health'])
        [listed] = self.get('/v1/nodes?fields=name,health',
                            version=AT).get_json()['nodes']
        self.assertEqual('Critical', listed['health'])
        self.assertNotIn('health', self.get('/v1/nodes/n1',
                                            version=BEFORE).get_json())
        self.assertError(self.get('/v1/nodes/n1?fields=health',
                                  version=BEFORE), 406, 'health', AT)

    def test_it_is_read_only(self):
        self.assertError(self.patch('/v1/nodes/n1', json=[
            {'op': 'replace', 'path': '/health', 'value': 'OK'}],
            version=AT), 400, 'health')
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'health': 'OK'}, version=AT), 400,
            'health')
        # Below its version a client sending it is told 406, never 400
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'health': 'OK'}, version=BEFORE),
            406, 'health', AT)
        self.assertEqual('Critical', objects.Node.get(self.context,
                                                      'n1').health)
        self.assertEqual(1, len(objects.Node.list(self.context)))
