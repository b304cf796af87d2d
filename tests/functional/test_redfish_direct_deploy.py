"""The direct deploy of a redfish node: its agent boots from virtual media.

A started conductor deploys (and cleans) redfish nodes whose deploy
interface is ``direct``, over HTTP, against the Redfish emulator
(:mod:`tests.redfish_emulator`) and a fake ironic-python-agent on
127.0.0.1 (:class:`tests.fake_ipa.FakeIPA`).  Each test plays the machine:
once the node booted the deploy ISO, it heartbeats as the agent would.
What the BMC did is read back from the emulator: the virtual CD drive,
power, the boot override, and what each boot booted from.
"""

from ironic_steps.common import states
from tests import fake_ipa
from tests.functional import test_redfish_driver
from tests.unit.conductor import test_agent_heartbeat

DEPLOY_ISO = 'http://127.0.0.1:9/images/ironic-python-agent.iso'


class RedfishDirectTestCase(test_redfish_driver.RedfishTestCase,
                            test_agent_heartbeat.DirectTestCase):
    """The emulator (from RedfishTestCase), a conductor and a fake agent
    with the agent's heartbeats (from DirectTestCase)."""

    def setUp(self):
        super().setUp()
        self.config(automated_clean=False, group='conductor')

    def wait_for_state(self, node, state, timeout=30):
        # A BMC answers slower than fake hardware.
        return super().wait_for_state(node, state, timeout=timeout)

    def direct_node(self, **properties):
        """A redfish node of the direct deploy interface, its deploy ISO
        and image given."""
        node = self.redfish_node(
            deploy_interface='direct', properties=properties,
            instance_info=dict(test_agent_heartbeat.IMAGE))
        node.driver_info = dict(node.driver_info, deploy_iso=DEPLOY_ISO)
        node.save()
        return node

    def deploy_to_agent_wait(self, **properties):
        node = self.available(self.direct_node(**properties))
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False)
        return self.wait_at(node, states.DEPLOYWAIT, 'deploy.deploy')

    def deploy_to_write_image(self, **properties):
        """Deploy; heartbeat as the agent: it is asked to write the image
        (the fake agent is done with it at the next heartbeat)."""
        node = self.deploy_to_agent_wait(**properties)
        self.heartbeat(node)
        return self.wait_at(node, states.DEPLOYWAIT, 'deploy.write_image')

    def bmc(self):
        """What the BMC shows of the node's system."""
        system = self.system_id()
        return {'power': self.emulator.power_state(system),
                'cd': self.emulator.virtual_media(system),
                'boot': self.emulator.boot_source(system),
                'booted_from': self.emulator.boot_sources(system)}


