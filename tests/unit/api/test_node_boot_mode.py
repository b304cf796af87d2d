"""A node's boot mode and secure boot: the fields (1.75) and the PUT
endpoints that change them (1.76), on fake hardware (the redfish BMC is
exercised in tests/functional/test_redfish_driver.py)."""

import ddt

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base


@ddt.ddt
class BootModeTest(base.ApiTestCase):

    def manageable(self):
        node = self.create_node(name='node-1')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def put_target(self, what, target, version='1.76'):
        return self.put('/v1/nodes/node-1/states/%s' % what,
                        json={'target': target}, version=version)

    def settled(self, node):
        return self.wait_for_state(node, node.provision_state)

    def test_verifying_a_node_records_them_and_1_75_shows_them(self):
        self.manageable()
        body = self.get('/v1/nodes/node-1', version='1.75').get_json()
        self.assertEqual(('uefi', False),
                         (body['boot_mode'], body['secure_boot']))
        body = self.get('/v1/nodes/node-1', version='1.74').get_json()
        self.assertNotIn('boot_mode', body)
        self.assertNotIn('secure_boot', body)
        self.assertError(self.get('/v1/nodes/node-1?fields=boot_mode',
                                  version='1.74'), 406, 'boot_mode')

    def test_a_new_node_has_none_yet(self):
        self.create_node(name='node-1')
        body = self.get('/v1/nodes/node-1', version='1.75').get_json()
        self.assertIsNone(body['boot_mode'])
        self.assertIsNone(body['secure_boot'])

    def test_they_are_set_and_read_back(self):
        node = self.manageable()
        response = self.put_target('boot_mode', 'bios')
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual('http://localhost/v1/nodes/%s/states' % node.uuid,
                         response.headers['Location'])
        node = self.settled(node)
        self.assertEqual('bios', node.boot_mode)
        self.assertIsNone(node.last_error)
        self.put_target('boot_mode', 'uefi')
        self.settled(node)
        response = self.put_target('secure_boot', True)
        self.assertEqual(202, response.status_code, response.data)
        node = self.settled(node)
        self.assertEqual(('uefi', True), (node.boot_mode, node.secure_boot))

    def test_a_change_the_hardware_refuses_is_the_last_error(self):
        node = self.manageable()
        self.put_target('boot_mode', 'bios')
        self.settled(node)
        self.assertEqual(202, self.put_target('secure_boot', True)
                         .status_code)
        node = self.settled(node)
        self.assertIn('secure boot needs uefi', node.last_error)
        self.assertEqual(('bios', False), (node.boot_mode, node.secure_boot))
        self.assertEqual(states.MANAGEABLE, node.provision_state)
        # The next change starts with a clean slate.
        self.put_target('secure_boot', False)
        self.assertIsNone(self.settled(node).last_error)

    @ddt.data(('boot_mode', 'legacy', "'legacy'"),
              ('boot_mode', None, 'None'),
              ('secure_boot', 'maybe', "'maybe'"),
              ('secure_boot', 1, '1'))
    @ddt.unpack
    def test_a_bad_target_is_400_naming_it(self, what, target, fragment):
        node = self.manageable()
        self.assertError(self.put_target(what, target), 400, fragment)
        self.assertNodeUnchanged(node)

    @ddt.data('boot_mode', 'secure_boot')
    def test_the_endpoints_exist_from_1_76(self, what):
        node = self.manageable()
        self.assertError(self.put_target(what, 'uefi', version='1.75'),
                         404, '1.76')
        self.assertNodeUnchanged(node)

    @ddt.data(('boot_mode', 'bios'), ('secure_boot', True))
    @ddt.unpack
    def test_while_the_node_moves_it_is_409(self, what, target):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertError(self.put_target(what, target), 409,
                         states.DEPLOYWAIT)
        self.assertNodeUnchanged(node)

    @ddt.data('boot_mode', 'secure_boot')
    def test_they_are_read_only_fields(self, field):
        self.manageable()
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/%s' % field, 'value': 'bios'}],
            version='1.76')
        self.assertError(response, 400, field)


class PinnedTo09Test(base.ApiTestCase):
    """Release 0.9's nodes have no boot settings: none are recorded."""

    conductor_config = {None: {'pin_release_version': '0.9'}}

    def test_verifying_records_nothing_and_changes_are_refused(self):
        node = self.create_node(name='node-1')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(objects.Node.get_row(self.context,
                                               node.uuid).boot_mode)
        self.assertError(self.put('/v1/nodes/node-1/states/boot_mode',
                                  json={'target': 'bios'}, version='1.76'),
                         406, '1.76', '1.69')
        self.assertRaisesRegex(
            Exception, '0.10', self.rpcapi.change_node_boot_mode,
            self.context, node.uuid, 'bios')
