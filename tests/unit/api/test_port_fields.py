"""The port and portgroup fields, filters and ways of creating of Ironic's
API 1.94 to 1.111; through the real API on SQLite."""

import ddt

from ironic_steps import objects
from tests.unit.api import base

LATEST = '1.111'
MAC = '52:54:00:12:34:56'
OTHER_MAC = '52:54:00:ab:cd:ef'
PORT_FIELDS = {'description': ('1.97', 'left NIC'),
               'vendor': ('1.100', 'acme'),
               'category': ('1.101', 'storage'),
               'available_for_dynamic_portgroup': ('1.111', False)}


def one_below(version):
    major, minor = version.split('.')
    return '%s.%d' % (major, int(minor) - 1)


@ddt.ddt
class PortFieldsTest(base.AheadOfTheLadderTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-0')

    def create_port(self, address=MAC, version=LATEST, **fields):
        fields.setdefault('node_uuid', self.node['uuid'])
        return self.post('/v1/ports', json=dict(fields, address=address),
                         version=version)

    def test_the_new_port_fields_are_written_and_shown(self):
        values = {field: value for field, (_v, value)
                  in PORT_FIELDS.items()}
        created = self.create_port(**values)
        self.assertEqual(201, created.status_code, created.data)
        port = created.get_json()
        self.assertEqual(values, {f: port[f] for f in values})
        stored = objects.Port.get_by_uuid(self.context, port['uuid'])
        self.assertEqual(values, {f: getattr(stored, f) for f in values})
        response = self.patch('/v1/ports/%s' % port['uuid'], json=[
            {'op': 'replace', 'path': '/vendor', 'value': 'other'},
            {'op': 'replace', 'path': '/available_for_dynamic_portgroup',
             'value': 'true'},
            {'op': 'remove', 'path': '/description'}], version=LATEST)
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(('other', True, None), tuple(
            response.get_json()[f] for f in (
                'vendor', 'available_for_dynamic_portgroup',
                'description')))

    def test_a_new_port_is_available_for_dynamic_portgroups(self):
        port = self.create_port().get_json()
        self.assertTrue(port['available_for_dynamic_portgroup'])
        self.assertIsNone(port['category'])

    @ddt.data(*PORT_FIELDS)
    def test_below_its_version_a_field_is_absent_and_406_never_400(
            self, field):
        since, value = PORT_FIELDS[field]
        below = one_below(since)
        uuid = self.create_port(**{field: value}).get_json()['uuid']
        self.assertNotIn(field, self.get('/v1/ports/%s' % uuid,
                                         version=below).get_json())
        self.assertIn(field, self.get('/v1/ports/%s' % uuid,
                                      version=since).get_json())
        self.assertError(self.create_port(OTHER_MAC, version=below,
                                          **{field: value}),
                         406, field, since)
        self.assertError(self.patch('/v1/ports/%s' % uuid, json=[
            {'op': 'replace', 'path': '/' + field, 'value': value}],
            version=below), 406, field)
        self.assertEqual(1, len(objects.Port.list(self.context)))

    @ddt.data(('description', 'x' * 256), ('vendor', 'x' * 33),
              ('category', 'x' * 81),
              ('available_for_dynamic_portgroup', 'maybe'))
    @ddt.unpack
    def test_a_bad_value_is_400_naming_the_field(self, field, value):
        self.assertError(self.create_port(**{field: value}), 400, field)
        self.assertEqual([], objects.Port.list(self.context))

    def test_from_1_94_a_port_is_created_for_its_nodes_name(self):
        body = {'address': MAC, 'node_ident': 'node-0'}
        response = self.post('/v1/ports', json=body, version='1.94')
        self.assertEqual(201, response.status_code, response.data)
        self.assertEqual(self.node['uuid'], response.get_json()['node_uuid'])
        self.assertError(self.post('/v1/ports', json=dict(
            body, address=OTHER_MAC), version='1.93'), 406, 'node_ident',
            '1.94')
        self.assertError(self.post('/v1/ports', json=dict(
            body, address=OTHER_MAC, node_uuid=self.node['uuid']),
            version='1.94'), 400, 'node_ident')
        self.assertError(self.post('/v1/ports', json=dict(
            body, address=OTHER_MAC, node_ident='nope'), version='1.94'),
            400, 'nope')
        self.assertEqual(1, len(objects.Port.list(self.context)))

    def test_patch_paths_escape_tilde_and_slash(self):
        uuid = self.create_port().get_json()['uuid']
        for version in ('1.97', '1.98'):
            response = self.patch('/v1/ports/%s' % uuid, json=[
                {'op': 'add', 'path': '/extra/a~1b', 'value': version},
                {'op': 'add', 'path': '/extra/c~0d', 'value': 1}],
                version=version)
            self.assertEqual(200, response.status_code, response.data)
            self.assertEqual({'a/b': version, 'c~d': 1},
                             response.get_json()['extra'])


@ddt.ddt
class PortgroupFieldsTest(base.AheadOfTheLadderTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-0')

    def create_group(self, version=LATEST, **fields):
        fields.setdefault('node_uuid', self.node['uuid'])
        return self.post('/v1/portgroups', json=fields, version=version)

    def test_physical_network_and_category_are_written_and_shown(self):
        created = self.create_group(name='bond0', physical_network='phys1',
                                    category='storage')
        self.assertEqual(201, created.status_code, created.data)
        group = created.get_json()
        self.assertEqual(('phys1', 'storage', False), (
            group['physical_network'], group['category'],
            group['dynamic_portgroup']))
        for field, since in (('physical_network', '1.102'),
                             ('category', '1.103'),
                             ('dynamic_portgroup', '1.111')):
            self.assertNotIn(field, self.get(
                '/v1/portgroups/bond0', version=one_below(since)).get_json())
            self.assertError(self.get('/v1/portgroups?fields=' + field,
                                      version=one_below(since)), 406, field)
        self.assertError(self.create_group(version='1.101', name='bond1',
                                           physical_network='phys1'),
                         406, 'physical_network', '1.102')

    def test_dynamic_portgroup_is_read_only(self):
        self.assertError(self.create_group(dynamic_portgroup=True), 400,
                         'dynamic_portgroup')
        self.assertEqual([], objects.Portgroup.list(self.context))

    def test_a_portgroups_physical_network_is_its_ports(self):
        group = self.create_group(name='bond0',
                                  physical_network='phys1').get_json()
        port = self.post('/v1/ports', json={
            'address': MAC, 'node_uuid': self.node['uuid'],
            'portgroup_uuid': group['uuid'], 'pxe_enabled': False},
            version=LATEST).get_json()
        response = self.patch('/v1/portgroups/bond0', json=[
            {'op': 'replace', 'path': '/physical_network',
             'value': 'phys2'}], version=LATEST)
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('phys2', objects.Port.get_by_uuid(
            self.context, port['uuid']).physical_network)
        change = [{'op': 'replace', 'path': '/physical_network',
                   'value': 'phys3'}]
        self.assertError(self.patch('/v1/ports/%s' % port['uuid'],
                                    json=change, version=LATEST), 400,
                         'physical_network', group['uuid'])
        self.assertEqual('phys2', objects.Port.get_by_uuid(
            self.context, port['uuid']).physical_network)
        # Before 1.102 a port's own physical network was its own.
        response = self.patch('/v1/ports/%s' % port['uuid'], json=change,
                              version='1.101')
        self.assertEqual(200, response.status_code, response.data)


@ddt.ddt
class ListFilterTest(base.AheadOfTheLadderTestCase):

    def setUp(self):
        super().setUp()
        for index, (group, shard) in enumerate((('east', 's1'),
                                                ('west', 's2'),
                                                ('', None))):
            fields = {'name': 'n%d' % index, 'conductor_group': group,
                      'driver': 'fake-hardware'}
            if shard:
                fields['shard'] = shard
            node = self.post('/v1/nodes', json=fields,
                             version=LATEST).get_json()
            self.post('/v1/ports', json={
                'address': '52:54:00:00:00:0%d' % index,
                'node_uuid': node['uuid']}, version=LATEST)
            self.post('/v1/portgroups', json={
                'name': 'g%d' % index, 'node_uuid': node['uuid']},
                version=LATEST)

    def listed(self, path, key, version=LATEST):
        response = self.get(path, version=version)
        self.assertEqual(200, response.status_code, response.data)
        return sorted(item[key] for item in
                      response.get_json()[path.split('/')[2].split('?')[0]])

    def test_lists_filter_by_their_nodes_conductor_groups(self):
        self.assertEqual(['52:54:00:00:00:00', '52:54:00:00:00:01'],
                         self.listed('/v1/ports?conductor_groups=EAST,west',
                                     'address'))
        self.assertEqual(['g1'], self.listed(
            '/v1/portgroups/detail?conductor_groups=west', 'name'))
        # As Ironic reads an empty list: no filter.
        self.assertEqual(3, len(self.listed('/v1/ports?conductor_groups=',
                                            'address')))

    @ddt.data('/v1/ports?conductor_groups=east',
              '/v1/portgroups?conductor_groups=east')
    def test_the_conductor_group_filter_needs_1_99(self, path):
        self.assertError(self.get(path, version='1.98'), 406, '1.99')

    @ddt.data('node=n0', 'address=52:54:00:00:00:00')
    def test_conductor_groups_do_not_combine_with_a_node_or_address(
            self, other):
        self.assertError(self.get('/v1/ports?conductor_groups=east&' + other,
                                  version=LATEST), 400, 'conductor_groups')

    def test_ports_filter_by_shard_from_1_82_as_nodes_do(self):
        self.assertEqual(['52:54:00:00:00:01'], self.listed(
            '/v1/ports?shard=s2', 'address', version='1.82'))
        self.assertError(self.get('/v1/ports?shard=s1', version='1.81'),
                         406, '1.82')
        self.assertError(self.get('/v1/ports?shard=s1&node=n0',
                                  version='1.82'), 400, 'shard')

    def test_portgroups_filter_by_shard_from_1_106(self):
        self.assertEqual(['g0', 'g1'], self.listed(
            '/v1/portgroups?shard=s1,s2', 'name'))
        self.assertError(self.get('/v1/portgroups?shard=s1',
                                  version='1.105'), 406, '1.106')


class PinnedTo011Test(base.ApiTestCase):
    """Release 0.11's ports and portgroups have none of these fields."""

    conductor_config = {None: {'pin_release_version': '0.11'}}

    def test_nothing_new_is_shown_or_written(self):
        node = self.api_create(name='node-0')
        self.assertError(self.post('/v1/ports', json={
            'address': MAC, 'node_uuid': node['uuid'], 'vendor': 'acme'},
            version='1.83'), 406, 'vendor')
        created = self.post('/v1/ports', json={
            'address': MAC, 'node_uuid': node['uuid']}, version='1.83')
        self.assertEqual(201, created.status_code, created.data)
        group = self.post('/v1/portgroups', json={
            'node_uuid': node['uuid'], 'name': 'bond0'}, version='1.83')
        self.assertEqual(201, group.status_code, group.data)
        self.assertNotIn('physical_network', group.get_json())
        self.assertError(self.get('/v1/ports?conductor_groups=x',
                                  version='1.83'), 406)
        port = objects.Port.get_by_uuid(self.context,
                                        created.get_json()['uuid'])
        # The database's default, as for a port older services made.
        self.assertTrue(port.available_for_dynamic_portgroup)
        port.vendor = 'sneaked-in'
        port.save()
        self.assertIsNone(objects.Port.get_by_uuid(
            self.context, port.uuid).vendor)
