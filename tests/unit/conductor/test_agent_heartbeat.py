"""The direct deploy interface and its agent's heartbeats, end to end in
one process: the real conductor, runner and SQLite database, fake
hardware, and a fake ironic-python-agent on 127.0.0.1
(:class:`tests.fake_ipa.FakeIPA`) that the conductor's agent client talks
to over HTTP.

Each test plays the machine: when the node boots the agent's ramdisk,
the test heartbeats as the agent would (a lookup for its token, then a
heartbeat with the fake agent's URL), and scripts what the agent says
about the commands it is given.
"""

import base64
import gzip

from ironic_steps.common import states
from ironic_steps.conductor import agent_token
from ironic_steps import objects
from tests import base
from tests import fake_ipa

MAC = '52:54:00:12:34:56'
AGENT_VERSION = '13.0.0'
IMAGE = {'image_source': 'http://127.0.0.1:9/images/disk.qcow2',
         'image_os_hash_algo': 'sha256', 'image_os_hash_value': 'ab' * 32,
         'image_disk_format': 'qcow2'}
#: A step of a custom hardware manager that runs by default: in-band steps
#: of IPA's generic manager are all off unless requested.
FIRMWARE = {'interface': 'deploy', 'step': 'upgrade_firmware',
            'priority': 90, 'reboot_requested': False, 'argsinfo': None}
CUSTOM = 'CustomFirmwareManager'
FILES = [{'path': '/etc/motd', 'content': 'aGVsbG8='}]
WIPEFS = 'wipefs: /dev/sda is busy'
#: The deploy plan of a direct fake-hardware node before its agent
#: reports: the direct interface's steps and fake hardware's own.
DIRECT_PLAN = ['deploy.deploy', 'deploy.write_image',
               'deploy.prepare_instance_boot',
               'management.set_instance_boot_device',
               'boot.prepare_instance_boot', 'deploy.tear_down_agent',
               'deploy.boot_instance', 'power.boot_instance']


def labels(steps):
    return ['%s.%s' % (step['interface'], step['step']) for step in steps]


def in_plan(node, kind):
    """(label, priority, in band) of each step of ``node``'s plan."""
    return [('%(interface)s.%(step)s' % step, step['priority'],
             step.get('in_band', False))
            for step in node.driver_internal_info['%s_steps' % kind]]


def request(label, priority, args=None):
    interface, name = label.split('.')
    return {'interface': interface, 'step': name, 'priority': priority,
            'args': args or {}}


class DirectTestCase(base.ConductorTestCase):
    """A conductor and a fake agent; nodes deploy with ``direct``."""

    #: What :meth:`direct_node` makes (a subclass may test another
    #: interface built on it, such as ``custom-agent``).
    deploy_interface = 'direct'

    def setUp(self):
        super().setUp()
        self.config(group='agent', **fake_ipa.QUICK_CLIENT)
        self.ipa = self.useFixture(fake_ipa.FakeIPA())

    def direct_node(self, **fields):
        """A node of the direct deploy interface, with a port and an
        image, stored through the conductor."""
        fields.setdefault('instance_info', dict(IMAGE))
        node = self.create_node(deploy_interface=self.deploy_interface,
                                **fields)
        objects.Port(self.context, address=MAC, node_uuid=node.uuid,
                     pxe_enabled=True).create()
        return node

    def heartbeat(self, node, agent_verify_ca=None):
        """Heartbeat as the fake agent: look the node up (the agent learns
        its token, once per flow), then heartbeat with its URL."""
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        if token != agent_token.MASK:
            self.ipa.token = token
        self.rpcapi.heartbeat(self.context, node.uuid,
                              callback_url=self.ipa.url,
                              agent_version=AGENT_VERSION,
                              agent_token=self.ipa.token,
                              agent_verify_ca=agent_verify_ca)

    def provide(self, node=None):
        """Manage and provide ``node`` (a new direct node if None): with
        automated cleaning, it waits for its agent in clean wait."""
        node = node or self.direct_node()
        for action, state in (('manage', states.MANAGEABLE),
                              ('provide', states.CLEANWAIT)):
            self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                               action)
            node = self.wait_for_state(node, state)
        return node

    def wait_at(self, node, state, step=None):
        """Wait for ``node`` to rest in ``state``; check its current
        step (``interface.step``, or None for none)."""
        node = self.wait_for_state(node, state)
        field = node.deploy_step if state in (
            states.DEPLOYWAIT, states.DEPLOYFAIL) else node.clean_step
        self.assertEqual(step, '%(interface)s.%(step)s' % field
                         if field else None, node.last_error)
        return node