class RedfishDirectDeployTest(RedfishDirectTestCase):

    def test_deploy_boots_the_agent_once_from_the_deploy_iso(self):
        # When a redfish direct node is deployed
        self.deploy_to_agent_wait()
        # Then the BMC's virtual CD holds the deploy ISO, the node booted
        # from it once (the one-time override is used up) and is on
        bmc = self.bmc()
        self.assertEqual((DEPLOY_ISO, True),
                         (bmc['cd']['Image'], bmc['cd']['Inserted']))
        self.assertEqual(['Cd'], bmc['booted_from'])
        self.assertEqual('Disabled', bmc['boot']['enabled'])
        self.assertEqual('On', bmc['power'])
        # and it waits for its agent, asked nothing yet
        self.assertEqual([], self.ipa.requests)

    def test_when_the_agent_is_torn_down_the_node_boots_its_disk_from_now_on(
            self):
        # Given a node (BIOS: no boot loader to install through the agent)
        # whose agent was asked to write the image
        node = self.deploy_to_write_image(capabilities='boot_mode:bios')
        # When the agent says it is written, what the BMC shows as the
        # agent is asked to sync the disks (tear_down_agent, before it
        # powers off) is seen: the agent's answer is held back once
        seen = {}
        self.config(command_timeout=0.5, group='agent')
        self.ipa.on_hang = lambda body: seen.update(self.bmc(), sent=body)
        self.ipa.answer(fake_ipa.HANG)
        self.heartbeat(node)
        node = self.wait_for_state(node, states.ACTIVE)
        # Then by then the deploy ISO was ejected and the node set to boot
        # from its disk from now on, still running the agent
        self.assertEqual('standby.sync', seen['sent']['name'])
        self.assertFalse(seen['cd']['Inserted'])
        self.assertEqual({'target': 'Hdd', 'enabled': 'Continuous'},
                         {key: seen['boot'][key]
                          for key in ('target', 'enabled')})
        self.assertEqual(('On', ['Cd']),
                         (seen['power'], seen['booted_from']))
        # and then it was powered off and booted again, from its disk
        self.assertEqual(['Cd', 'Hdd'], self.bmc()['booted_from'])
        self.assertIsNone(node.last_error)

    def test_the_node_becomes_active_running_its_instance_from_disk(self):
        node = self.deploy_to_write_image()
        # When the agent says the image is written
        self.heartbeat(node)
        # Then the node is active: the agent installed the boot loader
        # and synced the disks, the node was powered off, and it is on,
        # booted from its disk, the virtual CD empty
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)
        self.assertEqual(
            ['deploy.get_deploy_steps', 'deploy.execute_deploy_step',
             'standby.get_partition_uuids', 'image.install_bootloader',
             'standby.sync'], self.ipa.sent())
        bmc = self.bmc()
        self.assertEqual(('On', ['Cd', 'Hdd']),
                         (bmc['power'], bmc['booted_from']))
        self.assertEqual(('Hdd', 'Continuous'),
                         (bmc['boot']['target'], bmc['boot']['enabled']))
        self.assertFalse(bmc['cd']['Inserted'])
        self.assertEqual(states.POWER_ON, node.power_state)

    def test_a_node_without_a_deploy_iso_is_refused_naming_it(self):
        # Given an available direct node whose deploy ISO is not given
        node = self.direct_node()
        node.driver_info = {key: value for key, value
                            in node.driver_info.items()
                            if key != 'deploy_iso'}
        node.save()
        node = self.available(node)
        self.emulator.reset_request_counts()
        # When it is deployed
        exc = self.assertRaises(Exception, self.rpcapi.do_node_deploy,
                                self.context, node.uuid, rebuild=False)
        # Then the deploy is refused, naming what is missing, and nothing
        # was asked of the BMC
        self.assertEqual(400, exc.code)
        self.assertIn('driver_info/redfish_deploy_iso', str(exc))
        self.assertNodeUnchanged(node)
        self.assertEqual(0, self.emulator.request_counts()['total'])


class RedfishDirectCleaningTest(RedfishDirectTestCase):

    def setUp(self):
        super().setUp()
        self.config(automated_clean=True, group='conductor')
        self.config(erase_devices_priority=0, group='deploy')

    def test_cleaning_boots_the_agent_from_the_deploy_iso_then_ejects_it(
            self):
        # When a redfish direct node is provided
        node = self.provide()
        # Then it boots its agent from the deploy ISO, once
        bmc = self.bmc()
        self.assertEqual((DEPLOY_ISO, True, ['Cd'], 'On'), (
            bmc['cd']['Image'], bmc['cd']['Inserted'], bmc['booted_from'],
            bmc['power']))
        # and once the agent erased the disks' metadata
        self.heartbeat(node)
        self.wait_at(node, states.CLEANWAIT, 'deploy.erase_devices_metadata')
        self.heartbeat(node)
        node = self.wait_for_state(node, states.AVAILABLE)
        # the node is off, the deploy ISO ejected
        self.assertIsNone(node.last_error)
        self.assertEqual(['deploy.erase_devices_metadata'],
                         self.ipa.steps_run('clean'))
        bmc = self.bmc()
        self.assertEqual(('Off', False),
                         (bmc['power'], bmc['cd']['Inserted']))
