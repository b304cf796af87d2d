"""What a node looks like at each microversion from 1.1 to 1.69, as Ironic.

A client that negotiates version V may rely on what Ironic's node API has
at V: every field exists from its version on and not before, and the few
behaviours older versions had (nodes created ``available``, ``available``
shown as null, names that are host names) are kept at those versions.
"""

import ddt

from ironic_steps.api import node_view
from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

#: (field, the version it appears in, the version before).
NEW_FIELDS = (
    ('driver_internal_info', '1.3', '1.2'),
    ('name', '1.5', '1.4'),
    ('inspection_started_at', '1.6', '1.5'),
    ('inspection_finished_at', '1.6', '1.5'),
    ('clean_step', '1.7', '1.6'),
    ('raid_config', '1.12', '1.11'),
    ('target_raid_config', '1.12', '1.11'),
    ('network_interface', '1.20', '1.19'),
    ('console_interface', '1.31', '1.30'),
    ('inspect_interface', '1.31', '1.30'),
    ('storage_interface', '1.33', '1.32'),
    ('rescue_interface', '1.38', '1.37'),
    ('fault', '1.42', '1.41'),
    ('conductor_group', '1.46', '1.45'),
    ('automated_clean', '1.47', '1.46'),
    ('protected', '1.48', '1.47'),
    ('protected_reason', '1.48', '1.47'),
    ('conductor', '1.49', '1.48'),
    ('owner', '1.50', '1.49'),
    ('description', '1.51', '1.50'),
    ('allocation_uuid', '1.52', '1.51'),
    ('retired', '1.61', '1.60'),
    ('retired_reason', '1.61', '1.60'),
    ('lessee', '1.65', '1.64'),
    ('network_data', '1.66', '1.65'),
)


def _version(text):
    return tuple(int(part) for part in text.split('.'))


#: (link, the version it appears in, the version before).
NEW_LINKS = (
    ('states', '1.14', '1.13'),
    ('portgroups', '1.24', '1.23'),
    ('volume', '1.32', '1.31'),
)


