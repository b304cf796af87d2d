"""A Metal3 BareMetalHost as Metal3's baremetal-operator (BMO) shows it to
Ironic: the requests and JSON bodies its provisioner
(``pkg/provisioner/ironic``) builds for one host, field for field, and
:class:`Metal3TestCase`, which replays its registration and inspection
against the all-in-one service and a Redfish BMC (sushy-tools' emulator).
The replays themselves are in :mod:`tests.functional.test_metal3_sequence`.

Each request names the BMO file and function it comes from (as read at
BMO commit 02aa5059, August 2026, which builds on gophercloud v2.13.0).
Nothing of BMO's code is copied: this is written from reading it.
"""

import json
import urllib.request
import uuid

import testtools

from ironic_steps.api import versions
from ironic_steps.drivers import redfish
from tests.functional import fixtures as functional
from tests.functional import gophercloud_client as gophercloud
from tests.redfish_emulator import RedfishEmulator

NAMESPACE, NAME = 'metal3', 'host-0'
NODE_NAME = NAMESPACE + '~' + NAME
BOOT_MAC = '52:54:00:6d:33:01'
#: The preprovisioning image (IPA) BMO's config points at: a virtual
#: media BMC gets the ISO (``setDeployImage``, ``deployISOURL``).
DEPLOY_ISO = 'http://127.0.0.1:9/images/ironic-python-agent.iso'
LIVE_ISO = 'http://127.0.0.1:9/images/live.iso'
DATA_IMAGE = 'http://127.0.0.1:9/images/data.iso'
BIOS_IMAGE = 'http://127.0.0.1:9/fw/bios-2.1.0.bin'
BMC_IMAGE = 'http://127.0.0.1:9/fw/bmc-1.50.bin'
#: What the emulated BMC knows of a BIOS setting, as BMO's
#: ``GetFirmwareSettings`` reads each into its settings schema.
SCHEMA_FIELDS = ('name', 'value', 'attribute_type', 'allowable_values',
                 'lower_bound', 'upper_bound', 'min_length', 'max_length',
                 'read_only', 'unique')


#: The minor of the highest microversion this tree serves.
SERVED_MAX = versions.max_version()[1]
#: What a redfish node gets without a deploy interface: Ironic's is
#: ``direct``, which BMO relies on for an image (not live-ISO) host.
REDFISH_DEFAULT_DEPLOY = redfish.RedfishHardware().default('deploy')
INSTANCE_UUID = str(uuid.UUID(int=0x3e7a1))
IMAGE = {'image_source': 'http://127.0.0.1:9/images/disk.qcow2',
         'image_disk_format': 'qcow2', 'image_os_hash_algo': 'sha256',
         'image_os_hash_value': 'ab' * 32}


def inventory(mac):
    """What ironic-python-agent posts of the machine after booting the
    deploy ISO, with the fields BMO's ``hardwaredetails.
    GetHardwareDetails`` turns into the host's hardware details."""
    return {
        'cpu': {'model_name': 'Emulated CPU', 'frequency': '2400',
                'count': 8, 'architecture': 'x86_64',
                'flags': ['vmx', 'sse4_2']},
        'memory': {'total': 34359738368, 'physical_mb': 32768},
        'disks': [{'name': '/dev/sda', 'model': 'SSD', 'size': 480 * 10 ** 9,
                   'rotational': False, 'serial': 'S1', 'wwn': '0x5000c5',
                   'vendor': 'ACME', 'hctl': '0:0:0:0',
                   'by_path': '/dev/disk/by-path/pci-0000:00:1f.2-ata-1'}],
        'interfaces': [{'name': 'eno1', 'mac_address': mac,
                        'ipv4_address': '192.0.2.30', 'has_carrier': True,
                        'speed_mbps': 10000, 'vendor': '0x8086',
                        'product': '0x1572'}],
        'system_vendor': {'manufacturer': 'ACME', 'product_name': 'R1',
                          'serial_number': 'SN-1',
                          'firmware': {'vendor': 'ACME', 'version': '1.0.0',
                                       'build_date': '2026-01-01'}},
        'boot': {'current_boot_mode': 'uefi', 'pxe_interface': mac},
        'hostname': 'host-0.metal3.test',
        'bmc_address': '127.0.0.1',
    }


