"""Chassis, ports, portgroups, volume records and VIFs through the API."""

import threading

from oslo_utils import uuidutils
import sqlalchemy as sa

from ironic_steps import objects
from tests.unit.api import base

MAC = '52:54:00:12:34:56'
OTHER_MAC = '52:54:00:ab:cd:ef'


class ResourceApiTestCase(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-0')

    def create(self, path, expect=201, **fields):
        response = self.post(path, json=fields)
        self.assertEqual(expect, response.status_code, response.data)
        return response.get_json()

    def create_port(self, address=MAC, **fields):
        fields.setdefault('node_uuid', self.node['uuid'])
        return self.create('/v1/ports', address=address, **fields)

    def create_portgroup(self, **fields):
        fields.setdefault('node_uuid', self.node['uuid'])
        return self.create('/v1/portgroups', **fields)

    def listed(self, path, key, **kwargs):
        response = self.get(path, **kwargs)
        self.assertEqual(200, response.status_code, response.data)
        return response.get_json()[key]


class PortTest(ResourceApiTestCase):

    def test_a_port_is_created_with_its_fields_location_and_lower_mac(self):
        response = self.post('/v1/ports', json={
            'address': '52-54-00-12-34-5A', 'node_uuid': self.node['uuid'],
            'local_link_connection': {'switch_id': '0a:1b:2c:3d:4e:5f',
                                      'port_id': 'Ethernet1/1'},
            'physical_network': 'physnet1', 'extra': {'rack': 'r1'}})
        self.assertEqual(201, response.status_code, response.data)
        port = response.get_json()
        self.assertEqual('http://localhost/v1/ports/%s' % port['uuid'],
                         response.headers['Location'])
        self.assertEqual('52:54:00:12:34:5a', port['address'])
        self.assertEqual(self.node['uuid'], port['node_uuid'])
        self.assertTrue(port['pxe_enabled'])
        self.assertFalse(port['is_smartnic'])
        self.assertIsNone(port['portgroup_uuid'])
        self.assertEqual({}, port['internal_info'])
        self.assertEqual('physnet1', port['physical_network'])
        self.assertEqual({'rack': 'r1'}, port['extra'])
        self.assertNotIn('name', port)

    def test_a_second_port_with_the_same_mac_is_refused_409_naming_it(self):
        self.create_port()
        response = self.post('/v1/ports', json={
            'address': MAC.upper(), 'node_uuid': self.node['uuid']})
        self.assertError(response, 409, MAC)

    def test_an_address_that_is_not_a_mac_is_refused_naming_the_field(self):
        response = self.post('/v1/ports', json={
            'address': 'not-a-mac', 'node_uuid': self.node['uuid']})
        self.assertError(response, 400, 'address', 'not-a-mac')

    def test_a_port_of_a_node_that_does_not_exist_is_refused_400(self):
        missing = uuidutils.generate_uuid()
        response = self.post('/v1/ports', json={'address': MAC,
                                                'node_uuid': missing})
        self.assertError(response, 400, missing)

    def test_fields_hide_below_their_version_and_are_refused_406_there(self):
        port = self.create_port()
        old = self.get('/v1/ports/%s' % port['uuid'], version='1.18')
        self.assertNotIn('pxe_enabled', old.get_json())
        self.assertNotIn('is_smartnic', old.get_json())
        self.assertIn('internal_info', old.get_json())
        response = self.get('/v1/ports/%s?fields=pxe_enabled' % port['uuid'],
                            version='1.18')
        self.assertError(response, 406, 'pxe_enabled', '1.19')

    def test_listing_filters_by_node_address_and_pages_with_a_next_link(self):
        other = self.api_create(name='node-1')
        first = self.create_port()
        second = self.create_port(OTHER_MAC, node_uuid=other['uuid'])
        third = self.create_port('52:54:00:00:00:03')
        self.assertEqual(
            [first['uuid'], third['uuid']],
            [p['uuid'] for p in self.listed('/v1/ports?node=node-0',
                                            'ports')])
        self.assertEqual(
            [second['uuid']],
            [p['uuid'] for p in self.listed(
                '/v1/nodes/node-1/ports', 'ports')])
        self.assertEqual(
            [{'uuid': second['uuid'], 'address': OTHER_MAC}],
            [{k: p[k] for k in ('uuid', 'address')} for p in self.listed(
                '/v1/ports?address=%s' % OTHER_MAC.upper(), 'ports')])
        page = self.get('/v1/ports?limit=2&sort_key=address').get_json()
        self.assertEqual(['52:54:00:00:00:03', MAC],
                         [p['address'] for p in page['ports']])
        self.assertEqual({'uuid', 'address', 'links'}, set(page['ports'][0]))
        rest = self.get(page['next'].replace('http://localhost', ''))
        self.assertEqual([OTHER_MAC], [p['address']
                                       for p in rest.get_json()['ports']])

    def test_a_detailed_list_shows_every_field(self):
        self.create_port()
        for path in ('/v1/ports/detail', '/v1/ports?detail=True',
                     '/v1/nodes/node-0/ports/detail'):
            [port] = self.listed(path, 'ports')
            self.assertIn('local_link_connection', port, path)
            self.assertIn('is_smartnic', port, path)

    def test_patching_a_read_only_field_is_refused_naming_it(self):
        port = self.create_port()
        response = self.patch('/v1/ports/%s' % port['uuid'], json=[
            {'op': 'add', 'path': '/internal_info/x', 'value': 1}])
        self.assertError(response, 400, 'internal_info')

    def test_a_patch_changes_the_port_and_refuses_a_taken_address(self):
        port = self.create_port()
        self.create_port(OTHER_MAC)
        response = self.patch('/v1/ports/%s' % port['uuid'], json=[
            {'op': 'replace', 'path': '/pxe_enabled', 'value': 'false'},
            {'op': 'add', 'path': '/extra/color', 'value': 'blue'}])
        self.assertEqual(200, response.status_code, response.data)
        self.assertFalse(response.get_json()['pxe_enabled'])
        self.assertEqual({'color': 'blue'}, response.get_json()['extra'])
        response = self.patch('/v1/ports/%s' % port['uuid'], json=[
            {'op': 'replace', 'path': '/address', 'value': OTHER_MAC}])
        self.assertError(response, 409, OTHER_MAC)

    def test_the_connectivity_of_an_active_nodes_port_does_not_change(self):
        port = self.create_port()
        node = objects.Node.get(self.context, self.node['uuid'])
        node.provision_state = 'active'
        node.save()
        response = self.patch('/v1/ports/%s' % port['uuid'], json=[
            {'op': 'replace', 'path': '/physical_network', 'value': 'p2'}])
        self.assertError(response, 409, 'maintenance', 'active')
        response = self.patch('/v1/ports/%s' % port['uuid'], json=[
            {'op': 'replace', 'path': '/address', 'value': OTHER_MAC}])
        self.assertError(response, 409, 'active')

    def test_a_port_is_deleted(self):
        port = self.create_port()
        self.assertEqual(204, self.delete(
            '/v1/ports/%s' % port['uuid']).status_code)
        self.assertError(self.get('/v1/ports/%s' % port['uuid']), 404,
                         port['uuid'])

    def test_a_smartnic_port_needs_port_id_and_hostname(self):
        response = self.post('/v1/ports', json={
            'address': MAC, 'node_uuid': self.node['uuid'],
            'is_smartnic': True})
        self.assertError(response, 400, 'local_link_connection', 'hostname')


class PortgroupTest(ResourceApiTestCase):

    def test_a_portgroup_exists_from_1_23_with_mode_from_1_26(self):
        self.assertEqual(404, self.get('/v1/portgroups',
                                       version='1.22').status_code)
        group = self.create_portgroup(name='bond0', address=MAC)
        self.assertEqual('active-backup', group['mode'])
        self.assertTrue(group['standalone_ports_supported'])
        old = self.get('/v1/portgroups/bond0', version='1.25').get_json()
        self.assertNotIn('mode', old)
        self.assertEqual(group['uuid'], old['uuid'])

    def test_a_port_joins_a_portgroup_of_its_node_and_is_listed_under_it(
            self):
        group = self.create_portgroup(name='bond0')
        port = self.create_port(portgroup_uuid=group['uuid'])
        self.assertEqual(group['uuid'], port['portgroup_uuid'])
        self.assertEqual([port['uuid']], [p['uuid'] for p in self.listed(
            '/v1/portgroups/bond0/ports', 'ports')])
        self.assertEqual([port['uuid']], [p['uuid'] for p in self.listed(
            '/v1/ports?portgroup=%s' % group['uuid'], 'ports')])

    def test_a_port_cannot_join_another_nodes_portgroup(self):
        other = self.api_create(name='node-1')
        group = self.create_portgroup(node_uuid=other['uuid'])
        response = self.post('/v1/ports', json={
            'address': MAC, 'node_uuid': self.node['uuid'],
            'portgroup_uuid': group['uuid']})
        self.assertError(response, 400, group['uuid'], other['uuid'])

    def test_a_portgroup_with_ports_is_not_deleted(self):
        group = self.create_portgroup(name='bond0')
        port = self.create_port(portgroup_uuid=group['uuid'])
        response = self.delete('/v1/portgroups/bond0')
        self.assertError(response, 400, 'port', port['uuid'])
        self.assertEqual(204, self.delete(
            '/v1/ports/%s' % port['uuid']).status_code)
        self.assertEqual(204, self.delete('/v1/portgroups/bond0').status_code)

    def test_a_duplicate_portgroup_name_is_refused_409(self):
        self.create_portgroup(name='bond0')
        response = self.post('/v1/portgroups', json={
            'name': 'bond0', 'node_uuid': self.node['uuid']})
        self.assertError(response, 409, 'bond0')


class ChassisTest(ResourceApiTestCase):

    def test_a_node_in_a_chassis_is_listed_under_it_and_keeps_it(self):
        chassis = self.create('/v1/chassis', description='rack 1')
        self.assertEqual(
            {'uuid', 'description', 'extra', 'created_at', 'updated_at',
             'links', 'nodes'}, set(chassis))
        node = self.api_create(name='in-rack', chassis_uuid=chassis['uuid'])
        self.assertEqual(chassis['uuid'], node['chassis_uuid'])
        self.assertEqual(['in-rack'], [n['name'] for n in self.listed(
            '/v1/chassis/%s/nodes' % chassis['uuid'], 'nodes')])
        self.assertEqual(['in-rack'], [n['name'] for n in self.listed(
            '/v1/nodes?chassis_uuid=%s' % chassis['uuid'], 'nodes')])
        response = self.delete('/v1/chassis/%s' % chassis['uuid'])
        self.assertError(response, 400, node['uuid'])

    def test_a_node_moves_into_a_chassis_by_patch_and_out_again(self):
        chassis = self.create('/v1/chassis')
        path = '/v1/nodes/%s' % self.node['uuid']
        response = self.patch(path, json=[{
            'op': 'add', 'path': '/chassis_uuid', 'value': chassis['uuid']}])
        self.assertEqual(chassis['uuid'],
                         response.get_json()['chassis_uuid'], response.data)
        response = self.patch(path, json=[{'op': 'remove',
                                           'path': '/chassis_uuid'}])
        self.assertIsNone(response.get_json()['chassis_uuid'])
        self.assertEqual(204, self.delete(
            '/v1/chassis/%s' % chassis['uuid']).status_code)

    def test_a_chassis_that_does_not_exist_is_refused_400(self):
        missing = uuidutils.generate_uuid()
        response = self.post('/v1/nodes', json={
            'driver': 'fake-hardware', 'chassis_uuid': missing})
        self.assertError(response, 400, missing)

    def test_patching_a_chassis_uuid_is_refused_naming_the_field(self):
        chassis = self.create('/v1/chassis')
        response = self.patch('/v1/chassis/%s' % chassis['uuid'], json=[
            {'op': 'replace', 'path': '/uuid',
             'value': uuidutils.generate_uuid()}])
        self.assertError(response, 400, 'uuid')


class ChassisDeletionRaceMixin:
    """For a database whose writers run side by side (not SQLite's):
    a node joining a chassis while the chassis is being deleted."""

    def test_a_node_joining_during_the_deletion_is_named_not_a_500(self):
        chassis = self.create('/v1/chassis')
        joined = []

        def join_before_the_delete(conn, cursor, statement, *args):
            if statement.startswith('DELETE FROM chassis') and not joined:
                # Another transaction (on a thread of its own: this one's
                # would join the deletion's), committed between the
                # deletion's check and its DELETE.
                late = objects.Node(self.context, driver='fake-hardware',
                                    name='late', provision_state='enroll',
                                    chassis_uuid=chassis['uuid'])
                creating = threading.Thread(target=late.create)
                creating.start()
                creating.join()
                joined.append(late)

        # (On every engine: the API writes through the facade's writer.)
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        join_before_the_delete)
        self.addCleanup(sa.event.remove, sa.engine.Engine,
                        'before_cursor_execute', join_before_the_delete)
        response = self.delete('/v1/chassis/%s' % chassis['uuid'])
        self.assertError(response, 400, joined[0].uuid, 'cannot be deleted')
        self.assertEqual(chassis['uuid'], self.get(
            '/v1/chassis/%s' % chassis['uuid']).get_json()['uuid'])


