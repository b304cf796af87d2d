"""A redfish node that boots the agent names its deploy ISO, as Ironic's.

Only what needs no BMC: which deploy interfaces the redfish type offers,
the deploy ISO read from ``driver_info`` and the boot interface's
validation through the conductor.  The ISO in the BMC's virtual CD drive
is exercised against the Redfish emulator by
``tests/functional/test_redfish_direct_deploy.py``.
"""

import types

import ddt

from ironic_steps.common import exception
from ironic_steps.drivers.modules.redfish import boot
from ironic_steps.drivers import redfish
from tests import base

DRIVER_INFO = {'redfish_address': 'http://127.0.0.1:9',
               'redfish_system_id': '/redfish/v1/Systems/1'}
DEPLOY_ISO = 'https://images.example.org/ironic-python-agent.iso'


def node(**driver_info):
    return types.SimpleNamespace(uuid='node-1', deploy_interface='direct',
                                 driver_info=driver_info)


@ddt.ddt
class DeployIsoTest(base.TestCase):

    def test_deploy_iso_is_read(self):
        self.assertEqual(DEPLOY_ISO, boot.deploy_iso(node(
            deploy_iso=DEPLOY_ISO)))

    def test_the_deprecated_name_is_read_when_deploy_iso_is_not_set(self):
        self.assertEqual(DEPLOY_ISO, boot.deploy_iso(node(
            redfish_deploy_iso=DEPLOY_ISO)))

    def test_deploy_iso_wins_over_the_deprecated_name(self):
        self.assertEqual(DEPLOY_ISO, boot.deploy_iso(node(
            deploy_iso=DEPLOY_ISO,
            redfish_deploy_iso='http://old.example.org/agent.iso')))

    def test_a_missing_deploy_iso_is_named_by_both_its_names(self):
        exc = self.assertRaises(exception.MissingParameterValue,
                                boot.deploy_iso, node(deploy_iso=''))
        self.assertIn('driver_info/deploy_iso', str(exc))
        self.assertIn('driver_info/redfish_deploy_iso', str(exc))
        self.assertIn('node-1', str(exc))

    @ddt.data(('deploy_iso', 'file:///srv/agent.iso'),
              ('redfish_deploy_iso', 'ftp://images/agent.iso'),
              ('deploy_iso', 42))
    @ddt.unpack
    def test_a_deploy_iso_that_is_no_http_url_is_refused_naming_its_key(
            self, key, value):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                boot.deploy_iso, node(**{key: value}))
        self.assertIn('driver_info/%s of node node-1 must be an http(s) URL'
                      % key, str(exc))


class RedfishDeployInterfacesTest(base.TestCase):

    def test_direct_is_the_default_as_in_ironic(self):
        hardware = redfish.RedfishHardware()
        self.assertEqual(('direct', 'ramdisk', 'custom-agent'),
                         hardware.supported('deploy'))
        self.assertEqual('direct', hardware.default('deploy'))
        self.assertEqual(('0.14', 'ramdisk'),
                         hardware.former_defaults['deploy'])


class BootValidationTest(base.ConductorTestCase):

    def redfish_node(self, deploy_interface=None, **driver_info):
        fields = {'deploy_interface': deploy_interface} if (
            deploy_interface) else {}
        return self.create_node(driver='redfish', driver_info=dict(
            DRIVER_INFO, **driver_info), **fields)

    def boot_validation(self, node):
        return self.rpcapi.validate_driver_interfaces(
            self.context, node.uuid)['boot']

    def test_a_direct_node_without_a_deploy_iso_fails_naming_it(self):
        node = self.redfish_node('direct')
        result = self.boot_validation(node)
        self.assertFalse(result['result'])
        self.assertIn('driver_info/redfish_deploy_iso', result['reason'])
        self.assertIn('direct deploy interface', result['reason'])

    def test_a_direct_node_with_a_deploy_iso_is_valid(self):
        node = self.redfish_node('direct', redfish_deploy_iso=DEPLOY_ISO)
        self.assertEqual({'result': True, 'reason': None},
                         self.boot_validation(node))

    def test_a_direct_node_is_what_a_node_without_a_deploy_interface_gets(
            self):
        node = self.redfish_node()
        self.assertEqual('direct', node.deploy_interface)
        self.assertIn('driver_info/deploy_iso',
                      self.boot_validation(node)['reason'])

    def test_pinned_to_0_13_a_node_without_one_gets_ramdisk(self):
        self.config(pin_release_version='0.13')
        self.assertEqual('ramdisk', self.redfish_node().deploy_interface)

    def test_a_ramdisk_node_needs_no_deploy_iso(self):
        node = self.redfish_node('ramdisk')
        self.assertEqual('ramdisk', node.deploy_interface)
        self.assertEqual({'result': True, 'reason': None},
                         self.boot_validation(node))

    def test_the_drivers_properties_document_the_deploy_iso(self):
        properties = self.rpcapi.get_driver_properties(self.context,
                                                       'redfish')
        self.assertIn('direct', properties['deploy_iso'])
        self.assertIn('deploy_iso', properties['redfish_deploy_iso'])
        self.assertIn('redfish_address', properties)
