"""The direct deploy with the real ironic-python-agent, end to end.

The all-in-one service deploys a fake-hardware node whose machine is
played by :class:`tests.real_agent.machine.Machine`: powered on to boot
from the network, it boots a real IPA 13 confined to the machine's loop
disks (see tests/real_agent/sandbox.py).  The image is a qcow2 image with
a GPT and an ext4 file system holding a marker, served on 127.0.0.1; the
test reads the disk back: the marker, and the config drive's SSH key and
host name; and services the deployed node with a step only the agent
offers.
"""

import time

import fixtures
import testtools
from testtools import content

from tests.functional import fixtures as service_fixtures
from tests.real_agent import images
from tests.real_agent import machine
from tests.real_agent import sandbox

_UNAVAILABLE = sandbox.why_unavailable()
# Where the loop hardware manager's stamp_disk service step writes
# (tests/real_agent/loop_hardware: not importable here, it is the agent's).
_STAMP_BYTES = 512
_STAMP_OFFSET = 1024 * 1024 - _STAMP_BYTES
SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOfTheTest test@x'


class _RealAgentTestCase(testtools.TestCase):
    """A service, a fake-hardware direct node and its machine."""

    options = {'conductor': {'automated_clean': 'false'},
               'api': {'ramdisk_heartbeat_timeout':
                       machine.HEARTBEAT_TIMEOUT}}

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
        self.machine = self.useFixture(machine.Machine(
            self.service.endpoint, node['uuid'], mac, self.disks))
        self.addOnException(lambda info: self.addDetail(
            'agents', content.text_content(
                self.machine.logs())))
        self.addOnException(lambda info: self.addDetail(
            'service', content.text_content(
                self.service.log()[-8000:])))
        for target, state in (('manage', 'manageable'),
                              ('provide', 'available')):
            self.api.request('PUT', '/v1/nodes/real-1/states/provision',
                             {'target': target})
            self.api.wait_for('real-1', state, timeout=120)
        return node

    def set_image(self):
        self.api.request('PATCH', '/v1/nodes/real-1', [
            {'op': 'add', 'path': '/instance_info/image_source',
             'value': self.images.url('disk.qcow2')},
            {'op': 'add', 'path': '/instance_info/image_checksum',
             'value': self.checksum},
            {'op': 'add', 'path': '/instance_info/image_disk_format',
             'value': 'qcow2'}])

    def deploy(self, **body):
        status, _ = self.api.request(
            'PUT', '/v1/nodes/real-1/states/provision',
            dict({'target': 'active'}, **body))
        self.assertEqual(202, status)

    def history(self):
        _status, history = self.api.request(
            'GET', '/v1/nodes/real-1/x-steps/history')
        return [(entry['flow'], entry['interface'], entry['step'],
                 entry['outcome']) for entry in history['history']]


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class RealAgentDeployTest(_RealAgentTestCase):

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
        self.assertTrue(self.machine.agent_stopped())
        _status, history = self.api.request(
            'GET', '/v1/nodes/real-1/x-steps/history')
        ran = [(entry['interface'], entry['step'], entry['outcome'])
               for entry in history['history']]
        self.assertIn(('deploy', 'write_image', 'success'), ran)

    def test_a_template_enables_an_in_band_step_of_the_agent(self):
        self.api.request('POST', '/v1/deploy_templates', {
            'name': 'CUSTOM_WIPE_FIRST', 'steps': [
                {'interface': 'deploy', 'step': 'erase_devices_metadata',
                 'priority': 90, 'args': {}}]})
        self.enrol()
        self.api.request('PUT', '/v1/nodes/real-1/traits/CUSTOM_WIPE_FIRST')
        self.set_image()
        self.api.request('PATCH', '/v1/nodes/real-1', [
            {'op': 'add', 'path': '/instance_info/traits',
             'value': ['CUSTOM_WIPE_FIRST']}])
        self.deploy()
        node = self.api.wait_for('real-1', 'active', timeout=180)
        ran = [entry[1:] for entry in self.history()]
        self.assertEqual([('deploy', 'deploy', 'success'),
                          ('deploy', 'erase_devices_metadata', 'success'),
                          ('deploy', 'write_image', 'success')], ran[:3])
        # The agent's steps are cached on the node, marked in-band.
        cached = node['driver_internal_info']['agent_cached_deploy_steps']
        self.assertIn('write_image', [step['step'] for step in cached])
        self.assertEqual('written by the real agent\n',
                         images.read_file_from_ext4(
                             self.disks.disks[0].path, self.work))

    def test_a_requested_step_the_agent_lacks_fails_the_deploy_naming_it(
            self):
        self.enrol()
        self.set_image()
        # The agent has not reported its steps: the request is taken...
        self.deploy(deploy_steps=[{'interface': 'deploy',
                                   'step': 'polish_the_disk',
                                   'priority': 90, 'args': {}}])
        node = self.api.wait_for('real-1', 'deploy failed', timeout=120)
        # ... and fails, naming it, once the agent says what it offers.
        self.assertIn('deploy.polish_the_disk', node['last_error'])
        self.assertIn('erase_devices_metadata', node['last_error'])
        self.assertIsNone(images.read_file_from_ext4(
            self.disks.disks[0].path, self.work))

    def test_the_agents_failure_to_write_fails_the_deploy_with_its_reason(
            self):
        self.enrol()
        self.set_image()
        self.api.request('PATCH', '/v1/nodes/real-1', [
            {'op': 'replace', 'path': '/instance_info/image_checksum',
             'value': '0' * 64}])
        self.deploy()
        node = self.api.wait_for('real-1', 'deploy failed', timeout=120)
        self.assertIn('deploy.write_image', node['last_error'])
        self.assertIn('the agent says', node['last_error'])
        self.assertIn('checksum', node['last_error'].lower())
        self.assertEqual({'interface': 'deploy', 'step': 'write_image'},
                         {key: node['deploy_step'][key]
                          for key in ('interface', 'step')})


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class RealAgentLifecycleTest(_RealAgentTestCase):
    """Undeploying, with the agent's cleaning, and an agent that dies."""

    options = {'conductor': {'automated_clean': 'true',
                             'deploy_callback_timeout': '15',
                             'check_provision_state_interval': '1'},
               'api': {'ramdisk_heartbeat_timeout':
                       machine.HEARTBEAT_TIMEOUT}}

    def test_undeploy_cleans_the_disk_with_the_agents_erase_steps(self):
        self.enrol()    # provide: the first cleaning, by the agent
        self.assertIn(('clean', 'deploy', 'erase_devices_metadata',
                       'success'), self.history())
        self.set_image()
        self.deploy()
        self.api.wait_for('real-1', 'active', timeout=180)
        disk = self.disks.disks[0].path
        self.assertIsNotNone(images.read_file_from_ext4(disk, self.work))
        self.api.request('PUT', '/v1/nodes/real-1/states/provision',
                         {'target': 'deleted'})
        self.api.wait_for('real-1', 'available', timeout=180)
        cleaned = [entry[1:] for entry in self.history()
                   if entry[0] == 'clean'][-2:]
        self.assertEqual([('deploy', 'erase_devices_metadata', 'success'),
                          ('deploy', 'erase_devices', 'success')], cleaned)
        # erase_devices overwrote the disk: no partition, no marker.
        self.assertEqual([], images.partitions(disk))
        self.assertTrue(self.machine.agent_stopped())

    def test_an_agent_gone_in_the_middle_of_a_step_times_the_deploy_out(
            self):
        slow = self.useFixture(images.ImageServer(self.work,
                                                  seconds_per_mib=2))
        self.enrol()
        self.set_image()
        self.api.request('PATCH', '/v1/nodes/real-1', [
            {'op': 'replace', 'path': '/instance_info/image_source',
             'value': slow.url('disk.qcow2')}])
        self.deploy()
        # Mid-step: the agent was handed write_image (the conductor keeps
        # its command), not merely the step started (the agent not yet
        # asked: losing it then is a refused connection, not a timeout).
        for _ in range(600):
            node = self.api.node('real-1')
            if ((node['deploy_step'] or {}).get('step') == 'write_image'
                    and (node['driver_internal_info'] or {}).get(
                        'agent_command')):
                break
            time.sleep(0.1)
        self.machine.agent.stop()   # the machine dies mid-download
        node = self.api.wait_for('real-1', 'deploy failed', timeout=120)
        self.assertIn('Timeout reached while waiting for the agent',
                      node['last_error'])
        self.assertIn('deploy.write_image', node['last_error'])


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class RealAgentServicingTest(_RealAgentTestCase):
    """Servicing an active node with a step only the agent offers."""

    def stamp(self):
        with open(self.disks.disks[0].path, 'rb') as disk:
            disk.seek(_STAMP_OFFSET)
            return disk.read(_STAMP_BYTES).rstrip(b'\0').decode()

    def deploy_and_service(self, steps):
        self.enrol()
        self.set_image()
        self.deploy()
        self.api.wait_for('real-1', 'active', timeout=180)
        self.assertTrue(self.machine.agent_stopped())
        status, _ = self.api.request(
            'PUT', '/v1/nodes/real-1/states/provision',
            {'target': 'service', 'service_steps': steps})
        self.assertEqual(202, status)

    def test_the_agent_runs_a_service_step_on_the_active_node(self):
        self.deploy_and_service([{'interface': 'deploy',
                                  'step': 'stamp_disk',
                                  'args': {'text': 'serviced in band'}}])
        node = self.api.wait_for('real-1', 'active', timeout=180)
        self.assertIsNone(node['last_error'])
        self.assertEqual({}, node['service_step'])
        self.assertEqual('serviced in band', self.stamp())
        # The instance is intact, and runs again: the agent that served
        # the step was powered off and the node booted from its disk.
        self.assertEqual('written by the real agent\n',
                         images.read_file_from_ext4(
                             self.disks.disks[0].path, self.work))
        self.assertEqual('power on', node['power_state'])
        self.assertTrue(self.machine.agent_stopped())
        self.assertEqual([('service', 'deploy', 'stamp_disk', 'success')],
                         [entry for entry in self.history()
                          if entry[0] == 'service'])
        cached = node['driver_internal_info']['agent_cached_service_steps']
        self.assertIn('stamp_disk', [step['step'] for step in cached])

    def test_a_service_step_the_agent_lacks_fails_servicing_naming_it(self):
        self.deploy_and_service([{'interface': 'deploy',
                                  'step': 'polish_the_disk', 'args': {}}])
        node = self.api.wait_for('real-1', 'service failed', timeout=180)
        self.assertIn('deploy.polish_the_disk', node['last_error'])
        # What the agent does offer is named too.
        self.assertIn('stamp_disk', node['last_error'])
        self.assertEqual('', self.stamp())
        # The agent stays up for the operator to look into, as Ironic's does.
        self.assertFalse(self.machine.agent_stopped(timeout=1))
        # Abort gives the machine back to its instance: the agent powered
        # off, the node booted from its disk.
        status, _ = self.api.request(
            'PUT', '/v1/nodes/real-1/states/provision', {'target': 'abort'})
        self.assertEqual(202, status)
        node = self.api.wait_for('real-1', 'active', timeout=60)
        self.assertTrue(self.machine.agent_stopped())
        self.assertEqual('power on', node['power_state'])
        self.assertIn('deploy.polish_the_disk', node['last_error'])
        self.assertEqual('written by the real agent\n',
                         images.read_file_from_ext4(
                             self.disks.disks[0].path, self.work))
