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
served maximum, so they run by themselves once it is served.  So are the
gaps BMO meets here (each skip names one), skipped on what the tree lacks.
Not replayed: BMC event subscriptions (vendor passthru) and software RAID.
"""

import time
import urllib.error

import testtools

from ironic_steps.drivers import redfish
from tests import fake_ipa
from tests.functional import fixtures as functional
from tests.functional import gophercloud_client as gophercloud
from tests.functional import metal3_host as host

#: The states in which a node waits for its agent's heartbeats.
_AGENT_WAITS = ('wait call-back', 'clean wait')


#: A customDeploy host's method: metal3's own hardware manager's
#: (ironic-agent-image's ``install_coreos``).
CUSTOM_MANAGER, CUSTOM_METHOD = 'CoreOSInstallHardwareManager', \
    'install_coreos'


class HostLifeTest(host.Metal3TestCase):

    def test_a_live_iso_host_from_registration_to_deletion(self):
        bmo = self.bmo
        # factory.go initAvailableFeature -> features.go
        # GetAvailableFeatures: GET of the endpoint ".../v1/".
        served = bmo.negotiate()
        self.assertEqual('1.%d' % host.SERVED_MAX, served['version'])
        self.assertEqual(gophercloud.choose_microversion(host.SERVED_MAX),
                         bmo.microversion)
        self.assertEqual(('GET', '/v1/', 200), bmo.sent[0])

        # A live-ISO host: BMO enrols it with the ramdisk deploy interface
        # (ironic.go deployInterface).
        node = self.register(host.NODE_NAME, host.BOOT_MAC,
                             deploy_interface='ramdisk')
        node_uuid = node['uuid']
        self.assertEqual(('ramdisk', 'agent', 'redfish'), (
            node['deploy_interface'], node['inspect_interface'],
            node['raid_interface']))

        # Inspection, then the inventory BMO turns into hardware details.
        self.inspect(node_uuid, host.BOOT_MAC)
        found = bmo.call('GET', '/v1/nodes/%s/inventory' % node_uuid)
        self.assertEqual(host.inventory(host.BOOT_MAC), found['inventory'])
        self.assertIn('plugin_data', found)

        # controllers/hostfirmwaresettings_controller -> ironic.go
        # GetFirmwareSettings with its schema: ?detail=true (1.74).
        settings = bmo.call('GET', '/v1/nodes/%s/bios%s' % (
            node_uuid, gophercloud.query(detail=True)))['bios']
        by_name = {s['name']: s for s in settings}
        self.assertEqual('Enabled', by_name['ProcTurboMode']['value'])
        for setting in settings:
            self.assertTrue(set(host.SCHEMA_FIELDS) <= set(setting), setting)
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
            *host.firmware_steps({'ProcTurboMode': 'Disabled'},
                                 {'bios': host.BIOS_IMAGE})]})
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
        # BMO's HostFirmwareComponents status: what it ran first, runs now.
        self.assertEqual(('1.0.0', '2.1.0'), (
            components['bios']['initial_version'],
            components['bios']['current_version']))

        # ironic.go Provision, manageable: provide (no automated clean).
        self.provision_state(node_uuid, {'target': 'provide'})
        node = bmo.poll(node_uuid, 'available',
                        passing=('manageable', 'cleaning'))
        # Provision, available -> setUpForProvisioning:
        # getInstanceUpdateOpts (instance_uuid, instance_info
        # capabilities and root_device hints, each absent: "add") and
        # setLiveIsoUpdateOptsForNode (boot_iso; deploy_interface already
        # ramdisk; force_persistent_boot_device).
        instance_uuid = host.INSTANCE_UUID
        node = bmo.call('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'add', 'path': '/instance_uuid', 'value': instance_uuid},
            {'op': 'add', 'path': '/instance_info/capabilities',
             'value': {}},
            {'op': 'add', 'path': '/instance_info/root_device', 'value': {}},
            {'op': 'add', 'path': '/instance_info/boot_iso',
             'value': host.LIVE_ISO},
            {'op': 'add', 'path': '/driver_info/force_persistent_boot_device',
             'value': 'Default'}])
        self.assertEqual((instance_uuid, host.LIVE_ISO), (
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
        self.assertEqual((host.LIVE_ISO, True), (
            self.emulator.virtual_media(system)['Image'],
            self.emulator.virtual_media(system)['Inserted']))

        # servicing.go Service, active and unprepared -> startServicing:
        # buildServiceSteps (BIOS settings, then firmware updates).
        self.provision_state(node_uuid, {
            'target': 'service', 'service_steps': host.firmware_steps(
                {'ProcTurboMode': 'Enabled'}, {'bmc': host.BMC_IMAGE})})
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
        self.assert_vmedia(node_uuid, host.LIVE_ISO)
        # ironic.go DetachDataImage, AttachDataImage: the CD only.
        bmo.call('DELETE', '/v1/nodes/%s/vmedia%s' % (
            node_uuid, gophercloud.query(device_types=['cdrom'])), ok=(204,))
        self.assert_vmedia(node_uuid, None)
        bmo.call('POST', '/v1/nodes/%s/vmedia' % node_uuid, {
            'device_type': 'cdrom', 'image_url': host.DATA_IMAGE}, ok=(204,))
        self.assert_vmedia(node_uuid, host.DATA_IMAGE)

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
            gophercloud.query(address=host.BOOT_MAC,
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


class AbortAndForcedDeletionTest(host.Metal3TestCase):

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
        # ... and restarts it, the host now in "fast" inspection mode:
        # startInspection sets the BMC's inspect interface
        # (inspectInterfaceForMode), inspects from inspect failed, out of
        # band, and the inventory is the BMC's.
        node = bmo.call('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'add', 'path': '/inspect_interface', 'value': 'redfish'}])
        self.assertEqual('redfish', node['inspect_interface'])
        self.provision_state(node_uuid, {'target': 'inspect'})
        bmo.poll(node_uuid, 'manageable',
                 passing=('inspect failed', 'inspecting'))
        found = bmo.call('GET', '/v1/nodes/%s/inventory' % node_uuid)
        self.assertTrue({'cpu', 'memory', 'disks', 'interfaces',
                         'system_vendor'} <= set(found['inventory']),
                        found['inventory'])
        # Back to agent inspection ("agent" mode), aborted again.
        bmo.call('PATCH', '/v1/nodes/%s' % node_uuid, [
            {'op': 'add', 'path': '/inspect_interface', 'value': 'agent'}])
        self.provision_state(node_uuid, {'target': 'inspect'})
        bmo.poll(node_uuid, 'inspect wait',
                 passing=('manageable', 'inspecting'))
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


class DirectDeployTest(host.Metal3TestCase):
    """An image host: the agent (:class:`tests.fake_ipa.FakeIPA`, which
    the test heartbeats for, as IPA would) writes the image and the
    config drive BMO builds."""

    service_options = {'agent': dict(fake_ipa.QUICK_CLIENT)}

    def setUp(self):
        super().setUp()
        self.ipa = self.useFixture(fake_ipa.FakeIPA())
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
            if node['provision_state'] in _AGENT_WAITS:
                self.heartbeat(node_uuid)
            time.sleep(0.1)

    def heartbeat(self, node_uuid):
        """One lookup and heartbeat of the agent, tried again later (as
        IPA does) when the node is busy (409) or has just left the state
        the agent may look it up in (404) or heartbeat in (400: its flow
        ended, and with it the token): it was read waiting a moment ago,
        and the conductor moves it on meanwhile."""
        try:
            _status, found = self.agent.request(
                'GET', '/v1/lookup?node_uuid=%s' % node_uuid)
            token = found['config'].get('agent_token')
            if token and token != '******':
                self.ipa.token = token
            self.agent.request('POST', '/v1/heartbeat/%s' % node_uuid, {
                'callback_url': self.ipa.url, 'agent_version': '10.0.0',
                'agent_token': self.ipa.token})
        except urllib.error.HTTPError as error:
            if error.code in (404, 409):
                return
            if error.code == 400 and self.bmo.node(node_uuid)[
                    'provision_state'] not in _AGENT_WAITS:
                return
            raise

    def set_up_for_provisioning(self, node, custom_deploy=False):
        """ironic.go setUpForProvisioning: getInstanceUpdateOpts and
        setDirectDeployUpdateOptsForNode (the image and its sha256; no
        checksum, boot ISO or pull secret), or for a host with a
        customDeploy method setCustomDeployUpdateOptsForNode (no image,
        deploy interface custom-agent), sent as BMO's updater sends them
        (only what differs), then validateNode."""
        bmo, node_uuid = self.bmo, node['uuid']
        desired = {'/instance_uuid': host.INSTANCE_UUID,
                   '/instance_info/capabilities': {},
                   '/instance_info/root_device': {},
                   '/instance_info/boot_iso': None,
                   '/instance_info/image_checksum': None,
                   '/instance_info/image_pull_secret': None,
                   '/driver_info/force_persistent_boot_device': 'Default'}
        if custom_deploy:
            desired.update({'/instance_info/%s' % key: None
                            for key in host.IMAGE})
            desired['/deploy_interface'] = 'custom-agent'
        else:
            desired.update({'/instance_info/%s' % key: value
                            for key, value in host.IMAGE.items()})
        if not custom_deploy and node['deploy_interface'] in (
                'ramdisk', 'custom-agent'):
            # Back to the default deploy interface, Ironic's direct.
            desired['/deploy_interface'] = None
        node = bmo.call('PATCH', '/v1/nodes/%s' % node_uuid,
                        host.update_ops(node, desired))
        validation = bmo.call('GET', '/v1/nodes/%s/validate' % node_uuid)
        self.assertEqual((True, True), (validation['boot']['result'],
                                        validation['deploy']['result']),
                         validation)
        return node

    def test_an_image_with_a_config_drive_then_an_aborted_redeploy(self):
        bmo = self.bmo
        bmo.negotiate()
        node = self.register(host.NODE_NAME, host.BOOT_MAC)
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
                          'metal3-namespace': host.NAMESPACE,
                          'metal3-name': host.NAME, 'local-hostname': host.NAME,
                          'local_hostname': host.NAME, 'name': host.NAME},
            'network_data': {'links': [{'id': 'eno1', 'type': 'phy',
                                        'ethernet_mac_address': host.BOOT_MAC}],
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
        self.assertEqual(host.IMAGE['image_source'],
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

    def test_metadata_cleaning_is_the_agents_on_provide(self):
        # BMO's default automatedCleaningMode, "metadata": configureNode
        # sets automated_clean true, so provide cleans with the agent.
        bmo = self.bmo
        bmo.negotiate()
        node = self.register(host.NODE_NAME, host.BOOT_MAC,
                             automated_clean=True)
        node_uuid = node['uuid']
        self.provision_state(node_uuid, {'target': 'provide'})
        node = self.heartbeat_until(
            node_uuid, 'available',
            passing=('manageable', 'cleaning', 'clean wait'))
        self.assertIsNone(node['last_error'])
        self.assertIn('deploy.erase_devices_metadata',
                      self.ipa.steps_run('clean'))

    @testtools.skipIf(host.REDFISH_DEFAULT_DEPLOY != 'direct',
                      'gap: a redfish node enrolled without a deploy '
                      'interface gets %s here, direct in Ironic; BMO enrols '
                      'image hosts so and resets ramdisk to the default '
                      '(remove /deploy_interface), then GET validate fails '
                      'for want of boot_iso' % host.REDFISH_DEFAULT_DEPLOY)
    def test_an_image_host_is_deployable_as_bmo_leaves_it(self):
        self.bmo.negotiate()
        node = self.register(host.NODE_NAME, host.BOOT_MAC)
        self.assertEqual('direct', node['deploy_interface'])
        self.provision_state(node['uuid'], {'target': 'provide'})
        node = self.bmo.poll(node['uuid'], 'available',
                             passing=('manageable', 'cleaning'))
        # A host that was a live-ISO one is set back to the default
        # (remove /deploy_interface): direct again.
        node = self.bmo.call('PATCH', '/v1/nodes/%s' % node['uuid'], [
            {'op': 'add', 'path': '/deploy_interface', 'value': 'ramdisk'}])
        node = self.set_up_for_provisioning(node)
        self.assertEqual('direct', node['deploy_interface'])

    def test_a_custom_deploy_host_runs_only_its_method(self):
        # A host whose spec.customDeploy.method names a deploy step of a
        # hardware manager in its agent ramdisk, which IPA reports off
        # (priority 0) until asked for.
        bmo = self.bmo
        bmo.negotiate()
        self.ipa.steps['deploy'][CUSTOM_MANAGER] = [
            {'interface': 'deploy', 'step': CUSTOM_METHOD, 'priority': 0,
             'reboot_requested': False, 'argsinfo': None}]
        node = self.register(host.NODE_NAME, host.BOOT_MAC)
        node_uuid = node['uuid']
        self.provision_state(node_uuid, {'target': 'provide'})
        node = bmo.poll(node_uuid, 'available',
                        passing=('manageable', 'cleaning'))
        node = self.set_up_for_provisioning(node, custom_deploy=True)
        self.assertEqual('custom-agent', node['deploy_interface'])
        self.assertNotIn('image_source', node['instance_info'])
        # ironic.go Provision, available: "active" with the method as
        # the one deploy step (buildCustomDeploySteps: priority 80, no
        # arguments) and no config drive for want of user data.
        self.provision_state(node_uuid, {
            'target': 'active',
            'deploy_steps': [{'interface': 'deploy', 'step': CUSTOM_METHOD,
                              'args': {}, 'priority': 80}]})
        node = self.heartbeat_until(
            node_uuid, 'active',
            passing=('available', 'deploying', 'wait call-back'))
        self.assertIsNone(node['last_error'])
        # The agent ran the method and nothing else: no image written.
        self.assertEqual(['deploy.%s' % CUSTOM_METHOD],
                         self.ipa.steps_run('deploy'))
        self.assertNotIn('image.install_bootloader', self.ipa.sent())
        self.assertEqual('On', self.emulator.power_state(
            self.emulator.system_ids[0]))


class LaterVersionsTest(host.Metal3TestCase):
    """What BMO does only when Ironic serves more than we do yet."""

    @testtools.skipIf(host.SERVED_MAX < 95,
                      'disable_power_off is API 1.95; served: 1.%d'
                      % host.SERVED_MAX)
    def test_a_host_that_must_not_power_off_is_rebooted_instead(self):
        bmo = self.bmo
        bmo.negotiate()
        # register.go enrollNode with the host's disablePowerOff true
        # (Register refuses such a host below 1.95, sending nothing).
        node = bmo.call('POST', '/v1/nodes', self.create_body(
            host.NODE_NAME, disable_power_off=True))
        self.assertTrue(node['disable_power_off'])
        self.provision_state(node['uuid'], {'target': 'manage'})
        bmo.poll(node['uuid'], 'manageable', passing=('enroll', 'verifying'))
        # ironic.go PowerOff: hard mode on such a node reboots it.
        bmo.call('PUT', '/v1/nodes/%s/states/power' % node['uuid'],
                 {'target': 'rebooting'}, ok=(202,))
        node = bmo.poll_power(node['uuid'], 'power on')
        self.assertIsNone(node['last_error'])
        self.assertEqual('On', self.emulator.power_state(
            self.emulator.system_ids[0]))

    @testtools.skipIf(host.SERVED_MAX < 109,
                      'health is API 1.109; served: 1.%d' % host.SERVED_MAX)
    def test_the_node_health_bmo_reports_is_shown(self):
        # ironic.go GetHealth reads node.health on each reconcile.
        self.bmo.negotiate()
        node = self.register(host.NODE_NAME, host.BOOT_MAC)
        self.assertIn('health', self.bmo.node(node['uuid']))

    @testtools.skipIf(
        'ipxe' not in redfish.RedfishHardware.supported_interfaces['boot'],
        'gap: a plain redfish:// BMC address enrols with boot_interface '
        'ipxe (bmc/redfish.go), which the redfish type here lacks; only '
        'redfish-virtualmedia:// hosts can be driven')
    def test_a_network_booted_redfish_host_enrols(self):
        bmo = self.bmo
        bmo.negotiate()
        # register.go enrollNode for a redfish:// BMC (bmc/redfish.go).
        body = self.create_body(host.NODE_NAME, boot_interface='ipxe')
        if bmo.max_minor < 95:
            del body['disable_power_off']   # refused before 1.95
        node = bmo.call('POST', '/v1/nodes', body)
        self.assertEqual('ipxe', node['boot_interface'])
        # ironic.go HasCapacity -> loadBusyHosts, for a BMC without
        # virtual media: one "fields" value holding the four names.
        listed = bmo.call('GET', '/v1/nodes' + gophercloud.query(
            fields=['uuid,name,provision_state,boot_interface']))['nodes']
        self.assertEqual([(node['uuid'], host.NODE_NAME, 'enroll', 'ipxe')],
                         [(n['uuid'], n['name'], n['provision_state'],
                           n['boot_interface']) for n in listed])