def firmware_steps(bios_settings, updates):
    """The BIOS and firmware steps BMO asks for, cleaning or servicing
    alike (ironic.go ``buildManualCleaningSteps``, servicing.go
    ``buildServiceSteps``): the settings that differ from the host's
    (``getNewFirmwareSettings``), then the component updates
    (``getFirmwareComponentsUpdates``)."""
    return [{'interface': 'bios', 'step': 'apply_configuration',
             'args': {'settings': [{'name': name, 'value': value}
                                   for name, value in bios_settings.items()]}},
            {'interface': 'firmware', 'step': 'update',
             'args': {'settings': [{'component': component, 'url': url}
                                   for component, url in updates.items()]}}]


def update_ops(node, desired):
    """The JSON patch BMO's updater (clients/updateopts.go
    ``getUpdateOperation``) sends for ``desired`` ({path: value}): "add"
    (which also replaces) for a value that differs from the node's,
    "remove" for None where the node has a value, nothing otherwise."""
    ops = []
    for path, value in desired.items():
        current, present = node, True
        for key in path.strip('/').split('/'):
            if not isinstance(current, dict) or current.get(key) is None:
                present = False
                break
            current = current[key]
        if value is None:
            if present:
                ops.append({'op': 'remove', 'path': path})
        elif not present or current != value:
            ops.append({'op': 'add', 'path': path, 'value': value})
    return ops


