"""The redfish hardware type against a real Redfish BMC emulator.

A started conductor drives the real redfish interfaces, through sushy,
over HTTP, against sushy-tools' emulator process with our backend
(:mod:`tests.redfish_emulator`); what a BMC would show is read back from
the emulator.  Polled steps are checked by the conductor's own periodic
poller, every 0.1 s here.
"""

import time

import sushy

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import power_sync
from ironic_steps.drivers.modules.redfish import utils
from ironic_steps import objects
from tests import base
from tests.redfish_emulator import RedfishEmulator

BOOT_ISO = 'http://127.0.0.1:9/images/instance.iso'
RAID_LAYOUT = {'logical_disks': [
    {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True,
     'volume_name': 'root'},
    {'size_gb': 200, 'raid_level': '0', 'volume_name': 'scratch'}]}
BIOS_SETTINGS = [{'name': 'ProcTurboMode', 'value': 'Disabled'},
                 {'name': 'SriovEnable', 'value': 'Enabled'}]


class RedfishTestCase(base.ConductorTestCase):

    emulator_options = {}
    # The poller's period is read when the conductor starts.
    conductor_config = {'conductor': {'step_poll_interval': 0.1}}

    def setUp(self):
        super().setUp()
        self.config(power_state_poll_interval=0.05, server_side_retries=0,
                    connect_timeout=2, read_timeout=10, group='redfish')
        self.emulator = self.useFixture(RedfishEmulator(
            **self.emulator_options))
        # A later test's emulator may get this one's port.
        self.addCleanup(utils.SESSIONS.clear)

    def redfish_node(self, index=0, **fields):
        driver_info = {
            'redfish_address': self.emulator.address,
            'redfish_system_id': self.emulator.system_ids[index]}
        if self.emulator.username:
            driver_info.update(redfish_username=self.emulator.username,
                               redfish_password=self.emulator.password)
        # The ramdisk deploy of instance_info/boot_iso: what these tests
        # drive (direct, the type's default, needs an agent).
        fields.setdefault('deploy_interface', 'ramdisk')
        fields.setdefault('instance_info', {'boot_iso': BOOT_ISO})
        return self.create_node(driver='redfish', driver_info=driver_info,
                                **fields)

    def available(self, node):
        for action, state in (('manage', states.MANAGEABLE),
                              ('provide', states.AVAILABLE)):
            self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                               action)
            node = self.wait_for_state(node, state, timeout=30)
        return node

    def clean_firmware(self, node, url):
        """Clean ``node`` manually with a firmware update from ``url``."""
        self.rpcapi.do_node_clean(self.context, node.uuid, clean_steps=[
            {'interface': 'management', 'step': 'update_firmware',
             'args': {'firmware_images': [{'url': url}]}}])

    def manageable(self, **fields):
        node = self.redfish_node(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE, timeout=30)

    def system_id(self, index=0):
        return self.emulator.system_ids[index]


class PowerAndBootTest(RedfishTestCase):

    def test_power_on_off_and_reboot_reach_the_bmc(self):
        node = self.redfish_node()
        for target, shown in ((states.POWER_ON, 'On'),
                              (states.POWER_OFF, 'Off'),
                              (states.REBOOT, 'On')):
            self.rpcapi.change_node_power_state(self.context, node.uuid,
                                                target)
            stored = self.wait_for_state(node, states.ENROLL)
            self.assertIsNone(stored.last_error)
            self.assertEqual(shown, self.emulator.power_state(
                self.system_id()))
            self.assertEqual(states.POWER_ON if shown == 'On'
                             else states.POWER_OFF, stored.power_state)

    def test_a_ramdisk_deploy_boots_the_iso_from_virtual_media(self):
        node = self.available(self.redfish_node())
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE, timeout=30)
        self.assertIsNone(node.last_error)
        media = self.emulator.virtual_media(self.system_id())
        self.assertEqual(BOOT_ISO, media['Image'])
        self.assertTrue(media['Inserted'])
        # It booted from the CD once: powering on used the override up.
        self.assertEqual('On', self.emulator.power_state(self.system_id()))
        self.assertEqual('Disabled', self.emulator.boot_source(
            self.system_id())['enabled'])
        # Tearing down ejects the image and powers off.
        self.rpcapi.do_node_tear_down(self.context, node.uuid)
        self.wait_for_state(node, states.AVAILABLE, timeout=30)
        self.assertFalse(self.emulator.virtual_media(
            self.system_id())['Inserted'])


