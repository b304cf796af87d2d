"""The Redfish emulator is a faithful BMC for the redfish hardware type.

Every test drives the real emulator process (``tests.redfish_emulator``)
over HTTP through sushy itself, the client the hardware type uses, and
checks what a real BMC would show: power, boot override, BIOS settings
pending until a reboot, volumes made by tasks, firmware updates, virtual
media, authentication, and the failures a conductor must survive.
"""

import time

import ddt
import sushy
from sushy import exceptions
from sushy.resources import settings
from sushy import taskmonitor
import testtools

from tests.redfish_emulator import errors
from tests.redfish_emulator import RedfishEmulator
from tests.redfish_emulator import storage

SYSTEMS = '/redfish/v1/Systems/'


class EmulatorTestCase(testtools.TestCase):

    emulator_options = {}

    def setUp(self):
        super().setUp()
        self.emulator = self.useFixture(RedfishEmulator(
            **self.emulator_options))
        self.client = self.emulator.client()
        self.node = self.emulator.system_ids[0]

    def system(self, system_id=None):
        """A fresh sushy view of a system (sushy caches sub-resources)."""
        return self.client.get_system(SYSTEMS + (system_id or self.node))

    def power(self, reset_type, system_id=None):
        self.system(system_id).reset_system(reset_type)

    def raid_controller(self):
        return self.system().storage.get_members()[0]


class PowerAndBootTest(EmulatorTestCase):

    def test_power_on_off_and_reboot_are_seen_at_once(self):
        self.assertEqual(sushy.PowerState.OFF, self.system().power_state)
        self.power(sushy.ResetType.ON)
        self.assertEqual(sushy.PowerState.ON, self.system().power_state)
        self.power(sushy.ResetType.FORCE_RESTART)
        self.assertEqual(sushy.PowerState.ON, self.system().power_state)
        self.power(sushy.ResetType.GRACEFUL_SHUTDOWN)
        self.assertEqual(sushy.PowerState.OFF, self.system().power_state)
        self.assertEqual('Off', self.emulator.power_state(self.node))

    def test_each_system_has_its_own_power(self):
        other = self.emulator.system_ids[1]
        self.power(sushy.ResetType.ON)
        self.assertEqual(sushy.PowerState.ON, self.system().power_state)
        self.assertEqual(sushy.PowerState.OFF,
                         self.system(other).power_state)

    def test_systems_are_listed_by_their_stable_ids_and_named(self):
        members = self.client.get_system_collection().members_identities
        self.assertEqual(sorted(SYSTEMS + i for i in self.emulator.system_ids),
                         sorted(members))
        self.assertEqual(['node-1', 'node-2'],
                         [self.system(i).name
                          for i in self.emulator.system_ids])

    def test_a_one_time_boot_override_is_consumed_by_the_next_boot(self):
        self.system().set_system_boot_options(
            sushy.BootSource.PXE,
            enabled=sushy.BootSourceOverrideEnabled.ONCE)
        boot = self.system().boot
        self.assertEqual(sushy.BootSource.PXE, boot.target)
        self.assertEqual(sushy.BootSourceOverrideEnabled.ONCE, boot.enabled)
        self.power(sushy.ResetType.ON)
        self.assertEqual({'target': 'None', 'enabled': 'Disabled',
                          'mode': 'UEFI'},
                         self.emulator.boot_source(self.node))

    def test_a_continuous_boot_override_survives_reboots(self):
        self.system().set_system_boot_options(
            sushy.BootSource.CD,
            enabled=sushy.BootSourceOverrideEnabled.CONTINUOUS,
            mode=sushy.BootSourceOverrideMode.LEGACY)
        self.power(sushy.ResetType.ON)
        self.power(sushy.ResetType.FORCE_RESTART)
        self.assertEqual({'target': 'Cd', 'enabled': 'Continuous',
                          'mode': 'Legacy'},
                         self.emulator.boot_source(self.node))
        self.assertEqual('Bios',
                         self.emulator.bios_attributes(self.node)['BootMode'])

    def test_a_bad_boot_target_is_refused_and_nothing_changes(self):
        status, body = self.emulator.request(
            'PATCH', SYSTEMS + self.node,
            {'Boot': {'BootSourceOverrideTarget': 'Floppy',
                      'BootSourceOverrideMode': 'Legacy'}})
        self.assertEqual(400, status)
        self.assertIn("'Floppy'", body['error']['message'])
        self.assertEqual('UEFI', self.emulator.boot_source(self.node)['mode'])