class DirectDeployTestCase(DirectTestCase):

    def setUp(self):
        super().setUp()
        self.config(automated_clean=False, group='conductor')
        self.ipa.steps['deploy'][CUSTOM] = [FIRMWARE]

    def deploy_to_agent_wait(self, deploy_steps=None, configdrive=None,
                             **fields):
        node = self.direct_node(**fields)
        for action, state in (('manage', states.MANAGEABLE),
                              ('provide', states.AVAILABLE)):
            self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                               action)
            self.wait_for_state(node, state)
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False,
                                   deploy_steps=deploy_steps,
                                   configdrive=configdrive)
        return self.wait_at(node, states.DEPLOYWAIT, 'deploy.deploy')

    def deploy_to_step(self, label, **kwargs):
        """Deploy; heartbeat until the agent runs step ``label`` (one of
        those the agent runs: an in-band step or write_image)."""
        node = self.deploy_to_agent_wait(**kwargs)
        self.heartbeat(node)
        plan = in_plan(self.wait_for_state(node, states.DEPLOYWAIT),
                       'deploy')
        for step in [step for step, _priority, in_band in plan
                     if in_band or step == 'deploy.write_image']:
            node = self.wait_at(node, states.DEPLOYWAIT, step)
            if step == label:
                return node
            self.heartbeat(node)
        self.fail('%s is not in the plan' % label)


def node_plan(node):
    return node.driver_internal_info['deploy_steps']


