"""Metal3's baremetal-operator (BMO) drives the all-in-one service.

BMO (github.com/metal3-io/baremetal-operator, ``pkg/provisioner/ironic``)
is the largest Ironic consumer.  These tests replay, over plain HTTP and
with gophercloud's headers (:mod:`tests.functional.gophercloud_client`),
the requests it sends over a BareMetalHost's life -- same methods, paths,
query strings and JSON bodies, field for field as its Go code builds them
-- against the all-in-one service and a Redfish BMC (sushy-tools'
emulator, :mod:`tests.redfish_emulator`), and assert what BMO relies on
at each step: the states it polls for, the fields it reads.

Each request names the BMO file and function it comes from.  The host is
``metal3/host-0`` (its Ironic name ``metal3~host-0``, ``ironicNodeName``),
its BMC address ``redfish-virtualmedia+http://127.0.0.1:<port>/redfish/
v1/Systems/<id>`` (``pkg/hardwareutils/bmc/redfish_virtualmedia.go``:
driver ``redfish``, boot ``redfish-virtual-media``, firmware and RAID
``redfish``), its automated cleaning ``disabled`` (``automated_clean``
false: no agent is needed to provide or deprovision it).

Where BMO needs a microversion we do not serve yet, the step asserts what
it gets now and the parts needing the later version are skipped on the
served maximum, so they run by themselves once it is served.
"""

import json
import time
import urllib.request
import uuid

import testtools

