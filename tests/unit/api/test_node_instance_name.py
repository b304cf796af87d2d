"""Node ``instance_name`` (API 1.104) through the real API, conductor and
SQLite: set, shown, filtered, taken from ``instance_info/display_name``
and forgotten when the node is undeployed."""

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

AT = '1.104'
BEFORE = '1.103'


class InstanceNameTest(base.AheadOfTheLadderTestCase):

    def test_it_is_created_shown_and_absent_before_1_104(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'n1',
            'instance_name': 'web-1'}, version=AT)
        self.assertEqual(201, response.status_code, response.data)
        self.assertEqual('web-1', response.get_json()['instance_name'])
        self.assertEqual('web-1', self.get(
            '/v1/nodes/n1?fields=instance_name', version=AT).get_json()[
            'instance_name'])
        self.assertNotIn('instance_name', self.get(
            '/v1/nodes/n1', version=BEFORE).get_json())
        self.assertError(self.get('/v1/nodes/n1?fields=instance_name',
                                  version=BEFORE), 406, 'instance_name', AT)
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'n2',
            'instance_name': 'web-2'}, version=BEFORE), 406,
            'instance_name', AT)
        self.assertEqual(['n1'], [node.name for node in
                                  objects.Node.list(self.context)])

    def test_it_is_patched_and_an_empty_or_long_name_is_400(self):
        self.create_node(name='n1')
        response = self.patch('/v1/nodes/n1', json=[
            {'op': 'add', 'path': '/instance_name', 'value': 'db-1'}],
            version=AT)
        self.assertEqual('db-1', response.get_json()['instance_name'])
        for bad in ('', 'x' * 256, 7):
            self.assertError(self.patch('/v1/nodes/n1', json=[
                {'op': 'replace', 'path': '/instance_name', 'value': bad}],
                version=AT), 400, 'instance_name')
        self.assertEqual('db-1', objects.Node.get(self.context,
                                                  'n1').instance_name)
        response = self.patch('/v1/nodes/n1', json=[
            {'op': 'remove', 'path': '/instance_name'}], version=AT)
        self.assertIsNone(response.get_json()['instance_name'])

    def test_the_list_filters_by_it_from_1_104(self):
        self.create_node(name='n1', instance_name='web-1')
        self.create_node(name='n2', instance_name='web-2')
        self.create_node(name='n3')
        listed = self.get('/v1/nodes?instance_name=web-2',
                          version=AT).get_json()['nodes']
        self.assertEqual(['n2'], [node['name'] for node in listed])
        self.assertError(self.get('/v1/nodes?instance_name=web-2',
                                  version=BEFORE), 406, 'instance_name', AT)
        # and sorts by it from its version only
        named = [node['name'] for node in self.get(
            '/v1/nodes?sort_key=instance_name&sort_dir=desc&fields=name',
            version=AT).get_json()['nodes'] if node['name'] != 'n3']
        self.assertEqual(['n2', 'n1'], named)
        self.assertError(self.get('/v1/nodes?sort_key=instance_name',
                                  version=BEFORE), 406, 'instance_name')

    def test_a_display_name_names_a_node_without_an_instance_name(self):
        nodes = [self.create_node(name='n1'),
                 self.create_node(name='n2', instance_name='kept')]
        for node in nodes:
            # At any version, as Ironic: Nova's driver knows only
            # instance_info.
            response = self.patch('/v1/nodes/%s' % node.uuid, json=[
                {'op': 'add', 'path': '/instance_info/display_name',
                 'value': 'vm-7'}], version='1.1')
            self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(
            ['vm-7', 'kept'],
            [objects.Node.get(self.context, ident).instance_name
             for ident in ('n1', 'n2')])

    def test_undeploying_forgets_it(self):
        node = self.make_available(name='n1')
        self.assertEqual(200, self.patch('/v1/nodes/n1', json=[
            {'op': 'add', 'path': '/instance_name', 'value': 'web-1'}],
            version=AT).status_code)
        self.assertEqual(202, self.provision('n1', 'active',
                                             version=AT).status_code)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        active = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual('web-1', active.instance_name)
        self.assertEqual(202, self.provision('n1', 'deleted',
                                             version=AT).status_code)
        self.assertIsNone(self.wait_for_state(
            node, states.AVAILABLE).instance_name)


class PinnedTo012Test(base.AheadOfTheLadderTestCase):
    """Pinned to 0.12 (Node 1.6) the field does not exist."""

    conductor_config = {None: {'pin_release_version': '0.12'}}

    def test_it_is_refused_and_no_display_name_becomes_one(self):
        node = self.create_node(name='n1')
        self.assertError(self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'n2',
            'instance_name': 'web-2'}, version='latest'), 406,
            'instance_name')
        self.assertEqual(200, self.patch('/v1/nodes/%s' % node.uuid, json=[
            {'op': 'add', 'path': '/instance_info/display_name',
             'value': 'vm-7'}], version='1.1').status_code)
        self.assertIsNone(objects.Node.get(self.context, 'n1').instance_name)