class DirectDeployTest(DirectDeployTestCase):

    def test_deploy_boots_the_agent_and_waits_for_it(self):
        # Given an available direct node
        # When it is deployed
        node = self.deploy_to_agent_wait()
        # Then it boots from the network, powered on, and waits at
        # deploy.deploy; nothing was asked of an agent yet
        self.assertEqual(states.POWER_ON, node.power_state)
        self.assertEqual('pxe',
                         node.driver_internal_info['fake_boot_device'])
        self.assertEqual(states.ACTIVE, node.target_provision_state)
        self.assertNotIn('agent_url', node.driver_internal_info)
        self.assertEqual([], self.ipa.requests)

    def test_before_the_agent_reports_the_plan_is_the_drivers_own(self):
        node = self.deploy_to_agent_wait()
        self.assertEqual(DIRECT_PLAN, labels(node_plan(node)))
        self.assertFalse(any(step.get('in_band')
                             for step in node_plan(node)))

    def test_a_heartbeat_records_where_the_agent_listens_and_what_it_is(
            self):
        node = self.deploy_to_agent_wait()
        # When its agent heartbeats, with the certificate its API serves
        certificate = '-----BEGIN CERTIFICATE-----\nMIIB\n'
        self.heartbeat(node, agent_verify_ca=certificate)
        # Then the node knows the agent's URL, version and the file the
        # conductor keeps its certificate in
        info = self.wait_for_state(node, states.DEPLOYWAIT).driver_internal_info
        self.assertEqual((self.ipa.url, AGENT_VERSION),
                         (info['agent_url'], info['agent_version']))
        with open(info['agent_verify_ca']) as kept:
            self.assertEqual(certificate, kept.read())

    def test_the_first_heartbeat_fetches_the_agents_steps_and_plans_again(
            self):
        node = self.deploy_to_agent_wait()
        # When the agent heartbeats for the first time
        self.heartbeat(node)
        # Then it was asked for its deploy steps, with the node and ports
        node = self.wait_at(node, states.DEPLOYWAIT,
                            'deploy.upgrade_firmware')
        self.assertEqual('deploy.get_deploy_steps', self.ipa.sent()[0])
        asked = self.ipa.sent('deploy.get_deploy_steps')[0]
        self.assertEqual(node.uuid, asked['node']['uuid'])
        self.assertEqual([MAC], [port['address'] for port in asked['ports']])
        # and its step of priority 90 joined the plan, in band, after the
        # step that booted the agent; its write_image is shadowed
        plan = node_plan(node)
        self.assertEqual(DIRECT_PLAN[:1] + ['deploy.upgrade_firmware']
                         + DIRECT_PLAN[1:], labels(plan))
        self.assertEqual([1], [index for index, step in enumerate(plan)
                               if step.get('in_band')])
        self.assertEqual(80, plan[2]['priority'])
        # and the agent's steps are cached on the node
        self.assertEqual(
            ['deploy.erase_devices_metadata', 'deploy.inject_files',
             'deploy.upgrade_firmware', 'deploy.write_image'],
            labels(node.driver_internal_info['agent_cached_deploy_steps']))

    def test_an_in_band_step_is_sent_to_the_agent_which_runs_it(self):
        node = self.deploy_to_step('deploy.upgrade_firmware')
        self.assertEqual(['deploy.upgrade_firmware'],
                         self.ipa.steps_run('deploy'))
        sent = self.ipa.sent('deploy.execute_deploy_step')[0]
        self.assertEqual({'interface': 'deploy', 'step': 'upgrade_firmware',
                          'priority': 90, 'args': {}}, sent['step'])
        self.assertEqual(node.uuid, sent['node']['uuid'])
        self.assertEqual(
            'deploy.upgrade_firmware',
            node.driver_internal_info['agent_command']['step'])

    def test_write_image_hands_the_agent_the_image_and_the_config_drive(
            self):
        # Given a deploy with a config drive object
        node = self.deploy_to_step(
            'deploy.write_image',
            configdrive={'meta_data': {'hostname': 'host-1'}})
        # Then the agent was asked to write the image
        sent = self.ipa.sent('deploy.execute_deploy_step')[-1]
        self.assertEqual('write_image', sent['step']['step'])
        image_info = sent['step']['args']['image_info']
        self.assertEqual([IMAGE['image_source']], image_info['urls'])
        self.assertEqual(('sha256', 'ab' * 32),
                         (image_info['os_hash_algo'],
                          image_info['os_hash_value']))
        self.assertEqual('qcow2', image_info['disk_format'])
        self.assertIs(True, image_info['stream_raw_images'])
        self.assertEqual(node.uuid, image_info['node_uuid'])
        # and the config drive, built into a gzipped, base64 ISO image
        configdrive = sent['step']['args']['configdrive']
        self.assertEqual(node.instance_info['configdrive'], configdrive)
        iso = gzip.decompress(base64.b64decode(configdrive))
        self.assertEqual(b'CD001', iso[0x8001:0x8006])
        self.assertIn(b'host-1', iso)

    def test_a_checksum_and_a_url_config_drive_are_passed_as_they_are(self):
        self.config(stream_raw_images=False, group='agent')
        info = {'image_source': IMAGE['image_source'],
                'image_checksum': 'http://127.0.0.1:9/images/SHA256SUMS'}
        self.deploy_to_step('deploy.write_image', instance_info=info,
                            configdrive='https://127.0.0.1:9/drive.iso.gz')
        args = self.ipa.sent('deploy.execute_deploy_step')[-1]['step'][
            'args']
        self.assertEqual(info['image_checksum'],
                         args['image_info']['checksum'])
        self.assertNotIn('disk_format', args['image_info'])
        self.assertIs(False, args['image_info']['stream_raw_images'])
        self.assertEqual('https://127.0.0.1:9/drive.iso.gz',
                         args['configdrive'])

    def test_a_heartbeat_while_the_agent_works_keeps_the_node_waiting(self):
        # Given the agent writing the image, still at it when asked
        self.ipa.script('deploy.write_image', fake_ipa.RUNNING)
        node = self.deploy_to_step('deploy.write_image')
        before = node.provision_updated_at
        # When it heartbeats
        self.heartbeat(node)
        # Then the node goes on waiting at the same step, its wait
        # started afresh
        node = self.wait_at(node, states.DEPLOYWAIT, 'deploy.write_image')
        self.assertGreater(node.provision_updated_at, before)
        self.assertIsNone(node.last_error)
        command = node.driver_internal_info['agent_command']
        self.assertEqual('deploy.write_image', command['step'])
        self.assertEqual('/v1/commands/%s' % command['id'],
                         self.ipa.paths('GET')[-1])

    def test_a_failed_command_fails_the_deploy_with_the_agents_words(self):
        self.ipa.script('deploy.write_image', fake_ipa.RUNNING,
                        fake_ipa.failed('Image write failed: no space left '
                                        'on /dev/sda'))
        node = self.deploy_to_step('deploy.write_image')
        self.heartbeat(node)
        self.wait_at(node, states.DEPLOYWAIT, 'deploy.write_image')
        # When the agent says the command failed
        self.heartbeat(node)
        # Then the deploy fails, naming the step and the agent's reason
        node = self.wait_at(node, states.DEPLOYFAIL, 'deploy.write_image')
        self.assertIn('deploy.write_image', node.last_error)
        self.assertIn('Image write failed: no space left on /dev/sda',
                      node.last_error)
        self.assertNotIn('agent_command', node.driver_internal_info)
        self.assertNotIn(agent_token.TOKEN_KEY, node.driver_internal_info)

    def test_a_succeeded_command_moves_on_and_the_node_becomes_active(self):
        node = self.deploy_to_step('deploy.write_image')
        # When the agent says the image is written
        self.heartbeat(node)
        # Then the instance's boot loader is installed through the agent,
        # the disks are synced, and the node boots from its disk
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)
        self.assertEqual(
            ['deploy.get_deploy_steps', 'deploy.execute_deploy_step',
             'deploy.execute_deploy_step', 'standby.get_partition_uuids',
             'image.install_bootloader', 'standby.sync'], self.ipa.sent())
        self.assertEqual(
            {'root_uuid': fake_ipa.PARTITIONS['root uuid'],
             'efi_system_part_uuid':
                 fake_ipa.PARTITIONS['efi system partition uuid'],
             'target_boot_mode': 'uefi', 'prep_boot_part_uuid': None},
            self.ipa.sent('image.install_bootloader')[0])
        self.assertEqual(states.POWER_ON, node.power_state)
        self.assertEqual('disk',
                         node.driver_internal_info['fake_boot_device'])
        # and the flow's bookkeeping is gone; the agent's steps stay cached
        for key in ('agent_command', 'agent_steps_refreshed',
                    'deploy_steps', 'user_deploy_steps',
                    agent_token.TOKEN_KEY):
            self.assertNotIn(key, node.driver_internal_info)
        self.assertIn('agent_cached_deploy_steps', node.driver_internal_info)

    def test_a_bios_node_installs_no_boot_loader(self):
        node = self.deploy_to_step(
            'deploy.write_image',
            properties={'capabilities': 'boot_mode:bios'})
        self.heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn('image.install_bootloader', self.ipa.sent())
        self.assertNotIn('standby.get_partition_uuids', self.ipa.sent())


