"""The ipxe boot interface's script, what it reads, and where it writes.

Only what needs no BMC: the node's iPXE script as text, the agent's
kernel and ramdisk read from ``driver_info``, the files under ``[deploy]
http_root``, and the interface's absence while pinned before 0.14.  A
deploy that boots through it is exercised against the Redfish emulator by
``tests/functional/test_redfish_ipxe.py``.
"""

import os
import types

import ddt
import fixtures

from ironic_steps.common import exception
from ironic_steps.common import http_root
from ironic_steps.drivers import driver_factory
from ironic_steps.drivers.modules import ipxe
from tests import base

KERNEL = 'https://images.example.org/ipa.kernel'
RAMDISK = 'https://images.example.org/ipa.initramfs'


def node(**driver_info):
    return types.SimpleNamespace(uuid='node-1', driver_info=driver_info)


@ddt.ddt
class ScriptTest(base.TestCase):

    def script_lines(self, **driver_info):
        return ipxe.node_script(node(deploy_kernel=KERNEL,
                                     deploy_ramdisk=RAMDISK,
                                     **driver_info)).splitlines()

    def test_the_script_boots_the_agents_kernel_and_ramdisk(self):
        lines = self.script_lines()
        self.assertEqual('#!ipxe', lines[0])
        self.assertIn('kernel --timeout 60000 %s initrd=deploy_ramdisk '
                      'BOOTIF=${mac} ipa-api-url=http://127.0.0.1:6385 '
                      '|| goto retry' % KERNEL, lines)
        self.assertIn('initrd --name deploy_ramdisk --timeout 60000 %s '
                      '|| goto retry' % RAMDISK, lines)
        self.assertLess(lines.index('boot'), lines.index(':retry'))

    def test_the_agent_is_told_the_public_endpoint_when_there_is_one(self):
        self.config(public_endpoint='https://baremetal.example.org/',
                    group='api')
        self.assertIn('ipa-api-url=https://baremetal.example.org ',
                      self.script_lines()[7])

    def test_an_ipv6_api_address_is_bracketed(self):
        self.config(host_ip='::1', port=6400, group='api')
        self.assertIn('ipa-api-url=http://[::1]:6400 ',
                      self.script_lines()[7])

    def test_kernel_append_params_come_first(self):
        line = self.script_lines(
            kernel_append_params='nofb console=ttyS0')[7]
        self.assertIn('initrd=deploy_ramdisk nofb console=ttyS0 '
                      'BOOTIF=${mac} ', line)

    def test_append_params_on_more_than_one_line_are_refused(self):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.script_lines,
                                kernel_append_params='a\nchain evil')
        self.assertIn('driver_info/kernel_append_params', str(exc))

    @ddt.data('a\rchain evil', 'a\x1b[2Jb', 'a\x00b', 'a\tb')
    def test_append_params_with_any_control_character_are_refused(
            self, params):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.script_lines,
                                kernel_append_params=params)
        self.assertIn('driver_info/kernel_append_params', str(exc))

    def test_the_conductors_api_url_wins_as_for_the_config_image(self):
        # One answer to "where does the agent call back", whatever hands
        # it to the agent.
        self.config(public_endpoint='https://public.example.org',
                    group='api')
        self.config(api_url='https://agents.example.org:6385/',
                    group='conductor')
        self.assertIn('ipa-api-url=https://agents.example.org:6385 ',
                      self.script_lines()[7])

    @ddt.data({}, {'deploy_kernel': KERNEL}, {'deploy_ramdisk': RAMDISK})
    def test_a_missing_kernel_or_ramdisk_is_named_with_both_keys(
            self, driver_info):
        exc = self.assertRaises(exception.MissingParameterValue,
                                ipxe.deploy_images, node(**driver_info))
        self.assertIn('driver_info/deploy_kernel and '
                      'driver_info/deploy_ramdisk', str(exc))
        self.assertIn('node-1', str(exc))

    @ddt.data(('deploy_kernel', 'file:///srv/ipa.kernel'),
              ('deploy_ramdisk', 'http://images/ipa initrd'),
              ('deploy_kernel', 42))
    @ddt.unpack
    def test_one_that_is_no_http_url_is_refused_naming_it(self, key, value):
        driver_info = {'deploy_kernel': KERNEL, 'deploy_ramdisk': RAMDISK,
                       key: value}
        exc = self.assertRaises(exception.InvalidParameterValue,
                                ipxe.deploy_images, node(**driver_info))
        self.assertIn('driver_info/%s of node node-1 must be an http(s) URL'
                      % key, str(exc))

    def test_a_mac_becomes_ipxes_hexhyp(self):
        self.assertEqual('52-54-00-ab-cd-ef',
                         ipxe.mac_link_name('52:54:00:AB:CD:EF'))


class HttpRootTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        self.config(http_root=self.root, group='deploy')

    def test_a_published_file_is_whole_and_world_readable(self):
        path = http_root.publish('node-1/config', '#!ipxe\n')
        self.assertEqual(os.path.join(self.root, 'node-1', 'config'), path)
        with open(path) as published:
            self.assertEqual('#!ipxe\n', published.read())
        self.assertEqual(0o644, os.stat(path).st_mode & 0o777)
        self.assertEqual(['config'], os.listdir(os.path.dirname(path)))

    def test_links_are_found_by_target_and_removed_twice_harmlessly(self):
        http_root.publish('node-1/config', 'one')
        http_root.link('pxelinux.cfg/aa-bb', '../node-1/config')
        http_root.link('pxelinux.cfg/cc-dd', '../node-2/config')
        self.assertEqual(['aa-bb'], http_root.links_to('pxelinux.cfg',
                                                       '../node-1/config'))
        with open(os.path.join(self.root, 'pxelinux.cfg', 'aa-bb')) as link:
            self.assertEqual('one', link.read())
        for _twice in range(2):
            http_root.remove('pxelinux.cfg/aa-bb')
            http_root.remove('node-1')
        self.assertEqual(['pxelinux.cfg'], os.listdir(self.root))
        self.assertEqual([], http_root.links_to('gone', '../node-1/config'))

    def test_a_path_out_of_the_root_is_refused(self):
        for relative in ('../etc/passwd', '/etc/passwd', '.', 'a/../..'):
            self.assertRaises(exception.InvalidParameterValue,
                              http_root.publish, relative, 'x')

    def test_bytes_are_published_with_the_mode_asked(self):
        path = http_root.publish('secret.iso', b'\x00\x01', mode=0o600)
        with open(path, 'rb') as published:
            self.assertEqual(b'\x00\x01', published.read())
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)

    def test_a_root_that_cannot_be_written_is_named(self):
        blocker = os.path.join(self.root, 'file')
        open(blocker, 'w').close()
        self.config(http_root=os.path.join(blocker, 'httpboot'),
                    group='deploy')
        exc = self.assertRaises(exception.InvalidParameterValue,
                                http_root.publish, 'node-1/config', 'x')
        self.assertIn('[deploy] http_root', str(exc))


class PinnedTest(base.TestCase):

    def test_unpinned_redfish_offers_ipxe(self):
        served = driver_factory.served_hardware()['redfish']
        self.assertEqual(('redfish-virtual-media', 'ipxe'), served['boot'])

    def test_pinned_to_0_13_it_is_not_offered(self):
        self.config(pin_release_version='0.13')
        served = driver_factory.served_hardware()['redfish']
        self.assertEqual(('redfish-virtual-media',), served['boot'])
        self.assertEqual(('ramdisk', 'direct'), served['deploy'])