class PowerDelayTest(EmulatorTestCase):

    emulator_options = {'power_delay': 1}

    def test_a_power_change_shows_after_the_configured_delay(self):
        self.power(sushy.ResetType.ON)
        self.assertEqual(sushy.PowerState.OFF, self.system().power_state)
        time.sleep(1.1)
        self.assertEqual(sushy.PowerState.ON, self.system().power_state)


class BiosTest(EmulatorTestCase):

    def test_settings_stay_pending_until_the_next_boot(self):
        bios = self.system().bios
        self.assertEqual([sushy.ApplyTime.ON_RESET,
                          sushy.ApplyTime.IMMEDIATE],
                         bios.supported_apply_times)
        bios.set_attributes({'ProcTurboMode': 'Disabled',
                             'SriovEnable': 'Enabled'},
                            apply_time=sushy.ApplyTime.ON_RESET)
        bios = self.system().bios
        self.assertEqual({'ProcTurboMode': 'Disabled',
                          'SriovEnable': 'Enabled'}, bios.pending_attributes)
        self.assertEqual('Enabled', bios.attributes['ProcTurboMode'])

        self.power(sushy.ResetType.ON)

        bios = self.system().bios
        self.assertEqual('Disabled', bios.attributes['ProcTurboMode'])
        self.assertEqual('Enabled', bios.attributes['SriovEnable'])
        self.assertEqual({}, bios.pending_attributes)
        self.assertEqual(settings.UPDATE_SUCCESS, bios.update_status.status)

    def test_a_reboot_of_a_running_system_applies_them_too(self):
        self.power(sushy.ResetType.ON)
        self.system().bios.set_attributes({'LogicalProc': 'Disabled'})
        self.assertEqual('Enabled',
                         self.emulator.bios_attributes(self.node)[
                             'LogicalProc'])
        self.power(sushy.ResetType.FORCE_RESTART)
        self.assertEqual('Disabled',
                         self.emulator.bios_attributes(self.node)[
                             'LogicalProc'])

    def test_immediate_settings_apply_without_a_boot(self):
        self.system().bios.set_attributes(
            {'QuietBoot': False}, apply_time=sushy.ApplyTime.IMMEDIATE)
        self.assertFalse(self.emulator.bios_attributes(self.node)[
            'QuietBoot'])

    def test_reset_bios_restores_the_defaults_on_the_next_boot(self):
        self.system().bios.set_attributes({'ProcTurboMode': 'Disabled'},
                                          apply_time=sushy.ApplyTime.IMMEDIATE)
        self.system().bios.reset_bios()
        self.assertEqual('Disabled', self.emulator.bios_attributes(
            self.node)['ProcTurboMode'])
        self.assertEqual('Enabled', self.emulator.bios_pending(
            self.node)['ProcTurboMode'])
        self.power(sushy.ResetType.ON)
        self.assertEqual('Enabled', self.emulator.bios_attributes(
            self.node)['ProcTurboMode'])
        self.assertEqual({}, self.emulator.bios_pending(self.node))

    def test_unknown_attributes_are_refused_naming_them(self):
        bios = self.system().bios
        error = self.assertRaises(exceptions.BadRequestError,
                                  bios.set_attributes,
                                  {'NoSuchThing': 1, 'Bogus': 'x',
                                   'ProcTurboMode': 'Disabled'})
        self.assertIn('Bogus, NoSuchThing', error.detail)
        self.assertEqual(['#/Attributes/Bogus', '#/Attributes/NoSuchThing'],
                         error.related_properties)
        self.assertEqual({}, self.emulator.bios_pending(self.node))

    def test_bad_values_are_refused_naming_the_allowed_ones(self):
        error = self.assertRaises(exceptions.BadRequestError,
                                  self.system().bios.set_attributes,
                                  {'ProcTurboMode': 'Sometimes',
                                   'NumCores': 4})
        self.assertIn("ProcTurboMode='Sometimes' is not one of Enabled, "
                      "Disabled", error.detail)
        self.assertIn('NumCores is read-only', error.detail)

    def test_the_attribute_registry_describes_the_attributes(self):
        # (the stock path, /BIOS, is the same resource)
        status, stock = self.emulator.request(
            'GET', SYSTEMS + self.node + '/BIOS')
        self.assertEqual((200, self.emulator.bios_attributes(self.node)),
                         (status, stock['Attributes']))
        registry = self.system().bios.get_attribute_registry()
        entries = {a.name: a for a in registry.registry_entries.attributes}
        self.assertEqual(sorted(self.emulator.bios_attributes(self.node)),
                         sorted(entries))
        self.assertTrue(entries['NumCores'].read_only)