from ironic_steps.api import versions
from ironic_steps.drivers import redfish
from tests import fake_ipa
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

    def setUp(self):
        super().setUp()
        self.emulator = self.useFixture(RedfishEmulator(
            systems=2, username='admin', password='bmc-password'))
        self.service = self.useFixture(functional.AllInOneService(
            {'redfish': {'server_side_retries': 0, 'connect_timeout': 2,
                         'read_timeout': 10,
                         'power_state_poll_interval': 0.05},
             # The BMC's tasks are polled every 0.1 s, not every 10 s.
             'conductor': {'node_locked_retry_interval': 0.1,
                           'step_poll_interval': 0.1}}))
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
                    disable_power_off=False):
        """register.go ``enrollNode``: gophercloud's ``nodes.CreateOpts``
        with every empty string left out; ``disable_power_off`` always
        sent (a pointer to the host's flag)."""
        body = {'driver': 'redfish',
                'boot_interface': 'redfish-virtual-media',
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

    def register(self, name, mac, index=0, deploy_interface=None):
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
            {'op': 'add', 'path': '/automated_clean', 'value': False}])
        self.assertEqual((DEPLOY_ISO, False, '******'), (
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


class HostLifeTest(Metal3TestCase):

    def test_a_live_iso_host_from_registration_to_deletion(self):
        bmo = self.bmo
        # factory.go initAvailableFeature -> features.go
        # GetAvailableFeatures: GET of the endpoint ".../v1/".
        served = bmo.negotiate()
        self.assertEqual('1.%d' % SERVED_MAX, served['version'])
        self.assertEqual(gophercloud.choose_microversion(SERVED_MAX),
                         bmo.microversion)
        self.assertEqual(('GET', '/v1/', 200), bmo.sent[0])

        # A live-ISO host: BMO enrols it with the ramdisk deploy interface
        # (ironic.go deployInterface).
        node = self.register(NODE_NAME, BOOT_MAC,
                             deploy_interface='ramdisk')
        node_uuid = node['uuid']
        self.assertEqual(('ramdisk', 'agent', 'redfish'), (
            node['deploy_interface'], node['inspect_interface'],
            node['raid_interface']))

        # Inspection, then the inventory BMO turns into hardware details.
        self.inspect(node_uuid, BOOT_MAC)
        found = bmo.call('GET', '/v1/nodes/%s/inventory' % node_uuid)
        self.assertEqual(inventory(BOOT_MAC), found['inventory'])
        self.assertIn('plugin_data', found)

        # controllers/hostfirmwaresettings_controller -> ironic.go
        # GetFirmwareSettings with its schema: ?detail=true (1.74).
        settings = bmo.call('GET', '/v1/nodes/%s/bios%s' % (
            node_uuid, gophercloud.query(detail=True)))['bios']
        by_name = {s['name']: s for s in settings}
        self.assertEqual('Enabled', by_name['ProcTurboMode']['value'])
        for setting in settings:
            self.assertTrue(set(SCHEMA_FIELDS) <= set(setting), setting)
        self.assertEqual(['Enabled', 'Disabled'],
                         by_name['ProcTurboMode']['allowable_values'])

        # controllers/hostfirmwarecomponents_controller -> ironic.go
        # GetFirmwareComponents: bios and bmc, with their versions.
        components = {c['component']: c for c in bmo.call(
            'GET', '/v1/nodes/%s/firmware' % node_uuid)['firmware']}
        self.assertEqual({'bios', 'bmc'}, set(components))
        for component in components.values():
            self.assertTrue({'initial_version', 'current_version',
                             'last_version_flashed', 'updated_at'}
                            <= set(component), component)

        # ironic.go Prepare, manageable and unprepared -> startManualCleaning
        # -> raid.go setTargetRAIDCfg: raid_interface unchanged (no PATCH),
        # the target RAID configuration (no root device hints, so the
        # first volume is the root one) ...
        bmo.call('PUT', '/v1/nodes/%s/states/raid' % node_uuid, {
            'logical_disks': [{'size_gb': 100, 'raid_level': '1',
                               'volume_name': 'root',
                               'is_root_volume': True}]}, ok=(204,))
        # ... then buildManualCleaningSteps: raid.go BuildRAIDCleanSteps,
        # the BIOS settings that differ, the firmware updates.
        self.provision_state(node_uuid, {'target': 'clean', 'clean_steps': [
            {'interface': 'raid', 'step': 'delete_configuration'},
            {'interface': 'raid', 'step': 'create_configuration'},
            *firmware_steps({'ProcTurboMode': 'Disabled'},
                            {'bios': BIOS_IMAGE})]})
        node = bmo.poll(node_uuid, 'manageable',
                        passing=('manageable', 'cleaning', 'clean wait'),
                        timeout=60)
        self.assertIsNone(node['last_error'])
        system = self.emulator.system_ids[0]
        self.assertEqual(['1'], [v['RAIDType'].replace('RAID', '')
                                 for v in self.emulator.volumes(system)])
        settings = {s['name']: s['value'] for s in bmo.call(
            'GET', '/v1/nodes/%s/bios%s' % (
                node_uuid, gophercloud.query(detail=True)))['bios']}
        self.assertEqual('Disabled', settings['ProcTurboMode'])
        components = {c['component']: c for c in bmo.call(
            'GET', '/v1/nodes/%s/firmware' % node_uuid)['firmware']}
        self.assertEqual(('2.1.0', BIOS_IMAGE.rsplit('/', 1)[1]), (
            components['bios']['current_version'],
            BIOS_IMAGE.rsplit('/', 1)[1]))

        # ironic.go Provision, manageable: provide (no automated clean).
        self.provision_state(node_uuid, {'target': 'provide'})
        node = bmo.poll(node_uuid, 'available',
                        passing=('manageable', 'cleaning'))
        # Provision, available -> setUpForProvisioning:
        # getInstanceUpdateOpts (instance_uuid, instance_info
        # capabilities and root_device hints, each absent: "add") and
        # setLiveIsoUpdateOptsForNode (boot_iso; deploy_interface already
        # ramdisk; force_persistent_boot_device).
        instance_uuid = str(uuid.uuid4())
        node = bmo.call('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'add', 'path': '/instance_uuid', 'value': instance_uuid},
            {'op': 'add', 'path': '/instance_info/capabilities',
             'value': {}},
            {'op': 'add', 'path': '/instance_info/root_device', 'value': {}},
            {'op': 'add', 'path': '/instance_info/boot_iso',
             'value': LIVE_ISO},
            {'op': 'add', 'path': '/driver_info/force_persistent_boot_device',
             'value': 'Default'}])
        self.assertEqual((instance_uuid, LIVE_ISO), (
            node['instance_uuid'], node['instance_info']['boot_iso']))
        # ironic.go validateNode: boot and deploy must pass.
        validation = bmo.call('GET', '/v1/nodes/%s/validate' % node_uuid)
        self.assertEqual((True, True), (validation['boot']['result'],
                                        validation['deploy']['result']),
                         validation)
        # Provision -> getConfigDrive gives none for a live ISO, but the
        # empty nodes.ConfigDrive still goes (an "any" field): {}.
        self.provision_state(node_uuid, {'target': 'active',
                                         'configdrive': {}})
        node = bmo.poll(node_uuid, 'active',
                        passing=('available', 'deploying', 'wait call-back'))
        self.assertEqual((None, 'power on'),
                         (node['last_error'], node['power_state']))
        self.assertEqual((LIVE_ISO, True), (
            self.emulator.virtual_media(system)['Image'],
            self.emulator.virtual_media(system)['Inserted']))

        # servicing.go Service, active and unprepared -> startServicing:
        # buildServiceSteps (BIOS settings, then firmware updates).
        self.provision_state(node_uuid, {
            'target': 'service', 'service_steps': firmware_steps(
                {'ProcTurboMode': 'Enabled'}, {'bmc': BMC_IMAGE})})
        node = bmo.poll(node_uuid, 'active',
                        passing=('active', 'servicing', 'service wait'),
                        timeout=60)
        self.assertIsNone(node['last_error'])
        components = {c['component']: c for c in bmo.call(
            'GET', '/v1/nodes/%s/firmware' % node_uuid)['firmware']}
        self.assertEqual('1.50', components['bmc']['current_version'])
        self.assertEqual('Enabled', self.emulator.bios_attributes(system)[
            'ProcTurboMode'])

        # ironic.go GetDataImageStatus (1.93): the node is not reserved,
        # then its virtual media.
        self.assertIsNone(bmo.node(node_uuid)['reservation'])
        self.assert_vmedia(node_uuid, LIVE_ISO)
        # ironic.go DetachDataImage, AttachDataImage: the CD only.
        bmo.call('DELETE', '/v1/nodes/%s/vmedia%s' % (
            node_uuid, gophercloud.query(device_types=['cdrom'])), ok=(204,))
        self.assert_vmedia(node_uuid, None)
        bmo.call('POST', '/v1/nodes/%s/vmedia' % node_uuid, {
            'device_type': 'cdrom', 'image_url': DATA_IMAGE}, ok=(204,))
        self.assert_vmedia(node_uuid, DATA_IMAGE)

        # ironic.go PowerOff (soft reboot mode) -> changePower, then
        # PowerOn; BMO waits for target_power_state to clear.
        bmo.call('PUT', '/v1/nodes/%s/states/power' % node_uuid,
                 {'target': 'soft power off', 'timeout': 180}, ok=(202,))
        bmo.poll_power(node_uuid, 'power off')
        bmo.call('PUT', '/v1/nodes/%s/states/power' % node_uuid,
                 {'target': 'power on'}, ok=(202,))
        bmo.poll_power(node_uuid, 'power on')

        # ironic.go Deprovision, active: automated_clean already false
        # (syncAutomatedClean sends nothing), then "deleted".
        self.provision_state(node_uuid, {'target': 'deleted'})
        node = bmo.poll(node_uuid, 'available',
                        passing=('active', 'deleting', 'cleaning'))
        self.assertIsNone(node['last_error'])

        # ironic.go Delete -> realDelete, available: a stale instance UUID
        # removed first, then the node.
        if node['instance_uuid']:
            bmo.call('PATCH', '/v1/nodes/%s' % node_uuid, [
                {'op': 'remove', 'path': '/instance_uuid'}])
        bmo.call('DELETE', '/v1/nodes/%s' % node_uuid, ok=(204,))
        # getNode: gone (404), so BMO considers the host deleted.
        self.assertEqual(404, bmo.request('GET', '/v1/nodes/%s'
                                          % node_uuid)[0])
        self.assertEqual({'ports': []}, bmo.call('GET', '/v1/ports' + (
            gophercloud.query(address=BOOT_MAC,
                              fields=['node_uuid', 'uuid', 'address']))))

    def assert_vmedia(self, node_uuid, image):
        """``GET /v1/nodes/{node}/vmedia`` as ironic.go GetDataImageStatus
        reads it: an inserted device holds ``image``, or none is inserted."""
        devices = self.bmo.call('GET', '/v1/nodes/%s/vmedia' % node_uuid)
        inserted = [d['image'] for d in devices if d['inserted']]
        self.assertEqual([image] if image else [], inserted, devices)
        for device in devices:
            self.assertEqual({'image', 'inserted', 'media_types'},
                             set(device) & {'image', 'inserted',
                                            'media_types'})


class AbortAndForcedDeletionTest(Metal3TestCase):

    def test_an_inspection_aborted_then_the_host_deleted_in_maintenance(
            self):
        bmo = self.bmo
        bmo.negotiate()
        mac = '52:54:00:6d:33:02'
        node_uuid = self.register('metal3~host-1', mac, index=1)['uuid']
        self.assertEqual(404, bmo.request(
            'GET', '/v1/nodes/%s/inventory' % node_uuid)[0])
        self.provision_state(node_uuid, {'target': 'inspect'})
        bmo.poll(node_uuid, 'inspect wait',
                 passing=('manageable', 'inspecting'))
        # inspecthardware.go abortInspection (a new preprovisioning image)
        # or ironic.go realDelete with force, in inspect wait: abort.
        self.provision_state(node_uuid, {'target': 'abort'})
        node = bmo.poll(node_uuid, 'inspect failed',
                        passing=('inspect wait',))
        # InspectHardware restarts an inspection quietly only when the
        # error says "aborted".
        self.assertIn('aborted', node['last_error'])
        # ... and restarts it: startInspection from inspect failed.
        self.provision_state(node_uuid, {'target': 'inspect'})
        bmo.poll(node_uuid, 'inspect wait',
                 passing=('inspect failed', 'inspecting'))
        self.provision_state(node_uuid, {'target': 'abort'})
        node = bmo.poll(node_uuid, 'inspect failed',
                        passing=('inspect wait',))
        self.assertFalse(node['maintenance'])

        # ironic.go realDelete, any other state: maintenance first
        # (setMaintenanceFlag), then the node.
        reason = 'forcing deletion in baremetal-operator'
        bmo.call('PUT', '/v1/nodes/%s/maintenance' % node_uuid,
                 {'reason': reason}, ok=(202,))
        node = bmo.node(node_uuid)
        self.assertEqual((True, reason), (node['maintenance'],
                                          node['maintenance_reason']))
        # A state change in maintenance: tryChangeNodeProvisionState
        # takes the node out of maintenance first (setMaintenanceFlag).
        bmo.call('DELETE', '/v1/nodes/%s/maintenance' % node_uuid,
                 ok=(202,))
        self.assertFalse(bmo.node(node_uuid)['maintenance'])
        bmo.call('PUT', '/v1/nodes/%s/maintenance' % node_uuid,
                 {'reason': reason}, ok=(202,))
        bmo.call('DELETE', '/v1/nodes/%s' % node_uuid, ok=(204,))
        self.assertEqual(404, bmo.request('GET', '/v1/nodes/%s'
                                          % node_uuid)[0])


class DirectDeployTest(Metal3TestCase):
    """An image host: the agent (:class:`tests.fake_ipa.FakeIPA`, which
    the test heartbeats for, as IPA would) writes the image and the
    config drive BMO builds."""

    def setUp(self):
        super().setUp()
        self.ipa = self.useFixture(fake_ipa.FakeIPA())
        self.service.stop()
        self.service = self.useFixture(functional.AllInOneService(
            {'redfish': {'server_side_retries': 0, 'connect_timeout': 2,
                         'read_timeout': 10,
                         'power_state_poll_interval': 0.05},
             'conductor': {'node_locked_retry_interval': 0.1,
                           'step_poll_interval': 0.1},
             'agent': dict(fake_ipa.QUICK_CLIENT)}))
        self.bmo = gophercloud.GophercloudSession(self.service.endpoint)
        self.agent = functional.RestClient(self.service.endpoint)

    def heartbeat_until(self, node_uuid, state, passing, timeout=30):
        """Play the booted agent: look the node up (its token, once a
        flow), heartbeat with the agent's URL, until ``state``."""
        deadline = time.monotonic() + timeout
        while True:
            node = self.bmo.node(node_uuid)
            if node['provision_state'] == state:
                return node
            self.assertIn(node['provision_state'], passing,
                          node['last_error'])
            self.assertLess(time.monotonic(), deadline, node)
            if node['provision_state'] == 'wait call-back':
                _status, found = self.agent.request(
                    'GET', '/v1/lookup?node_uuid=%s' % node_uuid)
                token = found['config'].get('agent_token')
                if token and token != '******':
                    self.ipa.token = token
                self.agent.request('POST', '/v1/heartbeat/%s' % node_uuid, {
                    'callback_url': self.ipa.url, 'agent_version': '10.0.0',
                    'agent_token': self.ipa.token})
            time.sleep(0.1)

    def set_up_for_provisioning(self, node):
        """ironic.go setUpForProvisioning: getInstanceUpdateOpts and
        setDirectDeployUpdateOptsForNode (the image and its sha256; no
        checksum, boot ISO or pull secret), sent as BMO's updater sends
        them (only what differs), then validateNode."""
        bmo, node_uuid = self.bmo, node['uuid']
        desired = {'/instance_uuid': INSTANCE_UUID,
                   '/instance_info/capabilities': {},
                   '/instance_info/root_device': {},
                   '/instance_info/boot_iso': None,
                   '/instance_info/image_checksum': None,
                   '/instance_info/image_pull_secret': None,
                   '/driver_info/force_persistent_boot_device': 'Default'}
        desired.update({'/instance_info/%s' % key: value
                        for key, value in IMAGE.items()})
        if node['deploy_interface'] in ('ramdisk', 'custom-agent'):
            # Back to the default deploy interface, Ironic's direct.
            desired['/deploy_interface'] = None
        node = bmo.call('PATCH', '/v1/nodes/%s' % node_uuid,
                        update_ops(node, desired))
        if node['deploy_interface'] != 'direct':
            # Gap: our redfish default is ramdisk, so the node is not
            # deployable as BMO left it (GET validate: deploy fails for
            # want of boot_iso, BMO's "host validation error").  Give it
            # Ironic's default, as its operator would have to.
            self.assertEqual(REDFISH_DEFAULT_DEPLOY,
                             node['deploy_interface'])
            node = bmo.call('PATCH', '/v1/nodes/%s' % node_uuid, [
                {'op': 'add', 'path': '/deploy_interface',
                 'value': 'direct'}])
        validation = bmo.call('GET', '/v1/nodes/%s/validate' % node_uuid)
        self.assertEqual((True, True), (validation['boot']['result'],
                                        validation['deploy']['result']),
                         validation)
        return node

    def test_an_image_with_a_config_drive_then_an_aborted_redeploy(self):
        bmo = self.bmo
        bmo.negotiate()
        node = self.register(NODE_NAME, BOOT_MAC)
        node_uuid = node['uuid']
        # ironic.go Provision, manageable: provide.
        self.provision_state(node_uuid, {'target': 'provide'})
        node = bmo.poll(node_uuid, 'available',
                        passing=('manageable', 'cleaning'))
        node = self.set_up_for_provisioning(node)
        # ironic.go getConfigDrive: user data, network data, and the meta
        # data BMO fills from the host (uuid, namespace, names).
        config_drive = {
            'meta_data': {'uuid': node['instance_uuid'],
                          'metal3-namespace': NAMESPACE,
                          'metal3-name': NAME, 'local-hostname': NAME,
                          'local_hostname': NAME, 'name': NAME},
            'network_data': {'links': [{'id': 'eno1', 'type': 'phy',
                                        'ethernet_mac_address': BOOT_MAC}],
                             'networks': [], 'services': []},
            'user_data': '#cloud-config\nhostname: host-0\n'}
        self.provision_state(node_uuid, {'target': 'active',
                                         'configdrive': config_drive})
        node = self.heartbeat_until(
            node_uuid, 'active',
            passing=('available', 'deploying', 'wait call-back'))
        self.assertIsNone(node['last_error'])
        # The agent was given the image and a config drive built from it.
        written = self.ipa.sent('deploy.execute_deploy_step')
        args = [p['step']['args'] for p in written
                if p['step']['step'] == 'write_image'][0]
        self.assertEqual(IMAGE['image_source'],
                         args['image_info']['urls'][0])
        self.assertTrue(args['configdrive'])

        # ironic.go Deprovision, active ("deleted"), then Provision again;
        # ironic.go Detach with force, in wait call-back: before 1.110
        # BMO tears the deploy down ("deleted"), from 1.110 it aborts.
        self.provision_state(node_uuid, {'target': 'deleted'})
        node = bmo.poll(node_uuid, 'available',
                        passing=('active', 'deleting', 'cleaning'))
        node = self.set_up_for_provisioning(node)
        self.provision_state(node_uuid, {'target': 'active',
                                         'configdrive': config_drive})
        bmo.poll(node_uuid, 'wait call-back',
                 passing=('available', 'deploying'))
        if bmo.max_minor >= 110:
            self.provision_state(node_uuid, {'target': 'abort'})
            node = bmo.poll(node_uuid, 'deploy failed',
                            passing=('wait call-back',))
        else:
            self.provision_state(node_uuid, {'target': 'deleted'})
            node = bmo.poll(node_uuid, 'available',
                            passing=('wait call-back', 'deleting',
                                     'cleaning'))
        self.assertIsNone(bmo.node(node_uuid)['reservation'])
