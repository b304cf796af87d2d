"""metalsmith, the deploy tool, with its real CLI, against the service.

``metalsmith deploy`` asks for a node through an allocation named for the
host, writes the image and checksum into the node's ``instance_info``,
validates the node and deploys it with a config drive it builds;
``metalsmith undeploy`` tears it down.  The node is a fake-hardware node
with the ``direct`` deploy interface, played by
:class:`tests.real_agent.machine.Machine` (a real IPA 13 confined to a
loop disk), so the test reads the disk back: the image's marker, and the
config drive's SSH key and host name.  Deploying the same host name again
after the undeploy proves that the tear down let the allocation go.

metalsmith prints an instance with its IP addresses, which it reads from
Neutron (``GET /v2.0/ports?binding:host_id=<node>``) whatever the
deployment: :class:`NeutronStub` answers that on 127.0.0.1, with no port.
"""

import http.server
import json
import os
import subprocess
import sys
import threading

import fixtures
import testtools
from testtools import content

from tests.functional import fixtures as service_fixtures
from tests.real_agent import images
from tests.real_agent import machine
from tests.real_agent import sandbox

_UNAVAILABLE = sandbox.why_unavailable()
METALSMITH = os.path.join(os.path.dirname(sys.executable), 'metalsmith')
SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOfMetalsmith ms@x'
MAC = '52:54:00:5e:00:02'
HOSTNAME = 'web-1'
RESOURCE_CLASS = 'baremetal-small'


class NeutronStub(fixtures.Fixture):
    """The part of Neutron metalsmith reads when it shows an instance: the
    versions document (openstacksdk's discovery) and an empty list of
    ports.  Every request is kept in :attr:`requests`; any other is
    answered 404, so a new need shows in the test's details."""

    def _setUp(self):
        self.requests = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):

            def do_GET(self):
                stub.requests.append('GET %s' % self.path)
                path = self.path.split('?', 1)[0].rstrip('/')
                if path == '':
                    self._answer(200, {'versions': [{
                        'id': 'v2.0', 'status': 'CURRENT',
                        'links': [{'rel': 'self',
                                   'href': stub.endpoint + '/v2.0/'}]}]})
                elif path == '/v2.0/ports':
                    self._answer(200, {'ports': []})
                else:
                    self._answer(404, {'NeutronError': {
                        'type': 'HTTPNotFound', 'detail': '',
                        'message': 'The stub has no %s' % path}})

            def _answer(self, status, body):
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.endpoint = 'http://127.0.0.1:%d' % self.server.server_port
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True, name='neutron-stub')
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)


class Metalsmith:
    """Runs the real ``metalsmith`` CLI with a clouds.yaml of its own: no
    authentication, the bare metal service at ``endpoint``, Neutron at
    ``network_endpoint``.  Every run is kept in :attr:`transcript`."""

    CLOUD = 'ironic-steps-functional'

    def __init__(self, directory, endpoint, network_endpoint):
        self.clouds = os.path.join(directory, 'clouds.yaml')
        with open(self.clouds, 'w') as clouds:
            # JSON is YAML; openstacksdk reads either.
            json.dump({'clouds': {self.CLOUD: {
                'auth_type': 'none',
                'baremetal_endpoint_override': endpoint,
                'network_endpoint_override': network_endpoint}}}, clouds)
        self.env = {key: value for key, value in os.environ.items()
                    if not key.startswith('OS_')}
        self.env.update(OS_CLIENT_CONFIG_FILE=self.clouds,
                        OS_CLOUD=self.CLOUD)
        self.transcript = []

    def run(self, *args, timeout=300):
        result = subprocess.run([METALSMITH, '--debug'] + list(args),
                                capture_output=True, text=True,
                                timeout=timeout, env=self.env)
        self.transcript.append('$ metalsmith %s\n(exit %d)\n%s\n%s' % (
            ' '.join(args), result.returncode, result.stdout,
            result.stderr[-12000:]))
        return result


