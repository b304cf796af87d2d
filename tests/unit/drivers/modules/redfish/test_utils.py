"""A redfish node's driver_info is checked, each error naming its field."""

import types

import ddt

from ironic_steps.common import exception
from ironic_steps.drivers.modules.redfish import utils
from tests import base


def node(**driver_info):
    return types.SimpleNamespace(uuid='node-1', driver_info=driver_info)


@ddt.ddt
class ParseDriverInfoTest(base.TestCase):

    def test_a_full_driver_info_is_read_as_given(self):
        self.assertEqual(
            {'address': 'https://bmc.example.org:8443',
             'system_id': '/redfish/v1/Systems/1', 'username': 'admin',
             'password': 's3cret', 'verify_ca': False},
            utils.parse_driver_info(node(
                redfish_address='https://bmc.example.org:8443/',
                redfish_system_id='1', redfish_username='admin',
                redfish_password='s3cret', redfish_verify_ca='false')))

    def test_defaults_https_any_system_and_verified_tls(self):
        self.assertEqual(
            {'address': 'https://10.0.0.5', 'system_id': None,
             'username': None, 'password': None, 'verify_ca': True},
            utils.parse_driver_info(node(redfish_address='10.0.0.5')))

    @ddt.data(
        ({}, exception.MissingParameterValue, 'redfish_address'),
        ({'redfish_address': 'ftp://bmc'}, exception.InvalidParameterValue,
         'redfish_address'),
        ({'redfish_address': 'http://'}, exception.InvalidParameterValue,
         'redfish_address'),
        ({'redfish_address': 42}, exception.InvalidParameterValue,
         'redfish_address'),
        ({'redfish_address': 'http://bmc', 'redfish_system_id': ''},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc',
          'redfish_system_id': '/redfish/v1/SessionService/Sessions'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc', 'redfish_system_id': '/admin'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc', 'redfish_system_id': '../../x'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc',
          'redfish_system_id': '/redfish/v1/Systems/../Managers/1'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc',
          'redfish_system_id': 'https://elsewhere.example/redfish/v1'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc', 'redfish_system_id': '//h/x'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc', 'redfish_system_id': '%2E%2E/x'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'http://bmc', 'redfish_system_id': '1?x=1'},
         exception.InvalidParameterValue, 'redfish_system_id'),
        ({'redfish_address': 'https://token@bmc'},
         exception.InvalidParameterValue, 'redfish_address'),
        ({'redfish_address': 'https://bmc:port'},
         exception.InvalidParameterValue, 'redfish_address'),
        ({'redfish_address': 'http://bmc', 'redfish_verify_ca': 'maybe'},
         exception.InvalidParameterValue, 'redfish_verify_ca'),
        ({'redfish_address': 'http://bmc', 'redfish_verify_ca': 3},
         exception.InvalidParameterValue, 'redfish_verify_ca'),
        ({'redfish_address': 'http://bmc', 'redfish_username': ['a']},
         exception.InvalidParameterValue, 'redfish_username'),
    )
    @ddt.unpack
    def test_a_bad_field_is_named(self, info, error, field):
        exc = self.assertRaises(error, utils.parse_driver_info, node(**info))
        self.assertIn('driver_info/%s' % field, str(exc))

    def test_credentials_in_the_address_are_refused_and_not_echoed(self):
        exc = self.assertRaises(
            exception.InvalidParameterValue, utils.parse_driver_info,
            node(redfish_address='https://admin:hunter2@bmc'))
        self.assertNotIn('hunter2', str(exc))
        self.assertIn('redfish_username', str(exc))

    def test_a_bmc_outside_the_allowed_networks_is_refused(self):
        self.config(allowed_bmc_networks=['10.20.0.0/16', 'fd00::/64'],
                    group='redfish')
        for address in ('https://10.20.3.4:8443', 'http://[fd00::5]',
                        '10.20.0.1'):
            utils.parse_driver_info(node(redfish_address=address))
        for address, named in (('https://192.0.2.7', '192.0.2.7'),
                               ('http://[fd01::5]', 'fd01::5'),
                               ('http://[::ffff:192.0.2.7]', '192.0.2.7'),
                               # a name, by every address it resolves to
                               ('https://localhost:8000', '127.0.0.1')):
            exc = self.assertRaises(
                exception.InvalidParameterValue, utils.parse_driver_info,
                node(redfish_address=address))
            self.assertIn(named, str(exc))
            self.assertIn('allowed_bmc_networks: 10.20.0.0/16, fd00::/64',
                          str(exc))

    def test_a_name_that_does_not_resolve_cannot_be_checked(self):
        self.config(allowed_bmc_networks=['10.20.0.0/16'], group='redfish')
        exc = self.assertRaises(
            exception.InvalidParameterValue, utils.parse_driver_info,
            node(redfish_address='https://bmc.invalid'))
        self.assertIn('bmc.invalid, which does not resolve', str(exc))

    def test_without_allowed_networks_any_bmc_will_do(self):
        self.assertEqual('https://192.0.2.7', utils.parse_driver_info(
            node(redfish_address='https://192.0.2.7'))['address'])

    def test_a_bad_password_is_named_by_type_only(self):
        exc = self.assertRaises(
            exception.InvalidParameterValue, utils.parse_driver_info,
            node(redfish_address='https://bmc', redfish_password=12345678))
        self.assertNotIn('12345678', str(exc))
        self.assertIn('redfish_password', str(exc))

    def test_a_ca_bundle_path_that_exists_is_kept(self):
        path = self.useFixture(__import__('fixtures').TempDir()).join('ca')
        open(path, 'w').close()
        self.assertEqual(path, utils.parse_driver_info(node(
            redfish_address='https://bmc',
            redfish_verify_ca=path))['verify_ca'])
