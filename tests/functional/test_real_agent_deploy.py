"""The direct deploy with the real ironic-python-agent, end to end.

The all-in-one service deploys a fake-hardware node whose machine is
played by :class:`tests.real_agent.machine.Machine`: powered on to boot
from the network, it boots a real IPA 13 confined to the machine's loop
disks (see tests/real_agent/sandbox.py).  The image is a qcow2 image with
a GPT and an ext4 file system holding a marker, served on 127.0.0.1; the
test reads the disk back: the marker, and the config drive's SSH key and
host name.
"""

import fixtures
import testtools
from testtools import content

from tests.functional import fixtures as service_fixtures
from tests.real_agent import images
from tests.real_agent import machine
from tests.real_agent import sandbox

_UNAVAILABLE = sandbox.why_unavailable()
SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOfTheTest test@x'


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class RealAgentDeployTest(testtools.TestCase):

    options = {'conductor': {'automated_clean': 'false'},
               'api': {'ramdisk_heartbeat_timeout': '6'}}

    def setUp(self):
        super().setUp()
        work = self.useFixture(
            fixtures.TempDir()).path
        self.image, self.checksum = images.build_whole_disk_image(
            work, 'written by the real agent\n')
        self.images = self.useFixture(images.ImageServer(work))
        self.service = self.useFixture(service_fixtures.ServiceProcess(
            options=self.options))
        self.api = service_fixtures.RestClient(self.service.endpoint)
        self.disks = self.useFixture(sandbox.LoopDisks())
        self.work = work

    def enrol(self, mac='52:54:00:5e:00:01', **properties):
        status, node = self.api.request('POST', '/v1/nodes', {
            'name': 'real-1', 'driver': 'fake-hardware',
            'deploy_interface': 'direct',
            'properties': dict({
                'root_device': {'serial': self.disks.disks[0].serial},
                'capabilities': 'boot_mode:bios'}, **properties)})
        self.assertEqual(201, status)
        self.api.request('POST', '/v1/ports', {'node_uuid': node['uuid'],
                                               'address': mac})
        for target, state in (('manage', 'manageable'),
                              ('provide', 'available')):
            self.api.request('PUT', '/v1/nodes/real-1/states/provision',
                             {'target': target})
            self.api.wait_for('real-1', state)
        self.machine = self.useFixture(machine.Machine(
            self.service.endpoint, node['uuid'], mac, self.disks))
        self.addOnException(lambda info: self.addDetail(
            'agents', content.text_content(
                self.machine.logs())))
        self.addOnException(lambda info: self.addDetail(
            'service', content.text_content(
                self.service.log()[-8000:])))
        return node

    def set_image(self):
        self.api.request('PATCH', '/v1/nodes/real-1', [
            {'op': 'add', 'path': '/instance_info/image_source',
             'value': self.images.url('disk.qcow2')},
            {'op': 'add', 'path': '/instance_info/image_checksum',
             'value': self.checksum},
            {'op': 'add', 'path': '/instance_info/image_disk_format',
             'value': 'qcow2'}])

    def test_the_agent_writes_the_image_and_config_drive_to_the_disk(self):
        self.enrol()
        self.set_image()
        status, _ = self.api.request(
            'PUT', '/v1/nodes/real-1/states/provision', {
                'target': 'active', 'configdrive': {
                    'meta_data': {'public_keys': {'0': SSH_KEY},
                                  'hostname': 'real-host'}}})
        self.assertEqual(202, status)
        node = self.api.wait_for('real-1', 'active', timeout=180)
        self.assertEqual('power on', node['power_state'])
        self.assertEqual('******', node['instance_info']['configdrive'])
        disk = self.disks.disks[0].path
        self.assertEqual('written by the real agent\n',
                         images.read_file_from_ext4(disk, self.work))
        meta = images.meta_data(disk)
        self.assertEqual({'0': SSH_KEY}, meta['public_keys'])
        self.assertEqual('real-host', meta['hostname'])
        self.assertEqual(node['uuid'], meta['uuid'])
        # The agent was stopped by the out-of-band power off, never by
        # itself, and nothing it asked for reached the machine.
        self.assertIsNone(self.machine.agent)
        _status, history = self.api.request(
            'GET', '/v1/nodes/real-1/x-steps/history')
        ran = [(entry['interface'], entry['step'], entry['outcome'])
               for entry in history['history']]
        self.assertIn(('deploy', 'write_image', 'success'), ran)