class VolumeTest(ResourceApiTestCase):

    def test_volume_records_exist_from_1_32(self):
        self.assertEqual(404, self.get('/v1/volume',
                                       version='1.31').status_code)
        root = self.get('/v1/volume').get_json()
        self.assertEqual({'links', 'connectors', 'targets'}, set(root))

    def test_volume_lists_take_detail_from_their_first_version(self):
        # (Nodes and ports only from 1.43: the volume API had it at once.)
        for path, key in (('/v1/volume/connectors?detail=True', 'connectors'),
                          ('/v1/volume/targets?detail=True', 'targets')):
            self.assertEqual([], self.listed(path, key, version='1.32'))
        response = self.get('/v1/ports?detail=True', version='1.42')
        self.assertEqual(406, response.status_code)

    def test_a_connector_type_and_id_are_unique(self):
        connector = self.create('/v1/volume/connectors', type='iqn',
                                connector_id='iqn.2026-12.org:n0',
                                node_uuid=self.node['uuid'])
        self.assertEqual([connector['uuid']], [c['uuid'] for c in self.listed(
            '/v1/nodes/node-0/volume/connectors', 'connectors')])
        response = self.post('/v1/volume/connectors', json={
            'type': 'iqn', 'connector_id': 'iqn.2026-12.org:n0',
            'node_uuid': self.node['uuid']})
        self.assertError(response, 409, 'iqn.2026-12.org:n0')

    def test_a_target_boot_index_is_unique_per_node(self):
        self.create('/v1/volume/targets', volume_type='iscsi', boot_index=0,
                    volume_id='vol-1', node_uuid=self.node['uuid'])
        response = self.post('/v1/volume/targets', json={
            'volume_type': 'iscsi', 'boot_index': 0, 'volume_id': 'vol-2',
            'node_uuid': self.node['uuid']})
        self.assertError(response, 409, 'boot_index')

    def test_a_powered_on_active_nodes_volume_records_do_not_change(self):
        target = self.create('/v1/volume/targets', volume_type='iscsi',
                             boot_index=0, volume_id='vol-1',
                             node_uuid=self.node['uuid'])
        node = objects.Node.get(self.context, self.node['uuid'])
        node.provision_state, node.power_state = 'active', 'power on'
        node.save()
        response = self.delete('/v1/volume/targets/%s' % target['uuid'])
        self.assertError(response, 400, 'powered off')