class VolumeTest(EmulatorTestCase):

    emulator_options = {'volume_seconds': 0.5}

    def drives(self, *numbers):
        controller = self.raid_controller()
        return [{'@odata.id': '%s/Drives/Disk-%d' % (controller.path, n)}
                for n in numbers]

    def test_a_volume_is_made_by_a_task_and_deleted(self):
        controller = self.raid_controller()
        self.assertEqual([480 * 10 ** 9] * 2 + [960 * 10 ** 9] * 2,
                         controller.drives_sizes_bytes)
        self.assertIn(sushy.RAIDType.RAID10,
                      controller.storage_controllers[0].raid_types)
        monitor = controller.volumes.create(
            {'Name': 'root', 'RAIDType': 'RAID1',
             'Links': {'Drives': self.drives(0, 1)}})
        self.assertIsInstance(monitor, taskmonitor.TaskMonitor)
        self.assertTrue(monitor.is_processing)
        self.assertEqual([], self.emulator.volumes(self.node))
        monitor.wait(10)
        task = monitor.get_task()
        self.assertEqual(sushy.TaskState.COMPLETED, task.task_state)
        self.assertEqual(sushy.Health.OK, task.task_status)

        volume, = self.raid_controller().volumes.get_members()
        self.assertEqual(('root', sushy.RAIDType.RAID1, 480 * 10 ** 9),
                         (volume.name, volume.raid_type,
                          volume.capacity_bytes))
        self.assertIsNone(volume.delete())
        self.assertEqual([], self.emulator.volumes(self.node))

    def test_a_delete_with_an_apply_time_runs_as_a_task(self):
        self.raid_controller().volumes.create(
            {'RAIDType': 'RAID0', 'Links': {'Drives': self.drives(3)}},
            apply_time=sushy.ApplyTime.IMMEDIATE)  # sushy waits for it
        volume, = self.raid_controller().volumes.get_members()
        monitor = volume.delete(apply_time=sushy.ApplyTime.ON_RESET)
        time.sleep(0.6)
        self.assertTrue(monitor.check_is_processing)
        self.assertEqual('Pending', monitor.task.task_state.value)
        self.power(sushy.ResetType.ON)
        monitor.wait(10)
        self.assertEqual([], self.emulator.volumes(self.node))

    def test_an_on_reset_volume_is_built_after_the_next_boot(self):
        monitor = self.raid_controller().volumes.create(
            {'RAIDType': 'RAID5', 'Links': {'Drives': self.drives(0, 1, 2)}},
            apply_time=sushy.ApplyTime.ON_RESET)
        time.sleep(0.6)
        self.assertTrue(monitor.check_is_processing)
        self.assertEqual([], self.emulator.volumes(self.node))
        self.power(sushy.ResetType.ON)
        monitor.wait(10)
        volume, = self.emulator.volumes(self.node)
        self.assertEqual(('RAID5', 2 * 480 * 10 ** 9),
                         (volume['RAIDType'], volume['CapacityBytes']))

    def test_impossible_volumes_are_refused_saying_why(self):
        volumes = self.raid_controller().volumes
        for payload, reason in (
                ({'RAIDType': 'RAID5', 'Links': {
                    'Drives': self.drives(0, 1)}},
                 'RAID5 needs at least 3 drives; the request names 2'),
                ({'RAIDType': 'RAID1', 'CapacityBytes': 10 ** 12,
                  'Links': {'Drives': self.drives(2, 3)}},
                 'is more than RAID1 over Disk-2, Disk-3 can hold'),
                ({'RAIDType': 'RAID7', 'Links': {'Drives': self.drives(0)}},
                 "'RAID7' for the property RAIDType"),
                ({'RAIDType': 'RAID0'}, 'Links/Drives')):
            error = self.assertRaises(exceptions.BadRequestError,
                                      volumes.create, payload)
            self.assertIn(reason, error.detail)
        self.assertEqual([], self.emulator.volumes(self.node))

    def test_a_drive_belongs_to_one_volume_at_a_time(self):
        volumes = self.raid_controller().volumes
        volumes.create({'RAIDType': 'RAID1',
                        'Links': {'Drives': self.drives(0, 1)}})
        error = self.assertRaises(exceptions.BadRequestError,
                                  volumes.create,
                                  {'RAIDType': 'RAID0',
                                   'Links': {'Drives': self.drives(1)}})
        self.assertIn('Drive Disk-1 already belongs to', error.detail)