class TemplateDeployTest(RedfishTestCase):

    def test_a_bios_and_raid_template_is_applied_through_the_poller(self):
        template = objects.DeployTemplate(
            self.context, name='CUSTOM_DATABASE', steps=[
                {'interface': 'bios', 'step': 'apply_configuration',
                 'args': {'settings': BIOS_SETTINGS}, 'priority': 95},
                {'interface': 'raid', 'step': 'apply_configuration',
                 'args': {'raid_config': RAID_LAYOUT}, 'priority': 90}])
        template.create()
        node = self.available(self.redfish_node())
        node.set_traits(['CUSTOM_DATABASE'])
        node.instance_info = {'boot_iso': BOOT_ISO,
                              'traits': ['CUSTOM_DATABASE']}
        node.save()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE, timeout=60)
        self.assertIsNone(node.last_error)
        attributes = self.emulator.bios_attributes(self.system_id())
        self.assertEqual('Disabled', attributes['ProcTurboMode'])
        self.assertEqual('Enabled', attributes['SriovEnable'])
        volumes = self.emulator.volumes(self.system_id())
        self.assertEqual(
            sorted([('root', 'RAID1', 100 * 1024 ** 3),
                    ('scratch', 'RAID0', 200 * 1024 ** 3)]),
            sorted((v['Name'], v['RAIDType'], v['CapacityBytes'])
                   for v in volumes))
        self.assertEqual(['root', 'scratch'], [
            disk['volume_name'] for disk in node.raid_config[
                'logical_disks']])
        cached = {s.name: s.value for s in objects.BIOSSetting.list_by_node(
            self.context, node.id)}
        self.assertEqual('Disabled', cached['ProcTurboMode'])
        self.assertEqual('Enabled', cached['SriovEnable'])

    def test_an_unknown_bios_setting_fails_the_step_naming_it(self):
        node = self.available(self.redfish_node())
        self.rpcapi.do_node_deploy(
            self.context, node.uuid, deploy_steps=[
                {'interface': 'bios', 'step': 'apply_configuration',
                 'priority': 95,
                 'args': {'settings': [{'name': 'TurboTurbo',
                                        'value': 'On'}]}}])
        node = self.wait_for_state(node, states.DEPLOYFAIL, timeout=30)
        self.assertIn('bios.apply_configuration', node.last_error)
        self.assertIn('TurboTurbo', node.last_error)


class CleaningTest(RedfishTestCase):

    def test_manual_cleaning_updates_the_firmware(self):
        node = self.manageable()
        before = self.emulator.bios_version(self.system_id())
        self.clean_firmware(node, 'http://127.0.0.1:9/fw/bios-2.0.bin')
        node = self.wait_for_state(node, states.MANAGEABLE, timeout=60)
        self.assertIsNone(node.last_error)
        self.assertNotEqual(before,
                            self.emulator.bios_version(self.system_id()))

    def test_a_failed_firmware_task_fails_the_step_with_the_bmc_message(
            self):
        node = self.manageable()
        self.clean_firmware(node, 'http://127.0.0.1:9/fw/fail-image.bin')
        node = self.wait_for_state(node, states.CLEANFAIL, timeout=60)
        self.assertIn('management.update_firmware', node.last_error)
        self.assertIn('firmware update', node.last_error)


class SlowPowerTest(RedfishTestCase):

    emulator_options = {'power_delay': 3}

    def test_a_power_change_the_bmc_does_not_show_in_time_fails_naming_it(
            self):
        self.config(power_state_change_timeout=1, group='redfish')
        node = self.redfish_node()
        self.rpcapi.change_node_power_state(self.context, node.uuid,
                                            states.POWER_ON)
        node = self.wait_for_state(node, states.ENROLL)
        deadline = time.monotonic() + 30
        while node.target_power_state or not node.last_error:
            self.assertLess(time.monotonic(), deadline, node.last_error)
            time.sleep(0.1)
            node = objects.Node.get(self.context, node.uuid)
        self.assertIn('power on did not happen within 1.0 seconds; the BMC '
                      'last reported power off', node.last_error)