@ddt.ddt
class NewFieldsTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1')
        self.url = '/v1/nodes/%s' % self.node.uuid

    @ddt.data(*NEW_FIELDS)
    @ddt.unpack
    def test_each_field_is_absent_before_its_version_and_present_at_it(
            self, field, since, before):
        self.assertEqual(since, '%d.%d' % node_view.since(field))
        self.assertIn(field, self.get(self.url, version=since).get_json())
        self.assertNotIn(field, self.get(self.url,
                                         version=before).get_json())
        detail = self.get('/v1/nodes/detail', version=before).get_json()
        self.assertNotIn(field, detail['nodes'][0])

    @ddt.data(*NEW_FIELDS)
    @ddt.unpack
    def test_asking_for_a_field_before_its_version_is_406(
            self, field, since, before):
        if _version(before) < (1, 8):
            return   # ?fields itself needs 1.8 (see OldVersionsTest)
        response = self.get('%s?fields=%s' % (self.url, field),
                            version=before)
        self.assertError(response, 406, field, since)
        body = self.get('%s?fields=%s' % (self.url, field),
                        version=since).get_json()
        self.assertEqual({field, 'links'}, set(body))

    @ddt.data(*NEW_LINKS)
    @ddt.unpack
    def test_each_resource_link_appears_at_its_version(self, link, since,
                                                       before):
        self.assertIn(link, self.get(self.url, version=since).get_json())
        self.assertNotIn(link, self.get(self.url, version=before).get_json())

    def test_resource_links_go_with_the_whole_node_only(self):
        body = self.get(self.url).get_json()
        self.assertEqual(
            [{'href': 'http://localhost/v1/nodes/%s/ports' % self.node.uuid,
              'rel': 'self'},
             {'href': 'http://localhost/nodes/%s/ports' % self.node.uuid,
              'rel': 'bookmark'}], body['ports'])
        self.assertEqual(set(node_view.RESOURCE_LINKS),
                         set(node_view.RESOURCE_LINKS) & set(body))
        trimmed = self.get(self.url + '?fields=uuid').get_json()
        self.assertEqual({'uuid', 'links'}, set(trimmed))
        listed = self.get('/v1/nodes').get_json()['nodes'][0]
        self.assertNotIn('ports', listed)

    def test_a_node_at_1_44_has_every_field_ironic_shows_there(self):
        ironic_1_44 = {
            'uuid', 'name', 'driver', 'resource_class', 'instance_uuid',
            'chassis_uuid', 'provision_state', 'target_provision_state',
            'provision_updated_at', 'power_state', 'target_power_state',
            'console_enabled', 'maintenance', 'maintenance_reason', 'fault',
            'last_error', 'reservation', 'inspection_started_at',
            'inspection_finished_at', 'clean_step', 'deploy_step',
            'driver_info', 'driver_internal_info', 'instance_info',
            'properties', 'extra', 'raid_config', 'target_raid_config',
            'traits', 'bios_interface', 'boot_interface', 'console_interface',
            'deploy_interface', 'inspect_interface', 'management_interface',
            'network_interface', 'power_interface', 'raid_interface',
            'rescue_interface', 'storage_interface', 'vendor_interface',
            'created_at', 'updated_at', 'links', 'ports', 'portgroups',
            'states', 'volume'}
        self.assertEqual(ironic_1_44, set(self.get(
            self.url, version='1.44').get_json()))

    def test_the_new_fields_read_as_in_ironic_on_a_new_node(self):
        body = self.get(self.url).get_json()
        self.assertEqual({
            'chassis_uuid': None, 'console_enabled': False, 'fault': None,
            'raid_config': {}, 'target_raid_config': {},
            'inspection_started_at': None, 'inspection_finished_at': None,
            'console_interface': 'no-console',
            'inspect_interface': 'fake', 'network_interface': 'noop',
            'rescue_interface': 'fake', 'storage_interface': 'noop',
            'conductor_group': '', 'automated_clean': None,
            'protected': False, 'protected_reason': None,
            'conductor': 'test-conductor', 'owner': None,
            'description': None, 'allocation_uuid': None, 'retired': False,
            'retired_reason': None, 'lessee': None, 'network_data': {}},
            {field: body[field] for field in (
                'chassis_uuid', 'console_enabled', 'fault', 'raid_config',
                'target_raid_config', 'inspection_started_at',
                'inspection_finished_at', 'console_interface',
                'inspect_interface', 'network_interface', 'rescue_interface',
                'storage_interface', 'conductor_group', 'automated_clean',
                'protected', 'protected_reason', 'conductor', 'owner',
                'description', 'allocation_uuid', 'retired',
                'retired_reason', 'lessee', 'network_data')})


@ddt.ddt
class WritableFieldsTest(base.ApiTestCase):

    def test_the_new_writable_fields_are_set_on_create_and_read_back(self):
        body = self.api_create(
            conductor_group='Rack-7', automated_clean=False, owner='p1',
            lessee='p2', description='a node', retired=True,
            retired_reason='old', chassis_uuid=None,
            network_data={'links': [], 'networks': [], 'services': []})
        self.assertEqual('rack-7', body['conductor_group'])
        self.assertEqual((False, 'p1', 'p2', 'a node', True, 'old'), (
            body['automated_clean'], body['owner'], body['lessee'],
            body['description'], body['retired'], body['retired_reason']))
        stored = objects.Node.get(self.context, body['uuid'])
        self.assertEqual('rack-7', stored.conductor_group)
        self.assertEqual({'links': [], 'networks': [], 'services': []},
                         stored.network_data)

    def test_they_change_with_patch_and_removing_resets_them(self):
        node = self.create_node(name='node-1')
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/owner', 'value': 'p1'},
            {'op': 'add', 'path': '/description', 'value': 'x'},
            {'op': 'add', 'path': '/conductor_group', 'value': 'G'},
            {'op': 'add', 'path': '/automated_clean', 'value': True}])
        self.assertEqual(200, response.status_code, response.data)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(('p1', 'x', 'g', True), (
            stored.owner, stored.description, stored.conductor_group,
            stored.automated_clean))
        self.patch('/v1/nodes/node-1', json=[
            {'op': 'remove', 'path': '/owner'},
            {'op': 'remove', 'path': '/conductor_group'}])
        stored = objects.Node.get(self.context, node.uuid)
        self.assertIsNone(stored.owner)
        self.assertEqual('', stored.conductor_group)

    @ddt.data(('chassis_uuid', 'not-a-uuid', 'chassis_uuid'),
              ('conductor_group', 'has space', 'conductor_group'),
              ('description', 'x' * 4097, 'description'),
              ('network_data', {'links': 'x'}, 'network_data'),
              ('protected', 'yes', 'protected'))
    @ddt.unpack
    def test_a_bad_value_is_400_naming_the_field(self, field, value,
                                                 fragment):
        self.create_node(name='node-1')
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'add', 'path': '/%s' % field, 'value': value}])
        self.assertError(response, 400, fragment)

    @ddt.data(('conductor_group', '1.46', 'g'), ('owner', '1.50', 'p'),
              ('lessee', '1.65', 'p'), ('retired', '1.61', True),
              ('network_data', '1.66', {}))
    @ddt.unpack
    def test_setting_one_before_its_version_is_406(self, field, since,
                                                   value):
        response = self.post('/v1/nodes', version='1.45', json={
            'driver': 'fake-hardware', field: value})
        self.assertError(response, 406, field, since)

    def test_read_only_new_fields_are_refused(self):
        self.create_node(name='node-1')
        for field in ('console_enabled', 'fault', 'raid_config',
                      'target_raid_config', 'conductor', 'allocation_uuid',
                      'inspection_started_at'):
            response = self.patch('/v1/nodes/node-1', json=[
                {'op': 'add', 'path': '/%s' % field, 'value': None}])
            self.assertError(response, 400, field, 'read-only')