class RequestedInBandStepTest(DirectDeployTestCase):
    """deploy_steps naming the agent's steps, before it reports them."""

    def test_a_step_unknown_before_the_agent_reports_waits_for_it(self):
        # When a deploy asks for the agent's inject_files, off by default
        node = self.deploy_to_agent_wait(deploy_steps=[
            request('deploy.inject_files', 85, {'files': FILES})])
        # Then it is accepted; the plan gets it once the agent reports
        self.assertNotIn('deploy.inject_files', labels(node_plan(node)))
        self.assertEqual(
            ['deploy.inject_files'],
            labels(node.driver_internal_info['user_deploy_steps']))
        self.heartbeat(node)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        plan = node_plan(node)
        self.assertEqual(
            ['deploy.deploy', 'deploy.upgrade_firmware',
             'deploy.inject_files', 'deploy.write_image'],
            labels(plan)[:4])
        self.assertEqual({'interface': 'deploy', 'step': 'inject_files',
                          'priority': 85, 'args': {'files': FILES},
                          'argsinfo': fake_ipa.DEPLOY_STEPS[2]['argsinfo'],
                          'in_band': True}, plan[2])

    def test_the_requested_step_runs_in_band_with_its_arguments(self):
        self.deploy_to_step('deploy.inject_files', deploy_steps=[
            request('deploy.inject_files', 85, {'files': FILES})])
        sent = self.ipa.sent('deploy.execute_deploy_step')[-1]['step']
        self.assertEqual({'interface': 'deploy', 'step': 'inject_files',
                          'priority': 85, 'args': {'files': FILES}}, sent)

    def test_a_step_the_agent_does_not_report_fails_the_deploy_naming_it(
            self):
        # Given a deploy asking for a step nobody offers yet
        node = self.deploy_to_agent_wait(deploy_steps=[
            request('deploy.flash_bmc', 85)])
        # When the agent reports steps without it
        self.heartbeat(node)
        # Then the deploy fails, naming it and what the node offers
        node = self.wait_at(node, states.DEPLOYFAIL, 'deploy.deploy')
        self.assertIn('deploy.flash_bmc', node.last_error)
        self.assertIn('deploy.inject_files', node.last_error)
        self.assertEqual([], self.ipa.steps_run('deploy'))

    def test_a_step_that_would_run_before_the_agent_boots_fails_naming_it(
            self):
        node = self.deploy_to_agent_wait(deploy_steps=[
            request('deploy.inject_files', 110, {'files': FILES})])
        self.heartbeat(node)
        node = self.wait_at(node, states.DEPLOYFAIL, 'deploy.deploy')
        self.assertIn('deploy.inject_files', node.last_error)
        self.assertIn('before deploy.deploy', node.last_error)
        self.assertEqual([], self.ipa.steps_run('deploy'))

    def test_a_cached_step_asked_to_run_before_the_agent_is_refused(self):
        # Given a node whose agent reported its steps in an earlier deploy
        node = self.deploy_to_step('deploy.write_image')
        self.heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        before = objects.Node.get(self.context, node.uuid)
        # When a rebuild asks for one of them before deploy.deploy
        exc = self.assertRaises(
            Exception, self.rpcapi.do_node_deploy, self.context, node.uuid,
            rebuild=True, deploy_steps=[
                request('deploy.inject_files', 110, {'files': FILES})])
        # Then it is refused as it would be before the agent reported
        self.assertEqual(400, exc.code)
        self.assertIn('deploy.inject_files', str(exc))
        self.assertNodeUnchanged(before)

    def test_a_malformed_answer_fails_the_deploy_naming_the_problem(self):
        self.ipa.results['get_deploy_steps'] = {
            'deploy_steps': {fake_ipa.GENERIC: [{'step': 'write_image'}]}}
        node = self.deploy_to_agent_wait()
        self.heartbeat(node)
        node = self.wait_at(node, states.DEPLOYFAIL, 'deploy.deploy')
        self.assertIn(fake_ipa.GENERIC, node.last_error)
        self.assertIn('step write_image without an interface',
                      node.last_error)
        self.assertNotIn('agent_cached_deploy_steps',
                         node.driver_internal_info)

    def test_a_step_the_planner_refuses_is_not_kept_for_the_next_deploy(
            self):
        # Given an agent reporting a step whose priority is not a number
        self.ipa.steps['deploy'][CUSTOM] = [dict(FIRMWARE, priority=True)]
        node = self.deploy_to_agent_wait()
        self.heartbeat(node)
        node = self.wait_at(node, states.DEPLOYFAIL, 'deploy.deploy')
        self.assertIn('upgrade_firmware', node.last_error)
        # When the node is deployed again
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False)
        # Then it boots its agent again, to ask it for its steps
        self.wait_at(node, states.DEPLOYWAIT, 'deploy.deploy')