class RestartingBMCTest(RedfishTestCase):

    emulator_options = {'update_seconds': 4}

    def test_a_bmc_restarting_during_its_firmware_update_is_asked_again(
            self):
        node = self.manageable()
        before = self.emulator.bios_version(self.system_id())
        self.clean_firmware(node, 'http://127.0.0.1:9/fw/bios-2.0.bin')
        node = self.wait_for_state(node, states.CLEANWAIT, timeout=30)
        # Every request fails, the task monitor's included, for a while
        self.emulator.fail_requests('*', status=503,
                                    message='BMC is restarting')
        deadline = time.monotonic() + 30
        while 'BMC is restarting' not in (
                node.driver_internal_info.get('step_polling', {})
                .get('status') or ''):
            self.assertLess(time.monotonic(), deadline, node.provision_state)
            time.sleep(0.1)
            node = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.CLEANWAIT, node.provision_state)
        self.emulator.clear_faults()
        node = self.wait_for_state(node, states.MANAGEABLE, timeout=60)
        self.assertIsNone(node.last_error)
        self.assertNotEqual(before,
                            self.emulator.bios_version(self.system_id()))


class SlowVolumesTest(RedfishTestCase):

    emulator_options = {'volume_seconds': 30}

    def test_a_raid_build_that_outlasts_its_timeout_fails_naming_it(self):
        self.config(step_poll_timeout=1, group='conductor')
        node = self.redfish_node()
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE, timeout=30)
        self.rpcapi.do_node_clean(self.context, node.uuid, clean_steps=[
            {'interface': 'raid', 'step': 'apply_configuration',
             'args': {'raid_config': {'logical_disks': [
                 {'size_gb': 10, 'raid_level': '1'}]}}}])
        node = self.wait_for_state(node, states.CLEANFAIL, timeout=30)
        self.assertIn('raid.apply_configuration timed out after 1 seconds',
                      node.last_error)
        self.assertIn('last status', node.last_error)


class BMCFailuresTest(RedfishTestCase):

    emulator_options = {'username': 'admin', 'password': 'right-password',
                        'systems': 2}

    def test_a_wrong_password_fails_clearly_and_is_not_echoed(self):
        node = self.redfish_node()
        node.driver_info = dict(node.driver_info,
                                redfish_password='wrong-password')
        node.save()
        self.rpcapi.change_node_power_state(self.context, node.uuid,
                                            states.POWER_ON)
        node = self.wait_for_state(node, states.ENROLL)
        self.assertIn('refused the credentials', node.last_error)
        self.assertNotIn('wrong-password', node.last_error)
        self.assertNotIn('right-password', node.last_error)

    def test_a_bmc_that_stops_mid_step_fails_it_and_spares_other_nodes(
            self):
        broken = self.available(self.redfish_node(0))
        healthy = self.available(self.redfish_node(1))
        self.emulator.fail_requests(self.system_id(0), status=503,
                                    message='BMC is rebooting')
        for node in (broken, healthy):
            self.rpcapi.do_node_deploy(self.context, node.uuid)
        broken = self.wait_for_state(broken, states.DEPLOYFAIL, timeout=60)
        self.assertIn('BMC of node %s' % broken.uuid, broken.last_error)
        self.assertNotIn('right-password', broken.last_error)
        self.wait_for_state(healthy, states.ACTIVE, timeout=60)

    def test_an_unreachable_bmc_fails_within_the_timeouts(self):
        node = self.available(self.redfish_node())
        self.emulator.stop()
        started = time.monotonic()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYFAIL, timeout=60)
        self.assertLess(time.monotonic() - started, 30)
        self.assertIn('BMC of node', node.last_error)