class VifTest(ResourceApiTestCase):
    """VIFs of a node on the ``flat`` network interface, which records
    them on its ports (``noop`` accepts and forgets them)."""

    def setUp(self):
        super().setUp()
        response = self.patch('/v1/nodes/node-0', json=[
            {'op': 'replace', 'path': '/network_interface',
             'value': 'flat'}])
        self.assertEqual(200, response.status_code, response.data)

    def test_a_vif_goes_to_a_free_port_and_comes_off_it(self):
        port = self.create_port()
        path = '/v1/nodes/node-0/vifs'
        self.assertEqual(204, self.post(path, json={'id': 'vif-1'}).status_code)
        self.assertEqual([{'id': 'vif-1'}], self.listed(path, 'vifs'))
        shown = self.get('/v1/ports/%s' % port['uuid']).get_json()
        self.assertEqual('vif-1', shown['internal_info']['tenant_vif_port_id'])
        response = self.post(path, json={'id': 'vif-2'})
        self.assertError(response, 400, 'no free port', 'vif-2')
        response = self.post(path, json={'id': 'vif-1'})
        self.assertError(response, 409, 'vif-1', port['uuid'])
        response = self.delete('/v1/ports/%s' % port['uuid'])
        self.assertError(response, 409, 'vif-1')
        self.assertEqual(204, self.delete(path + '/vif-1').status_code)
        self.assertEqual([], self.listed(path, 'vifs'))

    def test_a_vif_prefers_a_portgroup_over_its_ports(self):
        group = self.create_portgroup(name='bond0')
        self.create_port(portgroup_uuid=group['uuid'], pxe_enabled=True)
        self.post('/v1/nodes/node-0/vifs', json={'id': 'vif-1'})
        shown = self.get('/v1/portgroups/bond0').get_json()
        self.assertEqual('vif-1', shown['internal_info']['tenant_vif_port_id'])

    def test_a_noop_network_node_accepts_vifs_and_records_none(self):
        # As Ironic's noop network interface: no port needed, nothing kept
        node = self.api_create(name='noop-0', network_interface='noop')
        self.create_port(node_uuid=node['uuid'])
        path = '/v1/nodes/noop-0/vifs'
        self.assertEqual(204, self.post(path, json={'id': 'vif-9'}).status_code)
        self.assertEqual([], self.listed(path, 'vifs'))
        self.assertEqual(204, self.delete(path + '/vif-9').status_code)
        self.assertEqual(204, self.post('/v1/nodes/noop-0/vifs',
                                        json={'id': 'vif-9'}).status_code)

    def test_a_node_without_ports_has_no_free_port_for_a_vif(self):
        response = self.post('/v1/nodes/node-0/vifs', json={'id': 'vif-1'})
        self.assertError(response, 400, 'no ports', 'vif-1')

    def test_vifs_exist_from_1_28(self):
        self.assertEqual(404, self.get('/v1/nodes/node-0/vifs',
                                       version='1.27').status_code)


