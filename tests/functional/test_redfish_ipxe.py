"""A redfish node that network-boots its agent: the ``ipxe`` boot interface.

As :mod:`test_redfish_direct_deploy`, with the agent booted over the
network instead of from virtual media: the conductor writes the node's
iPXE script under ``[deploy] http_root`` (a temporary directory here) and
sets the BMC's one-time boot override to ``Pxe``; the Redfish emulator
shows what the BMC did, the directory what a web server would serve.
"""

import os

import fixtures

from ironic_steps.common import states
from ironic_steps import objects
from tests.functional import test_redfish_direct_deploy as direct_tests
from tests.unit.conductor import test_agent_heartbeat as agent_tests

KERNEL = 'http://127.0.0.1:9/images/ipa.kernel'
RAMDISK = 'http://127.0.0.1:9/images/ipa.initramfs'
MAC_LINK = os.path.join('pxelinux.cfg', '52-54-00-12-34-56')


class RedfishIPXETest(direct_tests.RedfishDirectTestCase):

    def setUp(self):
        super().setUp()
        self.http_root = self.useFixture(fixtures.TempDir()).path
        self.config(http_root=self.http_root, group='deploy')

    def direct_node(self, **properties):
        """A direct node booting with iPXE: its kernel, ramdisk, a port."""
        node = self.redfish_node(
            deploy_interface='direct', boot_interface='ipxe',
            properties=properties,
            instance_info=dict(agent_tests.IMAGE))
        node.driver_info = dict(node.driver_info, deploy_kernel=KERNEL,
                                deploy_ramdisk=RAMDISK)
        node.save()
        objects.Port(self.context, address=agent_tests.MAC,
                     node_uuid=node.uuid, pxe_enabled=True).create()
        return node

    def served(self, relative):
        """What the web server would serve at ``relative``, or None."""
        path = os.path.join(self.http_root, relative)
        if not os.path.exists(path):
            return None
        with open(path) as served:
            return served.read()

    def test_deploy_writes_the_nodes_script_and_boots_the_network_once(self):
        # When a redfish direct node that boots with iPXE is deployed
        node = self.deploy_to_agent_wait()
        # Then its script boots the agent's kernel and ramdisk, reached
        # through its MAC's link from the dispatcher every machine chains
        script = self.served(os.path.join(node.uuid, 'config'))
        self.assertIn('kernel --timeout 60000 %s ' % KERNEL, script)
        self.assertIn('initrd --name deploy_ramdisk --timeout 60000 %s'
                      % RAMDISK, script)
        self.assertEqual(script, self.served(MAC_LINK))
        self.assertIn('chain pxelinux.cfg/${mac:hexhyp}',
                      self.served('boot.ipxe'))
        # and the BMC booted the node from the network once, no CD used
        bmc = self.bmc()
        self.assertEqual((['Pxe'], 'Disabled', 'On', False), (
            bmc['booted_from'], bmc['boot']['enabled'], bmc['power'],
            bmc['cd']['Inserted']))

    def test_once_the_image_is_written_the_script_is_gone(self):
        node = self.deploy_to_write_image(capabilities='boot_mode:bios')
        self.heartbeat(node)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)
        self.assertIsNone(self.served(os.path.join(node.uuid, 'config')))
        self.assertFalse(os.path.lexists(os.path.join(self.http_root,
                                                      MAC_LINK)))
        self.assertEqual(['Pxe', 'Hdd'], self.bmc()['booted_from'])

    def test_a_node_without_its_kernel_and_ramdisk_is_refused_naming_them(
            self):
        node = self.direct_node()
        node.driver_info = {key: value for key, value
                            in node.driver_info.items()
                            if key not in ('deploy_kernel', 'deploy_ramdisk')}
        node.save()
        node = self.available(node)
        exc = self.assertRaises(Exception, self.rpcapi.do_node_deploy,
                                self.context, node.uuid, rebuild=False)
        self.assertEqual(400, exc.code)
        self.assertIn('driver_info/deploy_kernel', str(exc))
        self.assertIn('driver_info/deploy_ramdisk', str(exc))
        self.assertNodeUnchanged(node)
        self.assertEqual([], os.listdir(self.http_root))