class MoreStepsTest(RedfishTestCase):

    def clean(self, node, *steps):
        self.rpcapi.do_node_clean(self.context, node.uuid, clean_steps=[
            {'interface': interface, 'step': step, 'args': args}
            for interface, step, args in steps])
        node = self.wait_for_state(node, states.MANAGEABLE, timeout=60)
        self.assertIsNone(node.last_error)
        return node

    def test_raid_from_the_target_then_deleted(self):
        node = self.manageable()
        layout = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '5'}]}
        self.rpcapi.set_target_raid_config(self.context, node.uuid, layout)
        node = self.clean(node, ('raid', 'apply_configuration', {}))
        volumes = self.emulator.volumes(self.system_id())
        self.assertEqual(['RAID5'], [v['RAIDType'] for v in volumes])
        self.assertEqual(3, len(volumes[0]['Links']['Drives']))
        self.assertEqual('5', node.raid_config['logical_disks'][0][
            'raid_level'])
        node = self.clean(node, ('raid', 'delete_configuration', {}))
        self.assertEqual([], self.emulator.volumes(self.system_id()))
        self.assertEqual({}, node.raid_config)

    def test_create_configuration_builds_the_target_as_metal3_asks(self):
        # Metal3 sets the target, then cleans with Ironic's
        # raid.delete_configuration and raid.create_configuration.
        node = self.manageable()
        layout = {'logical_disks': [
            {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True,
             'volume_name': 'root'},
            {'size_gb': 200, 'raid_level': '0', 'volume_name': 'data'}]}
        self.rpcapi.set_target_raid_config(self.context, node.uuid, layout)
        node = self.clean(node, ('raid', 'delete_configuration', {}),
                          ('raid', 'create_configuration', {}))
        self.assertEqual(['RAID1', 'RAID0'], [
            v['RAIDType'] for v in self.emulator.volumes(self.system_id())])
        self.assertEqual(['root', 'data'], [
            d['volume_name'] for d in node.raid_config['logical_disks']])
        # Only the disks not marked root.
        node = self.clean(node, ('raid', 'delete_configuration', {}),
                          ('raid', 'create_configuration',
                           {'create_root_volume': False}))
        self.assertEqual(['RAID0'], [
            v['RAIDType'] for v in self.emulator.volumes(self.system_id())])
        self.assertEqual(['data'], [
            d['volume_name'] for d in node.raid_config['logical_disks']])

    def test_create_configuration_without_a_target_is_refused(self):
        node = self.manageable()
        self.assertRaisesRegex(
            exception.InvalidRequestedSteps,
            'has no target RAID configuration to create',
            self.rpcapi.do_node_clean, self.context, node.uuid,
            clean_steps=[{'interface': 'raid',
                          'step': 'create_configuration', 'args': {}}])
        layout = {'logical_disks': [{'size_gb': 100, 'raid_level': '1',
                                     'is_root_volume': True}]}
        self.rpcapi.set_target_raid_config(self.context, node.uuid, layout)
        self.assertRaisesRegex(
            exception.InvalidRequestedSteps, 'none of the logical disks',
            self.rpcapi.do_node_clean, self.context, node.uuid,
            clean_steps=[{'interface': 'raid',
                          'step': 'create_configuration',
                          'args': {'create_root_volume': False}}])
        self.assertEqual(states.MANAGEABLE, objects.Node.get(
            self.context, node.uuid).provision_state)
        self.assertEqual([], self.emulator.volumes(self.system_id()))

    def test_bios_factory_reset_restores_the_defaults_and_caches_them(self):
        node = self.manageable()
        node = self.clean(node, ('bios', 'apply_configuration',
                                 {'settings': BIOS_SETTINGS}))
        self.assertEqual('Disabled', self.emulator.bios_attributes(
            self.system_id())['ProcTurboMode'])
        node = self.clean(node, ('bios', 'factory_reset', {}))
        self.assertEqual('Enabled', self.emulator.bios_attributes(
            self.system_id())['ProcTurboMode'])
        cached = {s.name: s.value for s in objects.BIOSSetting.list_by_node(
            self.context, node.id)}
        self.assertEqual('Enabled', cached['ProcTurboMode'])

    def test_a_layout_the_drives_cannot_hold_is_refused_naming_it(self):
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid, clean_steps=[
            {'interface': 'raid', 'step': 'apply_configuration',
             'args': {'raid_config': {'logical_disks': [
                 {'size_gb': 10, 'raid_level': '6+0'}]}}}])
        node = self.wait_for_state(node, states.CLEANFAIL, timeout=30)
        self.assertIn('RAID 6+0 needs 8 drives', node.last_error)
        self.assertEqual([], self.emulator.volumes(self.system_id()))


class PowerSyncTest(RedfishTestCase):

    def test_a_server_turned_off_behind_our_back_is_recorded_off(self):
        node = self.available(self.redfish_node())
        self.rpcapi.change_node_power_state(self.context, node.uuid,
                                            states.POWER_ON)
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertEqual(states.POWER_ON, node.power_state)
        # Someone presses the power button.
        self.emulator.client().get_system(
            '/redfish/v1/Systems/' + self.system_id()).reset_system(
            sushy.RESET_FORCE_OFF)
        sync = power_sync.PowerStateSync(self.manager._acquire,
                                         self.manager._owns)
        self.assertEqual(1, sync.run(self.context))
        self.assertEqual(states.POWER_OFF, objects.Node.get(
            self.context, node.uuid).power_state)