@ddt.ddt
class RaidRulesTest(testtools.TestCase):
    """The controller's arithmetic, without a process: 2 x 480 GB SSD and
    2 x 960 GB HDD, as every emulated system has."""

    DRIVES = {d['Id']: d for d in storage.drive_records()}

    def plan(self, raid, *numbers, **extra):
        links = [{'@odata.id': '.../Drives/Disk-%d' % n} for n in numbers]
        return storage.plan_volume(
            dict(extra, RAIDType=raid, Links={'Drives': links}),
            self.DRIVES, busy={})

    @ddt.unpack
    @ddt.data(('RAID0', (0, 2), 2 * 480), ('RAID0', (3,), 960),
              ('RAID1', (2, 3), 960), ('RAID1', (0, 3), 480),
              ('RAID5', (0, 1, 2), 2 * 480), ('RAID6', (0, 1, 2, 3), 2 * 480),
              ('RAID10', (0, 1, 2, 3), 2 * 480))
    def test_the_largest_volume_is_what_the_smallest_drive_allows(
            self, raid, drives, gigabytes):
        self.assertEqual(gigabytes * 10 ** 9,
                         self.plan(raid, *drives)['CapacityBytes'])

    @ddt.unpack
    @ddt.data(('RAID1', (0, 1, 2), 'exactly 2 drives'),
              ('RAID6', (0, 1, 2), 'at least 4 drives'),
              ('RAID10', (0, 1, 2), 'an even number, at least 4'),
              ('RAID0', (0, 0), 'Disk-0 is named twice'),
              ('RAID0', (7,), "Disk-7'}, which is not a drive of this"))
    def test_impossible_drive_sets_are_refused(self, raid, drives, reason):
        error = self.assertRaises(errors.RedfishError, self.plan, raid,
                                  *drives)
        self.assertEqual(400, error.code)
        self.assertIn(reason, error.message)

    def test_volume_type_stands_in_for_raid_type(self):
        volume = storage.plan_volume(
            {'VolumeType': 'Mirrored', 'Links': {'Drives': [
                {'@odata.id': 'Disk-0'}, {'@odata.id': 'Disk-1'}]}},
            self.DRIVES, busy={})
        self.assertEqual(('RAID1', 'Mirrored'),
                         (volume['RAIDType'], volume['VolumeType']))


