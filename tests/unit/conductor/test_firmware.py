"""Firmware through the conductor: the ``firmware.update`` clean step of
fake-hardware's ``fake`` firmware interface, at once and polled, and the
component cache it and verification fill (release 0.12).

Through a started conductor, its poller and fake hardware on SQLite.
"""

import datetime
import time

import ddt
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conf import CONF
from ironic_steps.drivers import base as drivers_base
from ironic_steps.drivers import driver_factory
from ironic_steps.drivers.modules import fake_firmware
from ironic_steps import objects
from tests import base
from tests import clock


def update(*settings):
    return {'interface': 'firmware', 'step': 'update',
            'args': {'settings': list(settings)}}


BIOS_2_1 = {'component': 'bios', 'url': 'http://127.0.0.1:9/bios-2.1.0.bin'}
BMC_5_10 = {'component': 'bmc', 'url': 'https://127.0.0.1:9/bmc-5.10.bin'}


class _FirmwareTestCase(base.ConductorTestCase):

    def manageable(self, **fields):
        node = self.create_node(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def components(self, node):
        return {component.component: component for component in
                objects.FirmwareComponent.list_by_node(self.context,
                                                       node.id)}

    def versions(self, node):
        """{component: (initial, current, last flashed)}."""
        return {name: (c.initial_version, c.current_version,
                       c.last_version_flashed)
                for name, c in self.components(node).items()}


class FakeFirmwareTest(_FirmwareTestCase):

    def test_a_new_fake_node_gets_the_fake_firmware_interface(self):
        self.assertEqual('fake', self.create_node().firmware_interface)

    def test_managing_a_node_reads_its_versions_into_the_cache(self):
        node = self.manageable()
        self.assertEqual({'bios': ('1.0.0', '1.0.0', None),
                          'bmc': ('1.0.0', '1.0.0', None)},
                         self.versions(node))

    def test_inspecting_a_node_reads_its_versions_again(self):
        node = self.manageable()
        objects.FirmwareComponent.dbapi.sync_firmware_components(
            node.id, {'bios': {'current_version': '0.9'}})
        self.rpcapi.inspect_hardware(self.context, node.uuid)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNotNone(node.inspection_finished_at)
        # The fake BMC runs 1.0.0: the reading after 0.9 is a new version.
        self.assertEqual(('1.0.0', '1.0.0', '1.0.0'),
                         self.versions(node)['bios'])

    def test_a_node_with_no_firmware_is_managed_without_reading_any(self):
        node = self.manageable(firmware_interface='no-firmware')
        self.assertIsNone(node.last_error)
        self.assertEqual({}, self.versions(node))

    def test_an_update_flashes_each_component_and_records_the_versions(
            self):
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid,
                                  [update(BIOS_2_1, BMC_5_10)])
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual({'bios': ('1.0.0', '2.1.0', '2.1.0'),
                          'bmc': ('1.0.0', '5.10', '5.10')},
                         self.versions(node))
        bios = self.components(node)['bios']
        self.assertIsNotNone(bios.updated_at)
        self.assertLessEqual(bios.created_at, bios.updated_at)

    def test_an_image_without_a_version_raises_the_minor_number(self):
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid, [update(
            {'component': 'bios', 'url': 'http://127.0.0.1:9/latest.bin'})])
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual(('1.0.0', '1.1.0', '1.1.0'),
                         self.versions(node)['bios'])

    def test_a_failing_update_fails_the_cleaning_and_flashes_nothing(self):
        node = self.manageable(
            driver_info={'fake_fail_step': 'firmware.update'})
        self.rpcapi.do_node_clean(self.context, node.uuid,
                                  [update(BIOS_2_1)])
        node = self.wait_for_state(node, states.CLEANFAIL)
        self.assertIn('firmware.update', node.last_error)
        self.assertEqual(('1.0.0', '1.0.0', None),
                         self.versions(node)['bios'])

    def test_it_is_a_clean_step_of_priority_0_only(self):
        interface = driver_factory.interface_for('firmware', 'fake-hardware',
                                                 'fake')
        self.assertEqual([('update', 0)],
                         [(step['step'], step['priority'])
                          for step in interface.get_clean_steps(None)])
        self.assertEqual([], interface.get_deploy_steps(None))

    def test_deleting_a_node_deletes_its_components(self):
        node = self.manageable()
        self.assertEqual(2, len(self.components(node)))
        self.rpcapi.destroy_node(self.context, node.uuid)
        self.assertEqual({}, self.components(node))