class NextFlowTest(DirectDeployTestCase):
    """What one flow leaves for the next."""

    def test_an_aborted_deploy_leaves_no_command_for_the_next_agent(self):
        # Given a deploy aborted while the agent writes the image
        self.ipa.script('deploy.write_image', fake_ipa.RUNNING)
        node = self.deploy_to_step('deploy.write_image')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'abort')
        self.wait_for_state(node, states.DEPLOYFAIL)
        # When it is deployed again, on a freshly booted agent
        self.ipa.restart()
        self.ipa.script('deploy.write_image', fake_ipa.SUCCEEDED)
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False)
        node = self.wait_at(node, states.DEPLOYWAIT, 'deploy.deploy')
        self.heartbeat(node)
        # Then the new agent is not asked about the old agent's command
        node = self.wait_at(node, states.DEPLOYWAIT,
                            'deploy.upgrade_firmware')
        self.assertIsNone(node.last_error)


class DirectCleaningTest(DirectTestCase):

    def setUp(self):
        super().setUp()
        self.config(automated_clean=True, group='conductor')

    def failed_cleaning(self):
        """A direct node whose agent failed its metadata erase."""
        self.ipa.script('deploy.erase_devices_metadata',
                        fake_ipa.failed(WIPEFS))
        node = self.provide()
        self.heartbeat(node)
        self.wait_at(node, states.CLEANWAIT, 'deploy.erase_devices_metadata')
        self.heartbeat(node)
        return self.wait_for_state(node, states.CLEANFAIL)

    def test_automated_cleaning_boots_the_agent_and_waits_for_it(self):
        # When a direct node is provided
        node = self.provide()
        # Then it boots the agent from the network and waits for it,
        # running no step yet
        self.assertEqual(states.POWER_ON, node.power_state)
        self.assertEqual('pxe',
                         node.driver_internal_info['fake_boot_device'])
        self.assertFalse(node.clean_step)
        self.assertEqual([], node.driver_internal_info['clean_steps'])
        self.assertEqual([], self.ipa.requests)

    def test_the_agents_erase_steps_run_in_band_then_the_node_powers_off(
            self):
        node = self.provide()
        # When the agent heartbeats
        self.heartbeat(node)
        # Then its steps were fetched: its metadata erase runs first
        self.assertEqual(
            [('deploy.erase_devices_metadata', 99, True),
             ('deploy.erase_devices', 10, True)],
            in_plan(self.wait_at(node, states.CLEANWAIT,
                                 'deploy.erase_devices_metadata'), 'clean'))
        self.heartbeat(node)
        node = self.wait_at(node, states.CLEANWAIT, 'deploy.erase_devices')
        self.assertIs(True, node.clean_step['abortable'])
        self.heartbeat(node)
        # Then cleaning is over, the agent powered off
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertIsNone(node.last_error)
        self.assertEqual(['clean.get_clean_steps', 'clean.execute_clean_step',
                          'clean.execute_clean_step'], self.ipa.sent())
        self.assertEqual(['deploy.erase_devices_metadata',
                          'deploy.erase_devices'],
                         self.ipa.steps_run('clean'))
        self.assertEqual(states.POWER_OFF, node.power_state)
        self.assertEqual({}, node.clean_step)

    def test_erase_devices_priority_0_leaves_erase_devices_out(self):
        self.config(erase_devices_priority=0, group='deploy')
        node = self.provide()
        self.heartbeat(node)
        node = self.wait_at(node, states.CLEANWAIT,
                            'deploy.erase_devices_metadata')
        self.heartbeat(node)
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertEqual(['deploy.erase_devices_metadata'],
                         self.ipa.steps_run('clean'))
        self.assertEqual(states.POWER_OFF, node.power_state)

    def test_the_priority_options_reorder_the_agents_steps(self):
        self.config(erase_devices_priority=95,
                    erase_devices_metadata_priority=5, group='deploy')
        node = self.provide()
        self.heartbeat(node)
        self.wait_at(node, states.CLEANWAIT, 'deploy.erase_devices')
        self.heartbeat(node)
        self.wait_at(node, states.CLEANWAIT,
                     'deploy.erase_devices_metadata')

    def test_a_failed_erase_fails_cleaning_with_the_agents_words(self):
        node = self.failed_cleaning()
        self.assertIn('deploy.erase_devices_metadata', node.last_error)
        self.assertIn(WIPEFS, node.last_error)

    def test_the_next_cleaning_fetches_the_agents_steps_again(self):
        # Given a cleaning that failed after its agent reported its steps
        node = self.failed_cleaning()
        # When the node is cleaned again, by an agent that now reports
        # only the metadata erase
        self.ipa.restart()
        self.ipa.script('deploy.erase_devices_metadata', fake_ipa.SUCCEEDED)
        self.ipa.report('clean', [fake_ipa.CLEAN_STEPS[1]])
        node = self.provide(node)
        self.heartbeat(node)
        # Then the agent is asked for its steps again, and the plan is
        # what it reports now
        node = self.wait_at(node, states.CLEANWAIT,
                            'deploy.erase_devices_metadata')
        self.assertEqual(2, self.ipa.sent().count('clean.get_clean_steps'))
        self.assertEqual(['deploy.erase_devices_metadata'],
                         labels(node.driver_internal_info['clean_steps']))