class BootModeTest(RedfishTestCase):
    """Boot mode and secure boot (API 1.75, 1.76) read from and set on the
    BMC."""

    def secure_boot_on_the_bmc(self):
        return self.emulator.get('/redfish/v1/Systems/%s/SecureBoot'
                                 % self.system_id())['SecureBootEnable']

    def test_they_are_recorded_when_the_node_is_verified(self):
        node = self.manageable()
        shown = {'UEFI': 'uefi', 'Legacy': 'bios'}[
            self.emulator.boot_source(self.system_id())['mode']]
        self.assertEqual(shown, node.boot_mode)
        self.assertIs(False, node.secure_boot)

    def test_they_are_set_on_the_bmc_and_read_back(self):
        node = self.manageable()
        for mode, shown in (('bios', 'Legacy'), ('uefi', 'UEFI')):
            self.rpcapi.change_node_boot_mode(self.context, node.uuid, mode)
            node = self.wait_for_state(node, states.MANAGEABLE)
            self.assertIsNone(node.last_error)
            self.assertEqual(mode, node.boot_mode)
            self.assertEqual(shown, self.emulator.boot_source(
                self.system_id())['mode'])
        self.rpcapi.change_node_secure_boot(self.context, node.uuid, True)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        self.assertIs(True, node.secure_boot)
        self.assertIs(True, self.secure_boot_on_the_bmc())

    def test_secure_boot_outside_uefi_fails_saying_why(self):
        node = self.manageable()
        self.rpcapi.change_node_boot_mode(self.context, node.uuid, 'bios')
        self.wait_for_state(node, states.MANAGEABLE)
        self.rpcapi.change_node_secure_boot(self.context, node.uuid, True)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIn('uefi', node.last_error)
        self.assertIs(False, node.secure_boot)
        self.assertIs(False, self.secure_boot_on_the_bmc())

    def test_a_change_behind_our_back_is_recorded_by_the_sync(self):
        node = self.manageable()
        self.emulator.client().get_system(
            '/redfish/v1/Systems/' + self.system_id()).secure_boot \
            .set_enabled(True)
        sync = power_sync.PowerStateSync(self.manager._acquire,
                                         self.manager._owns)
        sync.run(self.context)
        self.assertIs(True, objects.Node.get(self.context,
                                             node.uuid).secure_boot)


class HealthTest(RedfishTestCase):
    """The System's health (API 1.109), read by the power state sync."""

    def sync(self):
        power_sync.PowerStateSync(self.manager._acquire,
                                  self.manager._owns).run(self.context)
        return objects.Node.get(self.context, self.node.uuid)

    def setUp(self):
        super().setUp()
        self.node = self.manageable()

    def test_the_sync_records_the_bmcs_health_and_its_changes(self):
        self.assertIsNone(self.node.health)
        self.assertEqual('OK', self.sync().health)
        for health in ('Critical', 'Warning', 'OK'):
            self.emulator.set_health(self.system_id(), health)
            self.assertEqual(health, self.sync().health)

    def test_with_monitoring_off_nothing_is_read(self):
        self.config(enable_health_monitoring=False, group='conductor')
        self.emulator.set_health(self.system_id(), 'Critical')
        self.assertIsNone(self.sync().health)

    def test_pinned_to_0_12_nothing_is_read(self):
        self.config(pin_release_version='0.12')
        self.emulator.set_health(self.system_id(), 'Critical')
        self.assertIsNone(self.sync().health)


class SessionsTest(RedfishTestCase):

    def test_sessions_are_reused_and_bounded(self):
        self.config(connection_cache_size=2, group='redfish')
        sessions = utils._Sessions()
        self.addCleanup(sessions.clear)
        params = [dict(address=self.emulator.address, username='u%d' % i,
                       password='p', verify_ca=True) for i in range(3)]
        first = sessions.get(params[0])
        self.assertIs(first, sessions.get(params[0]))
        sessions.get(params[1])
        sessions.get(params[2])   # the least recently used goes
        self.assertEqual(2, len(sessions._clients))
        self.assertIsNot(first, sessions.get(params[0]))