@ddt.ddt
class OldVersionsTest(base.ApiTestCase):

    @ddt.data('1.1', '1.10')
    def test_before_1_11_a_new_node_starts_available(self, version):
        response = self.post('/v1/nodes', version=version,
                             json={'driver': 'fake-hardware'})
        self.assertEqual(201, response.status_code, response.data)
        stored = objects.Node.get(self.context, response.get_json()['uuid'])
        self.assertEqual(states.AVAILABLE, stored.provision_state)

    def test_from_1_11_a_new_node_is_enrolled(self):
        response = self.post('/v1/nodes', version='1.11',
                             json={'driver': 'fake-hardware'})
        self.assertEqual(states.ENROLL,
                         response.get_json()['provision_state'])

    def test_before_1_2_available_reads_as_null_as_it_did(self):
        node = self.create_node()
        node.provision_state = states.AVAILABLE
        node.save()
        url = '/v1/nodes/%s' % node.uuid
        self.assertIsNone(self.get(url, version='1.1').get_json()[
            'provision_state'])
        self.assertIsNone(self.get(url + '/states', version='1.1')
                          .get_json()['provision_state'])
        self.assertEqual('available', self.get(url, version='1.2')
                         .get_json()['provision_state'])

    def test_before_1_5_names_do_not_identify_nodes(self):
        self.create_node(name='node-1')
        self.assertError(self.get('/v1/nodes/node-1', version='1.4'), 404,
                         'node-1')
        self.assertEqual(200, self.get('/v1/nodes/node-1',
                                       version='1.5').status_code)

    def test_before_1_10_names_are_host_names(self):
        response = self.post('/v1/nodes', version='1.9', json={
            'driver': 'fake-hardware', 'name': 'Node_1'})
        self.assertError(response, 400, 'name', 'Node_1', '1.10')
        response = self.post('/v1/nodes', version='1.10', json={
            'driver': 'fake-hardware', 'name': 'Node_1'})
        self.assertEqual(201, response.status_code, response.data)

    def test_before_1_10_a_name_that_is_not_a_host_name_is_400(self):
        self.create_node(name='Node_1')
        self.assertError(self.get('/v1/nodes/Node_1', version='1.9'), 400,
                         'Node_1')
        self.assertEqual(200, self.get('/v1/nodes/Node_1',
                                       version='1.10').status_code)

    def test_fields_needs_1_8(self):
        node = self.create_node()
        self.assertError(self.get('/v1/nodes/%s?fields=uuid' % node.uuid,
                                  version='1.7'), 406, '1.8')
        self.assertError(self.get('/v1/nodes?fields=uuid', version='1.7'),
                         406, '1.8')

    def test_manage_and_provide_need_1_4(self):
        node = self.create_node()
        self.assertError(self.provision(node.uuid, 'manage', version='1.3'),
                         406, 'manage', '1.4')
        self.assertEqual(202, self.provision(node.uuid, 'manage',
                                             version='1.4').status_code)

    def test_an_invalid_name_is_400_not_404(self):
        self.assertError(self.get('/v1/nodes/bad%20name'), 400,
                         'bad name', 'UUID')