def post_inventory_as_the_agent(endpoint, mac):
    """ironic-python-agent's ``POST /v1/continue_inspection``: no version
    header, no credentials (the agent is not BMO; the replay needs it)."""
    request = urllib.request.Request(
        endpoint + '/v1/continue_inspection', method='POST',
        data=json.dumps({'inventory': inventory(mac)}).encode(),
        headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


class Metal3TestCase(testtools.TestCase):
    """A Redfish BMC of two systems with credentials, the all-in-one
    service, and BMO's client of it, negotiated."""

    #: More service options ({section: {option: value}}).
    service_options = {}

    def setUp(self):
        super().setUp()
        self.emulator = self.useFixture(RedfishEmulator(
            systems=2, username='admin', password='bmc-password'))
        self.service = self.useFixture(functional.AllInOneService(dict(
            {'redfish': {'server_side_retries': 0, 'connect_timeout': 2,
                         'read_timeout': 10,
                         'power_state_poll_interval': 0.05},
             # The BMC's tasks are polled every 0.1 s, not every 10 s.
             'conductor': {'node_locked_retry_interval': 0.1,
                           'step_poll_interval': 0.1}},
            **self.service_options)))
        self.bmo = gophercloud.GophercloudSession(self.service.endpoint)

    def driver_info(self, index=0):
        """``redfishAccessDetails.DriverInfo`` of the host's BMC address
        (redfish.go): the address without its path, the path as the system
        id, and the credentials from the host's BMC secret."""
        return {'redfish_username': 'admin',
                'redfish_password': 'bmc-password',
                'redfish_address': self.emulator.address,
                'redfish_system_id': '/redfish/v1/Systems/%s'
                                     % self.emulator.system_ids[index]}

    def create_body(self, name, index=0, deploy_interface=None,
                    disable_power_off=False,
                    boot_interface='redfish-virtual-media'):
        """register.go ``enrollNode``: gophercloud's ``nodes.CreateOpts``
        with every empty string left out; ``disable_power_off`` always
        sent (a pointer to the host's flag)."""
        body = {'driver': 'redfish',
                'boot_interface': boot_interface,
                'name': name,
                'driver_info': self.driver_info(index),
                'firmware_interface': 'redfish',
                'inspect_interface': 'agent',
                'raid_interface': 'redfish',
                'disable_power_off': disable_power_off,
                'properties': {'capabilities': 'boot_mode:uefi',
                               'cpu_arch': 'x86_64'}}
        if deploy_interface:
            body['deploy_interface'] = deploy_interface
        return body

    def register(self, name, mac, index=0, deploy_interface=None,
                 automated_clean=False):
        """BMO's ``Register`` until the node is manageable and configured;
        the node as BMO last read it."""
        bmo = self.bmo
        # register.go Register -> ironic.go findExistingHost: by name
        # (ironicNodeName, then the bare name, which has no "~"), then by
        # the boot MAC's port (getPorts).
        for ident in (name, name.split('~')[1]):
            self.assertEqual(404, bmo.request(
                'GET', '/v1/nodes/%s' % ident)[0])
        self.assertEqual({'ports': []}, bmo.call('GET', '/v1/ports' + (
            gophercloud.query(address=mac,
                              fields=['node_uuid', 'uuid', 'address']))))
        # register.go enrollNode
        body = self.create_body(name, index, deploy_interface)
        if bmo.max_minor < 95:
            # Before 1.95 Ironic refuses the field, even false, 406 (as
            # Ironic 39 at 1.93 does): BMO cannot enrol a host until
            # disable_power_off is served.  The replay goes on without it.
            status, error = bmo.request('POST', '/v1/nodes', body)
            self.assertEqual(406, status, error)
            self.assertIn('disable_power_off', error['error_message'])
            self.assertEqual(404, bmo.request('GET', '/v1/nodes/%s'
                                              % name)[0])
            del body['disable_power_off']
        node = bmo.call('POST', '/v1/nodes', body)
        # BMO stores the UUID as the host's provisioning ID.
        node_uuid = node['uuid']
        self.assertEqual(('enroll', name), (node['provision_state'],
                                            node['name']))
        # register.go createPortsForNode: the node's ports, then
        # ironic.go createNodePort for the boot MAC.
        port_fields = ['node_uuid', 'uuid', 'address']
        self.assertEqual({'ports': []}, bmo.call('GET', '/v1/ports' + (
            gophercloud.query(node_uuid=node_uuid, fields=port_fields))))
        self.assertEqual({'ports': []}, bmo.call('GET', '/v1/ports' + (
            gophercloud.query(address=mac, fields=port_fields))))
        port = bmo.call('POST', '/v1/ports', {
            'node_uuid': node_uuid, 'address': mac, 'pxe_enabled': True})
        self.assertEqual((node_uuid, mac, True), (
            port['node_uuid'], port['address'], port['pxe_enabled']))
        listed = bmo.call('GET', '/v1/ports' + gophercloud.query(
            address=mac, fields=port_fields))['ports']
        self.assertEqual([{'node_uuid': node_uuid, 'uuid': port['uuid'],
                           'address': mac}],
                         [{k: p[k] for k in port_fields} for p in listed])
        # register.go Register, state enroll: ironic.go
        # changeNodeProvisionState (tryChangeNodeProvisionState).
        bmo.call('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                 {'target': 'manage'}, ok=(202,))
        node = bmo.poll(node_uuid, 'manageable',
                        passing=('enroll', 'verifying'))
        self.assertIsNone(node['last_error'])
        # register.go Register -> ironic.go configureNode: the deploy ISO
        # (setDeployImage) and automated_clean (absent: "add"); the boot
        # mode capability is unchanged, so not sent.
        node = bmo.call('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'add', 'path': '/driver_info/deploy_iso',
             'value': DEPLOY_ISO},
            {'op': 'add', 'path': '/automated_clean',
             'value': automated_clean}])
        self.assertEqual((DEPLOY_ISO, automated_clean, '******'), (
            node['driver_info']['deploy_iso'], node['automated_clean'],
            node['driver_info']['redfish_password']))
        return node

    def inspect(self, node_uuid, mac):
        """inspecthardware.go ``InspectHardware`` of a manageable host
        never inspected: the inventory is missing (404), so
        ``startInspection``; the agent then reports."""
        bmo = self.bmo
        self.assertEqual(404, bmo.request(
            'GET', '/v1/nodes/%s/inventory' % node_uuid)[0])
        # startInspection: capabilities and inspect_interface unchanged,
        # so no PATCH; then the inspect verb.
        bmo.call('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                 {'target': 'inspect'}, ok=(202,))
        bmo.poll(node_uuid, 'inspect wait',
                 passing=('manageable', 'inspecting'))
        self.assertEqual(202, post_inventory_as_the_agent(
            self.service.endpoint, mac))
        return bmo.poll(node_uuid, 'manageable',
                        passing=('inspect wait', 'inspecting'))

    def provision_state(self, node_uuid, body):
        """ironic.go ``tryChangeNodeProvisionState``: 202 or a retry."""
        self.bmo.call('PUT', '/v1/nodes/%s/states/provision' % node_uuid,
                      body, ok=(202,))