class RebootRequestedTest(DirectDeployTestCase):
    """An in-band step whose agent asks for a reboot."""

    def test_the_node_reboots_and_the_new_agents_heartbeat_ends_the_step(
            self):
        # Given an in-band step that asks for a reboot when it is done
        self.ipa.steps['deploy'][CUSTOM] = [dict(FIRMWARE,
                                                 reboot_requested=True)]
        node = self.deploy_to_step('deploy.upgrade_firmware')
        boots = node.driver_internal_info['fake_boots']
        # When the agent says it is done
        self.heartbeat(node)
        # Then the node reboots, still waiting in that step, and its old
        # agent's token and URL are forgotten
        node = self.wait_at(node, states.DEPLOYWAIT,
                            'deploy.upgrade_firmware')
        self.assertEqual(boots + 1, node.driver_internal_info['fake_boots'])
        self.assertNotIn('agent_url', node.driver_internal_info)
        self.assertNotIn(agent_token.TOKEN_KEY, node.driver_internal_info)
        # And once the rebooted agent looks up and heartbeats, it goes on
        self.ipa.restart()
        self.heartbeat(node)
        self.wait_at(node, states.DEPLOYWAIT, 'deploy.write_image')


class PreviewTest(DirectDeployTestCase):
    """A preview shows the agent's steps as in-band, and what cannot be
    known before the agent starts."""

    def test_before_the_agent_reports_a_requested_step_waits_for_it(self):
        node = self.direct_node()
        for action, state in (('manage', states.MANAGEABLE),
                              ('provide', states.AVAILABLE)):
            self.rpcapi.do_provisioning_action(self.context, node.uuid,
                                               action)
            self.wait_for_state(node, state)
        preview = self.rpcapi.preview_steps(
            self.context, node.uuid, 'deploy',
            [request('deploy.inject_files', 50, {'files': FILES})])
        self.assertEqual([], preview['errors'])
        self.assertEqual(['deploy.inject_files'],
                         labels(preview['after_agent']))
        self.assertIn('known after the agent starts',
                      preview['after_agent'][0]['reason'])
        self.assertNotIn('deploy.inject_files', labels(preview['steps']))

    def test_once_the_agent_reported_its_steps_show_as_in_band(self):
        node = self.deploy_to_step('deploy.upgrade_firmware')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'abort')
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        preview = self.rpcapi.preview_steps(self.context, node.uuid,
                                            'deploy')
        shown = {'%(interface)s.%(step)s' % step: step
                 for step in preview['steps']}
        self.assertTrue(shown['deploy.upgrade_firmware']['in_band'])
        self.assertEqual('agent', shown['deploy.upgrade_firmware']['source'])
        self.assertFalse(shown['deploy.write_image']['in_band'])
        self.assertEqual([], preview['after_agent'])