@ddt.ddt
class OldVersionsOnEveryEndpointTest(base.ApiTestCase):
    """The gates on names hold wherever a URL names a node, not only on
    GET /v1/nodes/{node}."""

    #: (method, path under /v1/nodes/{node}, body) of endpoints that exist
    #: at 1.4 and 1.9.
    ENDPOINTS = (('GET', '', None), ('GET', '/states', None),
                 ('GET', '/validate', None),
                 ('PUT', '/states/power', {'target': 'power on'}),
                 ('PUT', '/maintenance', {'reason': 'r'}),
                 ('DELETE', '/maintenance', None),
                 ('PATCH', '', [{'op': 'add', 'path': '/extra/a',
                                 'value': 1}]),
                 ('PUT', '/states/provision', {'target': 'deleted'}),
                 ('DELETE', '', None))

    def send(self, method, ident, path, body, version):
        return self.request(method, '/v1/nodes/%s%s' % (ident, path),
                            version=version, json=body)

    @ddt.idata(ENDPOINTS)
    @ddt.unpack
    def test_before_1_5_a_name_is_not_found_anywhere(self, method, path,
                                                     body):
        node = self.create_node(name='node-1')
        self.assertError(self.send(method, 'node-1', path, body, '1.4'),
                         404, 'node-1')
        self.assertNodeUnchanged(node)

    @ddt.idata(ENDPOINTS)
    @ddt.unpack
    def test_before_1_10_a_name_that_is_not_a_host_name_is_400_anywhere(
            self, method, path, body):
        node = self.create_node(name='Node_1')
        self.assertError(self.send(method, 'Node_1', path, body, '1.9'),
                         400, 'Node_1')
        self.assertNodeUnchanged(node)

    def test_before_1_5_a_uuid_in_any_case_still_names_the_node(self):
        node = self.create_node(name='node-1')
        response = self.get('/v1/nodes/%s/states' % node.uuid.upper(),
                            version='1.4')
        self.assertEqual(200, response.status_code, response.data)

    def test_before_1_2_available_reads_as_null_in_lists_too(self):
        node = self.create_node()
        node.provision_state = states.AVAILABLE
        node.save()
        for path in ('/v1/nodes', '/v1/nodes/detail'):
            [listed] = self.get(path, version='1.1').get_json()['nodes']
            self.assertIsNone(listed['provision_state'], path)
            [listed] = self.get(path, version='1.2').get_json()['nodes']
            self.assertEqual(states.AVAILABLE, listed['provision_state'])


@ddt.ddt
class FieldsOfVersionsNotServedTest(base.ApiTestCase):
    """Ironic's node fields asked for below their version are 406, never
    400: Metal3's baremetal-operator sends ``disable_power_off`` with every
    node it creates, whatever version it negotiated."""

    @ddt.data(('disable_power_off', False, '1.95', '1.94'),
              ('instance_name', 'vm-1', '1.104', '1.103'),
              ('health', 'OK', '1.109', '1.108'))
    @ddt.unpack
    def test_creating_a_node_with_one_is_406_naming_its_version(
            self, field, value, needed, asked):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'name': 'n1', field: value},
            version=asked)
        self.assertError(response, 406, field, needed)
        self.assertEqual([], objects.Node.list(self.context))

    def test_patching_or_asking_for_one_is_406_too(self):
        self.create_node(name='n1')
        self.assertError(self.patch('/v1/nodes/n1', json=[
            {'op': 'add', 'path': '/disable_power_off', 'value': True}],
            version='1.94'), 406, 'disable_power_off', '1.95')
        self.assertError(self.get('/v1/nodes/n1?fields=uuid,instance_name',
                                  version='1.103'), 406, 'instance_name')

    def test_a_field_no_ironic_has_is_still_400(self):
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'colour': 'red'}, version='latest')
        self.assertError(response, 400, 'colour')
