"""A node's virtual media (API 1.89, 1.93) on a Redfish BMC: openstacksdk's
``attach_vmedia_to_node`` and ``detach_vmedia_from_node`` (the CLI has no
vmedia commands) against the all-in-one service, whose conductor drives
sushy-tools' emulator (:mod:`tests.redfish_emulator`).

What the BMC did is read back from the emulator itself.
"""

import openstack
from openstack import exceptions
import testtools

from tests.functional import fixtures as functional
from tests.redfish_emulator import RedfishEmulator

ISO = 'http://127.0.0.1:9/images/live.iso'
IMG = 'http://127.0.0.1:9/images/config.img'


class RedfishVirtualMediaTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.emulator = self.useFixture(RedfishEmulator(systems=1))
        self.system_id = self.emulator.system_ids[0]
        service = self.useFixture(functional.AllInOneService(
            {'redfish': {'server_side_retries': 0, 'connect_timeout': 2,
                         'read_timeout': 10}}))
        self.rest = functional.RestClient(service.endpoint)
        self.sdk = openstack.connect(
            auth_type='none', baremetal_endpoint_override=service.endpoint,
            baremetal_api_version='1.93').baremetal
        self.rest.request('POST', '/v1/nodes', {
            'driver': 'redfish', 'name': 'rf-1', 'driver_info': {
                'redfish_address': self.emulator.address,
                'redfish_system_id': self.system_id}})

    def device(self, name):
        """(inserted, image) of an emulated device, as the BMC shows it."""
        shown = self.emulator.virtual_media(self.system_id, name)
        return shown['Inserted'], shown['Image'] or None

    def test_images_go_into_the_bmcs_devices_and_come_out_again(self):
        self.sdk.attach_vmedia_to_node('rf-1', 'cdrom', ISO,
                                       image_download_source='http')
        # A disk is the BMC's USB stick, which its Floppy device takes.
        self.sdk.attach_vmedia_to_node('rf-1', 'disk', IMG)
        self.assertEqual((True, ISO), self.device('Cd'))
        self.assertEqual((True, IMG), self.device('Floppy'))
        _status, listed = self.rest.request('GET', '/v1/nodes/rf-1/vmedia')
        self.assertEqual({ISO, IMG}, {d['image'] for d in listed
                                      if d['inserted']})
        self.assertIn(['CD', 'DVD'], [d['media_types'] for d in listed])

        self.sdk.detach_vmedia_from_node('rf-1', device_types=['cdrom'])
        self.assertFalse(self.device('Cd')[0])
        self.assertEqual((True, IMG), self.device('Floppy'))
        self.sdk.detach_vmedia_from_node('rf-1')
        self.assertFalse(self.device('Floppy')[0])
        self.assertIsNone(self.rest.node('rf-1')['last_error'])

    def test_an_image_the_bmc_refuses_is_an_error_and_the_nodes_last(self):
        # The emulated BMC fetches only http(s); Ironic's API also takes nfs.
        url = 'nfs://127.0.0.1/images/live.iso'
        error = self.assertRaises(
            exceptions.HttpException, self.sdk.attach_vmedia_to_node,
            'rf-1', 'cdrom', url)
        self.assertEqual(400, error.status_code)
        self.assertIn('Image must be an http(s) URL', str(error))
        self.assertFalse(self.device('Cd')[0])
        self.assertIn(url, self.rest.node('rf-1')['last_error'])
