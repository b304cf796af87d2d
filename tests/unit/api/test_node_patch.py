"""Changing a node with an RFC 6902 JSON patch (PATCH /v1/nodes/{node})."""

import ddt

from ironic_steps import objects
from tests.unit.api import base


@ddt.ddt
class PatchNodeTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.create_node(name='node-1', extra={'rack': 'r1'},
                                     driver_info={'ipmi_address': 'a'})

    def patch_node(self, *ops, **kwargs):
        return self.patch('/v1/nodes/node-1', json=list(ops), **kwargs)

    def stored(self):
        return objects.Node.get(self.context, self.node.uuid)

    def test_replace_add_and_remove_change_the_stored_node(self):
        response = self.patch_node(
            {'op': 'replace', 'path': '/name', 'value': 'node-2'},
            {'op': 'add', 'path': '/properties/cpus', 'value': 4},
            {'op': 'remove', 'path': '/extra/rack'})
        self.assertEqual(200, response.status_code, response.data)
        body = response.get_json()
        self.assertEqual('node-2', body['name'])
        self.assertEqual({'cpus': 4}, body['properties'])
        stored = self.stored()
        self.assertEqual('node-2', stored.name)
        self.assertEqual({'cpus': 4}, stored.properties)
        self.assertEqual({}, stored.extra)

    def test_removing_a_top_level_field_resets_it(self):
        self.patch_node({'op': 'remove', 'path': '/driver_info'},
                        {'op': 'remove', 'path': '/name'})
        stored = self.stored()
        self.assertEqual({}, stored.driver_info)
        self.assertIsNone(stored.name)

    def test_leaving_maintenance_clears_its_reason(self):
        self.patch_node({'op': 'replace', 'path': '/maintenance',
                         'value': True},
                        {'op': 'add', 'path': '/maintenance_reason',
                         'value': 'disk swap'})
        self.assertEqual('disk swap', self.stored().maintenance_reason)
        self.patch_node({'op': 'replace', 'path': '/maintenance',
                         'value': False})
        self.assertFalse(self.stored().maintenance)
        self.assertIsNone(self.stored().maintenance_reason)

    def test_a_patch_that_changes_nothing_answers_the_node(self):
        response = self.patch_node({'op': 'test', 'path': '/name',
                                    'value': 'node-1'})
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('node-1', response.get_json()['name'])

    def test_an_interface_can_be_changed_to_a_supported_one(self):
        response = self.patch_node({'op': 'replace',
                                    'path': '/deploy_interface',
                                    'value': 'fake-legacy'})
        self.assertEqual('fake-legacy',
                         response.get_json()['deploy_interface'])
        self.assertEqual('fake-legacy', self.stored().deploy_interface)

    def test_an_unsupported_interface_is_400_naming_it(self):
        response = self.patch_node({'op': 'replace',
                                    'path': '/deploy_interface',
                                    'value': 'iscsi'})
        self.assertError(response, 400, 'iscsi')

    def test_an_unknown_driver_is_400_naming_it(self):
        response = self.patch_node({'op': 'replace', 'path': '/driver',
                                    'value': 'ipmi'})
        self.assertError(response, 400, 'ipmi')

    @ddt.data('uuid', 'provision_state', 'target_provision_state',
              'driver_internal_info', 'reservation', 'created_at',
              'updated_at', 'provision_updated_at', 'power_state',
              'last_error', 'clean_step', 'deploy_step')
    def test_read_only_fields_are_400_naming_them(self, field):
        response = self.patch_node({'op': 'replace', 'path': '/%s' % field,
                                    'value': 'x'})
        self.assertError(response, 400, field, 'read-only')

    def test_a_path_inside_a_read_only_field_is_refused_too(self):
        response = self.patch_node({'op': 'add',
                                    'path': '/driver_internal_info/x',
                                    'value': 1})
        self.assertError(response, 400, 'driver_internal_info')

    def test_moving_from_a_read_only_field_is_refused(self):
        response = self.patch_node({'op': 'copy', 'from': '/last_error',
                                    'path': '/extra/error'})
        self.assertError(response, 400, 'last_error')

    def test_an_unknown_field_is_400_naming_it(self):
        response = self.patch_node({'op': 'add', 'path': '/colour',
                                    'value': 'red'})
        self.assertError(response, 400, 'colour')

    def test_a_field_of_a_later_version_is_406(self):
        response = self.patch_node({'op': 'replace',
                                    'path': '/resource_class',
                                    'value': 'gold'}, version='1.20')
        self.assertError(response, 406, 'resource_class', '1.21')

    def test_a_value_of_the_wrong_type_is_400(self):
        response = self.patch_node({'op': 'replace', 'path': '/maintenance',
                                    'value': 'yes'})
        self.assertError(response, 400, 'maintenance')
        self.assertFalse(self.stored().maintenance)

    def test_removing_the_driver_is_400(self):
        self.assertError(self.patch_node({'op': 'remove',
                                          'path': '/driver'}), 400, 'driver')

    def test_an_operation_that_does_not_apply_is_400_naming_it(self):
        response = self.patch_node({'op': 'remove',
                                    'path': '/extra/no-such-key'})
        self.assertError(response, 400, 'no-such-key')

    def test_a_failed_test_operation_changes_nothing(self):
        response = self.patch_node(
            {'op': 'replace', 'path': '/name', 'value': 'node-2'},
            {'op': 'test', 'path': '/name', 'value': 'node-3'})
        self.assertError(response, 400, 'test')
        self.assertEqual('node-1', self.stored().name)

    @ddt.data({'op': 'replace', 'path': '/name'},
              {'op': 'jump', 'path': '/name', 'value': 1},
              {'path': '/name', 'value': 1}, 'not an op')
    def test_a_malformed_patch_is_400(self, op):
        self.assertError(self.patch_node(op), 400)

    def test_a_patch_must_be_a_list(self):
        response = self.patch('/v1/nodes/node-1',
                              json={'op': 'remove', 'path': '/name'})
        self.assertError(response, 400, 'JSON patch')

    def test_a_whole_document_operation_is_400(self):
        self.assertError(self.patch_node({'op': 'replace', 'path': '',
                                          'value': {}}), 400, 'name a field')

    def test_patching_an_unknown_node_is_404(self):
        response = self.patch('/v1/nodes/no-such-node', json=[
            {'op': 'remove', 'path': '/name'}])
        self.assertError(response, 404, 'no-such-node')