class FirmwareUpdateTest(EmulatorTestCase):

    def update_service(self):
        return self.client.get_update_service()

    def test_an_update_task_completes_and_the_bios_version_changes(self):
        monitor = self.update_service().simple_update(
            'http://127.0.0.1/firmware/bios-2.4.1.bin',
            targets=[SYSTEMS + self.node])
        self.assertTrue(monitor.is_processing)
        self.assertEqual('1.0.0', self.system().bios_version)
        # A conductor polls the task later by its URI.
        monitor = self.client.get_task_monitor(monitor.task_monitor_uri)
        monitor.wait(10)
        task = monitor.get_task()
        self.assertEqual(sushy.TaskState.COMPLETED, task.task_state)
        self.assertEqual(100, task.percent_complete)
        self.assertEqual('2.4.1', self.system().bios_version)
        self.assertEqual('1.0.0',
                         self.emulator.bios_version(
                             self.emulator.system_ids[1]))

    def test_without_targets_every_system_is_updated(self):
        self.update_service().simple_update(
            'http://127.0.0.1/firmware/latest.bin').wait(10)
        self.assertEqual(['1.1.0', '1.1.0'],
                         [self.emulator.bios_version(i)
                          for i in self.emulator.system_ids])

    def test_a_failing_image_ends_the_task_in_exception(self):
        monitor = self.update_service().simple_update(
            'http://127.0.0.1/firmware/fail.bin')
        monitor.wait(10)
        task = monitor.get_task()
        self.assertEqual(sushy.TaskState.EXCEPTION, task.task_state)
        self.assertEqual(sushy.Health.CRITICAL, task.task_status)
        self.assertIn('fail.bin failed verification',
                      task.messages[0].message)
        self.assertEqual('1.0.0', self.system().bios_version)

    def test_a_bmc_image_changes_the_managers_version_not_the_bios(self):
        manager = self.system().managers[0]
        self.assertEqual('1.00', manager.firmware_version)
        self.update_service().simple_update(
            'http://127.0.0.1/firmware/bmc-5.10.2.bin',
            targets=[SYSTEMS + self.node]).wait(10)
        # sushy's Manager is fetched afresh: the new version shows.
        self.assertEqual('5.10.2', self.system().managers[0].firmware_version)
        self.assertEqual('1.0.0', self.system().bios_version)
        self.assertEqual('1.00', self.emulator.bmc_version(
            self.emulator.system_ids[1]))

    def test_the_firmware_inventory_shows_the_versions_an_update_changes(
            self):
        def versions():
            inventory = self.update_service().firmware_inventory
            return {item.identity: item.version
                    for item in inventory.get_members()}

        bios, bmc = 'BIOS-' + self.node, 'BMC-' + self.node
        self.assertEqual(('1.0.0', '1.00'), (versions()[bios],
                                             versions()[bmc]))
        self.assertEqual(2 * len(self.emulator.system_ids), len(versions()))
        self.update_service().simple_update(
            'http://127.0.0.1/firmware/bmc-6.1.bin',
            targets=[SYSTEMS + self.node]).wait(10)
        self.assertEqual(('1.0.0', '6.1'), (versions()[bios],
                                            versions()[bmc]))
        status, body = self.emulator.request(
            'GET', '/redfish/v1/UpdateService/FirmwareInventory/NIC-1')
        self.assertEqual(404, status)
        self.assertIn('BIOS-{system}', body['error']['message'])

    def test_an_update_without_an_image_is_refused(self):
        status, body = self.emulator.request(
            'POST', '/redfish/v1/UpdateService/Actions/'
            'UpdateService.SimpleUpdate', {'Targets': []})
        self.assertEqual(400, status)
        self.assertIn('ImageURI', body['error']['message'])


class VirtualMediaTest(EmulatorTestCase):

    def test_an_image_is_inserted_read_back_and_ejected(self):
        cd = self.system().virtual_media.get_member(
            SYSTEMS + self.node + '/VirtualMedia/Cd')
        cd.insert_media('http://127.0.0.1:9999/deploy.iso')
        media = self.emulator.virtual_media(self.node)
        self.assertEqual(('http://127.0.0.1:9999/deploy.iso', True),
                         (media['Image'], media['Inserted']))
        cd.eject_media()
        media = self.emulator.virtual_media(self.node)
        self.assertEqual(('', False), (media['Image'], media['Inserted']))

    def test_an_image_that_is_no_url_is_refused(self):
        cd = self.system().virtual_media.get_member(
            SYSTEMS + self.node + '/VirtualMedia/Cd')
        error = self.assertRaises(exceptions.BadRequestError,
                                  cd.insert_media, '/tmp/deploy.iso')
        self.assertIn("not '/tmp/deploy.iso'", error.detail)