@ddt.ddt
class RefusedSettingsTest(_FirmwareTestCase):
    """A settings list that could only fail is refused when the cleaning
    is asked for, naming what is wrong; the node does not move."""

    @ddt.data(
        ([], 'non-empty list'),
        ([{'component': 'nic', 'url': 'http://x/a.bin'}],
         'settings[0] component must be one of bios, bmc'),
        ([BIOS_2_1, {'component': 'bmc'}], 'settings[1] url'),
        ([{'component': 'bios', 'url': 'ftp://x/a.bin'}], 'http(s) URL'),
        ([{'component': 'bios', 'url': 'http://x/a.bin', 'wait': 0}],
         'wait must be a positive number'),
        ([{'component': 'bios', 'url': 'http://x/a.bin', 'force': True}],
         'unknown key(s) force'),
        (['bios'], 'settings[0] must be a {"component", "url"} object'))
    @ddt.unpack
    def test_a_bad_list_is_refused_before_anything_changes(
            self, settings, fragment):
        node = self.manageable()
        error = self.assertRaises(
            exception.InvalidRequestedSteps, self.rpcapi.do_node_clean,
            self.context, node.uuid, [update(*settings)])
        self.assertIn(fragment, str(error))
        self.assertIn('firmware.update', str(error))
        self.assertNodeUnchanged(node)


class PolledFakeFirmwareTest(_FirmwareTestCase):
    """With ``[fake] firmware_delay`` the update waits, polled, as a BMC's
    task: in ``clean wait``, unlocked, past the agent call-back timeout."""

    def setUp(self):
        super().setUp()
        self.config(firmware_delay=0.5, group='fake')
        self.poller = self.manager._poller
        self.clock = self.poller.clock = clock.ManualClock()

    def look(self):
        """A look of the poller (the first sees the poll), and another an
        interval later, then wait for the checks it started."""
        for after in (0, CONF.conductor.step_poll_interval):
            self.clock.advance(after)
            self.poller.run(self.context)
            deadline = time.monotonic() + 10
            while self.poller.running():
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.01)

    def test_the_update_waits_unlocked_until_the_fake_bmc_is_done(self):
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid,
                                  [update(BIOS_2_1)])
        node = self.wait_for_state(node, states.CLEANWAIT)
        self.assertIsNone(node.reservation)
        self.assertEqual('check_update', node.driver_internal_info[
            drivers_base.POLLING_KEY]['method'])
        self.assertEqual('1.0.0', self.versions(node)['bios'][1])
        time.sleep(0.6)
        self.look()
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual(('1.0.0', '2.1.0', '2.1.0'),
                         self.versions(node)['bios'])

    def test_an_update_longer_than_the_clean_callback_timeout_survives(
            self):
        # Ironic's bug 2136276: the agent call-back timeout killed BMC
        # firmware updates that took longer.
        self.config(clean_callback_timeout=1, group='conductor')
        self.config(firmware_delay=3, group='fake')
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid,
                                  [update(BIOS_2_1)])
        node = self.wait_for_state(node, states.CLEANWAIT)
        node.provision_updated_at = timeutils.utcnow() - datetime.timedelta(
            seconds=30)
        node.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        node = self.wait_for_state(node, states.CLEANWAIT)
        self.assertIsNone(node.last_error)
        time.sleep(3)
        self.look()
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual('2.1.0', self.versions(node)['bios'][1])

    def test_an_update_past_the_poll_timeout_fails_naming_it(self):
        self.config(step_poll_timeout=1, group='conductor')
        self.config(firmware_delay=60, group='fake')
        node = self.manageable()
        self.rpcapi.do_node_clean(self.context, node.uuid,
                                  [update(BIOS_2_1)])
        node = self.wait_for_state(node, states.CLEANWAIT)
        time.sleep(1.2)
        self.look()
        node = self.wait_for_state(node, states.CLEANFAIL)
        self.assertIn('firmware.update', node.last_error)
        self.assertIn('timed out after 1 seconds', node.last_error)
        self.assertEqual('1.0.0', self.versions(node)['bios'][1])


class VersionOfImageTest(base.TestCase):

    def test_the_version_comes_from_the_file_name_or_a_raised_minor(self):
        for url, old, new in (
                ('http://x/bios-2.1.0.bin', '1.0.0', '2.1.0'),
                ('http://x/fw/BMC_v5.10.2-signed.img?x=1', '1.0', '5.10.2'),
                ('http://x/latest.bin', '1.0.0', '1.1.0'),
                ('http://x/latest.bin', '7', '7.1')):
            self.assertEqual(new, fake_firmware.version_of_image(url, old),
                             url)