class NodeDeletionTest(ResourceApiTestCase):

    def test_deleting_a_node_deletes_its_records_and_nothing_else(self):
        other = self.api_create(name='node-1')
        group = self.create_portgroup(name='bond0')
        self.create_port(portgroup_uuid=group['uuid'])
        kept = self.create_port(OTHER_MAC, node_uuid=other['uuid'])
        self.create('/v1/volume/connectors', type='iqn', connector_id='i0',
                    node_uuid=self.node['uuid'])
        self.create('/v1/volume/targets', volume_type='iscsi', boot_index=0,
                    volume_id='v0', node_uuid=self.node['uuid'])
        self.put('/v1/nodes/node-0/traits/CUSTOM_GPU')
        self.assertEqual(204, self.delete('/v1/nodes/node-0').status_code)
        self.assertEqual([kept['uuid']], [p['uuid'] for p in self.listed(
            '/v1/ports', 'ports')])
        for path, key in (('/v1/portgroups', 'portgroups'),
                          ('/v1/volume/connectors', 'connectors'),
                          ('/v1/volume/targets', 'targets')):
            self.assertEqual([], self.listed(path, key), path)

    def test_a_protected_node_and_its_ports_are_not_deleted(self):
        self.create_port()
        node = objects.Node.get(self.context, self.node['uuid'])
        node.provision_state, node.protected = 'active', True
        node.save()
        self.assertEqual(403, self.delete('/v1/nodes/node-0').status_code)
        self.assertEqual(1, len(self.listed('/v1/ports', 'ports')))


class PinnedTest(ResourceApiTestCase):

    def test_pinned_to_0_5_the_new_paths_are_404_and_nothing_is_written(self):
        port = self.create_port()
        self.config(pin_release_version='0.5')
        self.make_client()
        for path in ('/v1/ports', '/v1/portgroups', '/v1/chassis',
                     '/v1/volume', '/v1/volume/connectors',
                     '/v1/ports/%s' % port['uuid'],
                     '/v1/nodes/node-0/ports', '/v1/nodes/node-0/vifs'):
            self.assertEqual(404, self.get(path).status_code, path)
        response = self.post('/v1/ports', json={
            'address': OTHER_MAC, 'node_uuid': self.node['uuid']})
        self.assertEqual(404, response.status_code)
        self.assertEqual(1, len(objects.Port.list(self.context)))
        node = self.get('/v1/nodes/node-0').get_json()
        self.assertIsNone(node['chassis_uuid'])