class AuthenticationTest(EmulatorTestCase):

    emulator_options = {'username': 'admin', 'password': 's3cret'}

    def test_the_right_credentials_are_let_in(self):
        self.assertEqual(sushy.PowerState.OFF, self.system().power_state)

    def test_a_wrong_password_is_an_access_error(self):
        client = self.emulator.client(password='wrong')
        error = self.assertRaises(exceptions.AccessError,
                                  client.get_system, SYSTEMS + self.node)
        self.assertEqual(401, error.status_code)


class FailureTest(EmulatorTestCase):

    def test_a_stopped_emulator_is_a_connection_error_within_seconds(self):
        system = self.system()
        self.emulator.stop()
        started = time.monotonic()
        self.assertRaises(exceptions.ConnectionError, system.refresh)
        self.assertLess(time.monotonic() - started, 5)

    def test_a_restart_keeps_bios_volumes_and_firmware(self):
        self.system().bios.set_attributes({'SriovEnable': 'Enabled'})
        controller = self.raid_controller()
        controller.volumes.create(
            {'RAIDType': 'RAID0', 'Links': {'Drives': [
                {'@odata.id': controller.path + '/Drives/Disk-2'}]}},
            apply_time=sushy.ApplyTime.IMMEDIATE)
        self.emulator.restart()
        self.assertEqual({'SriovEnable': 'Enabled'},
                         self.emulator.bios_pending(self.node))
        self.assertEqual(['RAID0'], [v['RAIDType'] for v in
                                     self.emulator.volumes(self.node)])
        self.power(sushy.ResetType.ON)
        self.assertEqual('Enabled', self.emulator.bios_attributes(
            self.node)['SriovEnable'])

    def test_an_injected_failure_hits_one_system_only(self):
        other = self.emulator.system_ids[1]
        self.emulator.fail_requests('node-1', message='BMC busy')
        error = self.assertRaises(exceptions.ServerSideError, self.system)
        self.assertEqual(500, error.status_code)
        self.assertIn('BMC busy', error.detail)
        self.assertEqual(sushy.PowerState.OFF, self.system(other).power_state)
        self.emulator.clear_faults()
        self.assertEqual(sushy.PowerState.OFF, self.system().power_state)

    def test_an_injected_hang_times_the_client_out(self):
        client = self.emulator.client(read_timeout=0.3)
        self.emulator.hang_requests(self.node, 1)
        started = time.monotonic()
        self.assertRaises(exceptions.ConnectionError, client.get_system,
                          SYSTEMS + self.node)
        self.assertLess(time.monotonic() - started, 5)
        self.emulator.clear_faults(self.node)
        self.assertEqual(sushy.PowerState.OFF, self.system().power_state)


class RequestCountTest(EmulatorTestCase):

    def test_requests_are_counted_by_method_and_route_until_reset(self):
        self.emulator.reset_request_counts()
        self.power(sushy.ResetType.ON)
        self.emulator.fail_requests(self.node)
        self.assertRaises(exceptions.ServerSideError, self.system)
        counts = self.emulator.request_counts()
        self.assertEqual(1, counts['by_method']['POST'])
        self.assertEqual(1, counts['by_route'][
            'POST /redfish/v1/Systems/{id}/Actions/ComputerSystem.Reset'])
        # A failed request reached the BMC too.
        self.assertEqual(sum(counts['by_method'].values()), counts['total'])
        self.assertGreaterEqual(
            counts['by_route']['GET /redfish/v1/Systems/{id}'], 2)
        self.emulator.reset_request_counts()
        self.assertEqual({'total': 0, 'by_method': {}, 'by_route': {}},
                         self.emulator.request_counts())