class ResetInterfacesTest(base.ApiTestCase):
    """A new driver keeps the node's interfaces unless asked (1.45)."""

    def setUp(self):
        super().setUp()
        self.config(enabled_hardware_types=['fake-hardware',
                                            'example-hardware'])
        # example-hardware neither inspects, rescues nor updates firmware:
        # a node that keeps its interfaces must have ones it supports.
        self.node = self.create_node(name='node-1',
                                     inspect_interface='no-inspect',
                                     rescue_interface='no-rescue',
                                     firmware_interface='no-firmware')

    def new_driver(self, query='', version=base.LATEST, **interfaces):
        ops = [{'op': 'replace', 'path': '/driver',
                'value': 'example-hardware'}]
        ops += [{'op': 'replace', 'path': '/%s' % field, 'value': value}
                for field, value in interfaces.items()]
        return self.patch('/v1/nodes/node-1' + query, json=ops,
                          version=version)

    def test_without_reset_the_interfaces_are_kept_if_supported(self):
        body = self.new_driver().get_json()
        self.assertEqual('example-hardware', body['driver'])
        self.assertEqual('fake', body['deploy_interface'])

    def test_without_reset_an_unsupported_interface_is_400(self):
        self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/deploy_interface',
             'value': 'fake-legacy'}])
        self.assertError(self.new_driver(), 400, 'fake-legacy',
                         'example-hardware')
        self.assertEqual('fake-hardware', objects.Node.get(
            self.context, self.node.uuid).driver)

    def test_reset_gives_the_new_drivers_defaults_but_named_ones(self):
        body = self.new_driver('?reset_interfaces=true').get_json()
        self.assertEqual('example', body['deploy_interface'])
        body = self.patch('/v1/nodes/node-1?reset_interfaces=true', json=[
            {'op': 'replace', 'path': '/driver', 'value': 'fake-hardware'},
            {'op': 'replace', 'path': '/deploy_interface',
             'value': 'fake-legacy'}]).get_json()
        self.assertEqual(('fake-hardware', 'fake-legacy'),
                         (body['driver'], body['deploy_interface']))

    def test_reset_needs_1_45_and_a_new_driver(self):
        self.assertError(self.new_driver('?reset_interfaces=true',
                                         version='1.44'), 406,
                         'reset_interfaces', '1.45')
        response = self.patch('/v1/nodes/node-1?reset_interfaces=true',
                              json=[{'op': 'add', 'path': '/extra/a',
                                     'value': 1}])
        self.assertError(response, 400, 'reset_interfaces', 'driver')
