"""What counts as a secret, and how it is hidden (common/masking.py)."""

import ddt
import testtools

from ironic_steps.common import masking

M = masking.MASK


@ddt.ddt
class SecretKeysTest(testtools.TestCase):

    @ddt.data('ipmi_password', 'redfish_password', 'api_token',
              'secret_uuid', 'ssh_key', 'configdrive', 'adminPass',
              'admin_pass', 'new_pass', 'passwd', 'bmc_pw', 'PW',
              'sys_pswd', 'passphrase', 'rabbitcookie', 'temp_url_sig',
              'X-Amz-Signature', 'X-Amz-Credential', 'keystonecredential',
              'ChapSecret')
    def test_a_key_naming_a_secret_is_one(self, key):
        self.assertTrue(masking.is_secret(key))

    @ddt.data('passes', 'erase_passes', 'vendor_passthru', 'bypass_cache',
              'image_url', 'image_source', 'root_gb', 'agent_url', 'name',
              'value', 'deploy_kernel', 'capabilities', 'power_state')
    def test_an_ordinary_key_is_not(self, key):
        self.assertFalse(masking.is_secret(key))

    def test_oslo_sanitize_keys_are_secrets(self):
        from oslo_utils import strutils
        for key in strutils._SANITIZE_KEYS:
            self.assertTrue(masking.is_secret(key), key)


class MaskTest(testtools.TestCase):

    def test_name_value_pairs_naming_a_secret_hide_their_value(self):
        settings = [{'name': 'AdminPassword', 'value': 'bios-pw-1'},
                    {'name': 'BootMode', 'value': 'Uefi'}]
        self.assertEqual([{'name': 'AdminPassword', 'value': M},
                          {'name': 'BootMode', 'value': 'Uefi'}],
                         masking.mask({'settings': settings})['settings'])

    def test_path_value_pairs_leading_to_a_secret_hide_their_value(self):
        args = [{'path': 'driver_info/redfish_password', 'value': 'pw-1'},
                {'path': 'driver_info/redfish_address', 'value': 'bmc-1'}]
        self.assertEqual([{'path': 'driver_info/redfish_password',
                           'value': M},
                          {'path': 'driver_info/redfish_address',
                           'value': 'bmc-1'}], masking.mask(args))

    def test_a_url_keeps_all_but_its_password_and_signature(self):
        info = {
            'image_source': 'https://swift.example/v1/AUTH_a/c/img.qcow2'
                            '?temp_url_sig=0a1b2c&temp_url_expires=1999999',
            'redfish_address': 'https://admin:hunter2@10.0.0.9:8000',
            's3': 'https://s3.example/b/o?X-Amz-Signature=ff00&a=1',
            'plain': 'http://10.0.0.1/img.raw?version=2'}
        self.assertEqual({
            'image_source': 'https://swift.example/v1/AUTH_a/c/img.qcow2'
                            '?temp_url_sig=%s&temp_url_expires=1999999' % M,
            'redfish_address': 'https://admin:%s@10.0.0.9:8000' % M,
            's3': 'https://s3.example/b/o?X-Amz-Signature=%s&a=1' % M,
            'plain': 'http://10.0.0.1/img.raw?version=2'},
            masking.mask(info))

    def test_values_that_are_no_secrets_are_shown_as_they_are(self):
        value = {'a': [1, 'two', {'b': None, 'passes': 3}], 'c': 1.5}
        self.assertEqual(value, masking.mask(value))

    def test_what_holds_a_secret(self):
        for value in ({'x': {'bmc_pw': 'p'}},
                      [{'name': 'AdminPassword', 'value': 'p'}],
                      'https://u:p@host/', 'https://h/o?temp_url_sig=s'):
            self.assertTrue(masking.holds_secret(value), value)
        for value in ({'x': [1, 'a']}, 'https://h/o?v=1',
                      [{'name': 'BootMode', 'value': 'Uefi'}]):
            self.assertFalse(masking.holds_secret(value), value)

    def test_a_path_through_a_secret_pair_s_value_is_secret(self):
        document = {'settings': [{'name': 'AdminPassword', 'value': 'p'},
                                 {'name': 'BootMode', 'value': 'Uefi'}]}
        self.assertTrue(masking.path_is_secret(
            ['settings', '0', 'value'], document))
        self.assertFalse(masking.path_is_secret(
            ['settings', '1', 'value'], document))
        self.assertTrue(masking.path_is_secret(['bmc_password']))

    def test_a_config_drive_is_masked_whole_whatever_its_type(self):
        for drive in ('H4sICAAAA...', {'meta_data': {'public_keys': {}}}):
            self.assertEqual({'configdrive': M, 'root_gb': 10},
                             masking.mask({'configdrive': drive,
                                           'root_gb': 10}))

    def test_a_string_value_is_masked_as_oslo_masks_it(self):
        # What strutils.mask_dict_password does to a value, as Ironic
        # shows instance_info: a password on a command line.
        self.assertEqual(
            {'kernel_append_params': 'console=ttyS0 password=%s nofb' % M},
            masking.mask({'kernel_append_params':
                          'console=ttyS0 password=hunter2 nofb'}))


class MaskTextTest(testtools.TestCase):

    def test_the_urls_in_a_text_keep_all_but_their_secrets(self):
        self.assertEqual(
            'Download of https://s.example/o?temp_url_sig=%s&e=1 from '
            'https://admin:%s@10.0.0.9/x failed' % (M, M),
            masking.mask_text(
                'Download of https://s.example/o?temp_url_sig=ab12&e=1 from '
                'https://admin:hunter2@10.0.0.9/x failed'))

    def test_a_lone_user_in_a_url_is_a_token(self):
        self.assertEqual('git clone https://%s@git.example/r' % M,
                         masking.mask_text(
                             'git clone https://ghp_x1y2@git.example/r'))

    def test_what_oslo_masks_in_a_text_is_masked(self):
        for text, masked in (
                ('--password hunter2 --user u', '--password %s --user u' % M),
                ('{"token": "t0k"}', '{"token": "%s"}' % M),
                ("'admin_pass': 'x'", "'admin_pass': '%s'" % M)):
            self.assertEqual(masked, masking.mask_text(text))

    def test_plain_text_is_left_as_it_is(self):
        for text in ('image checksum mismatch', 'uses token rotation',
                     'http://10.0.0.1/img.raw', 'AdminPassword', ''):
            self.assertIs(text, masking.mask_text(text))

    def test_a_masked_text_stays_as_it_is(self):
        text = masking.mask_text('https://a:b@h/?temp_url_sig=c')
        self.assertEqual(text, masking.mask_text(text))