@testtools.skipIf(_UNAVAILABLE, _UNAVAILABLE)
class MetalsmithTest(testtools.TestCase):

    # Cleaning is the agent's: its erase steps run when the node is
    # provided and when metalsmith undeploys it.
    options = {'conductor': {'automated_clean': 'true'},
               'api': {'ramdisk_heartbeat_timeout':
                       machine.HEARTBEAT_TIMEOUT}}

    def setUp(self):
        super().setUp()
        self.work = self.useFixture(fixtures.TempDir()).path
        served = os.path.join(self.work, 'served')
        self.images = self.useFixture(images.ImageServer(served))
        self.image = {}
        for name in ('first', 'second'):
            directory = os.path.join(served, name)
            os.makedirs(directory)
            _path, checksum = images.build_whole_disk_image(
                directory, 'written for metalsmith, %s\n' % name)
            self.image[name] = (self.images.url('%s/disk.qcow2' % name),
                                checksum)
        self.service = self.useFixture(service_fixtures.ServiceProcess(
            options=self.options))
        self.api = service_fixtures.RestClient(self.service.endpoint)
        self.neutron = self.useFixture(NeutronStub())
        self.metalsmith = Metalsmith(self.work, self.service.endpoint,
                                     self.neutron.endpoint)
        self.disks = self.useFixture(sandbox.LoopDisks())
        self.key_file = os.path.join(self.work, 'id_ed25519.pub')
        with open(self.key_file, 'w') as key:
            key.write(SSH_KEY + '\n')
        self.addOnException(lambda info: self.addDetail(
            'metalsmith', content.text_content(
                '\n'.join(self.metalsmith.transcript))))
        self.addOnException(lambda info: self.addDetail(
            'neutron-stub', content.text_content(
                '\n'.join(self.neutron.requests))))
        self.addOnException(lambda info: self.addDetail(
            'service', content.text_content(
                self.service.log()[-8000:])))

    def enrol(self):
        """An available node of :data:`RESOURCE_CLASS` on the loop disk.

        No ``local_gb``: metalsmith would ask for a root partition of
        ``local_gb - 1`` GiB, which a whole-disk image ignores.
        """
        status, node = self.api.request('POST', '/v1/nodes', {
            'name': 'metal-1', 'driver': 'fake-hardware',
            'deploy_interface': 'direct',
            'resource_class': RESOURCE_CLASS,
            'properties': {
                'root_device': {'serial': self.disks.disks[0].serial},
                'capabilities': 'boot_mode:bios'}})
        self.assertEqual(201, status)
        self.api.request('POST', '/v1/ports', {'node_uuid': node['uuid'],
                                               'address': MAC})
        self.machine = self.useFixture(machine.Machine(
            self.service.endpoint, node['uuid'], MAC, self.disks))
        self.addOnException(lambda info: self.addDetail(
            'agents', content.text_content(self.machine.logs())))
        for target, state in (('manage', 'manageable'),
                              ('provide', 'available')):
            self.api.request('PUT', '/v1/nodes/metal-1/states/provision',
                             {'target': target})
            self.api.wait_for('metal-1', state, timeout=120)
        return node

    def deploy(self, image):
        url, checksum = self.image[image]
        result = self.metalsmith.run(
            '--format', 'json', 'deploy', '--image', url,
            '--image-checksum', checksum,
            '--ssh-public-key', self.key_file,
            '--resource-class', RESOURCE_CLASS, '--hostname', HOSTNAME,
            '--wait', '240')
        self.assertEqual(0, result.returncode, result.stderr[-4000:])
        return json.loads(result.stdout)

    def assertDeployed(self, image):
        node = self.api.node('metal-1')
        self.assertEqual(('active', 'power on'),
                         (node['provision_state'], node['power_state']))
        disk = self.disks.disks[0].path
        self.assertEqual('written for metalsmith, %s\n' % image,
                         images.read_file_from_ext4(disk, self.work))
        meta = images.meta_data(disk)
        self.assertEqual({'0': SSH_KEY}, meta['public_keys'])
        self.assertEqual(HOSTNAME, meta['hostname'])
        self.assertEqual(node['uuid'], meta['uuid'])
        return node

    def test_deploy_undeploy_and_deploy_the_same_host_again(self):
        node = self.enrol()

        shown = self.deploy('first')
        self.assertEqual(('active', HOSTNAME, node['uuid']),
                         (shown['state'], shown['hostname'], shown['uuid']))
        self.assertEqual(HOSTNAME, shown['allocation']['name'])
        deployed = self.assertDeployed('first')
        self.assertEqual(shown['allocation']['id'],
                         deployed['allocation_uuid'])

        # By host name: metalsmith finds the allocation, then its node.
        result = self.metalsmith.run('undeploy', HOSTNAME, '--wait', '120')
        self.assertEqual(0, result.returncode, result.stderr[-4000:])
        undeployed = self.api.node('metal-1')
        self.assertEqual('available', undeployed['provision_state'])
        self.assertIsNone(undeployed['instance_uuid'])
        self.assertIsNone(undeployed['allocation_uuid'])
        _status, listed = self.api.request('GET', '/v1/allocations')
        self.assertEqual([], listed['allocations'])
        # The agent's cleaning erased the disk: no partition, no marker.
        _status, history = self.api.request(
            'GET', '/v1/nodes/metal-1/x-steps/history?flow=clean')
        self.assertEqual(
            ['erase_devices_metadata', 'erase_devices'],
            [entry['step'] for entry in history['history']][-2:])
        self.assertEqual([], images.partitions(self.disks.disks[0].path))

        # The host name is free again: a second allocation takes it.
        again = self.deploy('second')
        self.assertEqual(('active', HOSTNAME), (again['state'],
                                                again['hostname']))
        self.assertNotEqual(shown['allocation']['id'],
                            again['allocation']['id'])
        self.assertDeployed('second')
