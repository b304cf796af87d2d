"""The spec's upgrade cases, with conductors talking over oslo.messaging.

The conductors here share one process, so they share one configuration:
pinning is shown before and after, not side by side (the multi-process
functional test does that).  The transport is oslo.messaging's in-memory
driver; the database is a real SQLite file.
"""

import fixtures
import oslo_messaging as messaging
from tooz import hashring

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import deployments
from ironic_steps.conductor import hash_ring
from ironic_steps.conductor import registry
from ironic_steps.conductor import rpcapi
from ironic_steps import objects
from ironic_steps.objects import base as objects_base
from tests import base


class _UpgradeTestCase(base.TestCase):
    """Two conductors over in-memory oslo.messaging, and an API's client."""

    def setUp(self):
        super().setUp()
        self.use_in_memory_messaging()
        self.conductors = self.useFixture(base.RPCConductors(
            self.context, ['conductor-a', 'conductor-b']))
        self.rpcapi = rpcapi.ConductorAPI()
        self._agent_tokens = {}
        self.useFixture(fixtures.MockPatchObject(
            deployments, '_warned_legacy', set()))
        self.deploy_log = self.useFixture(fixtures.FakeLogger(
            name='ironic_steps.conductor.deployments'))

    wait_for_state = base.ConductorTestCase.wait_for_state
    agent_heartbeat = base.ConductorTestCase.agent_heartbeat

    def available_node(self, **fields):
        node = self.create_node(**fields)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'provide')
        return self.wait_for_state(node, states.AVAILABLE)


class RollingUpgradeTest(_UpgradeTestCase):

    def test_heartbeat_without_deploy_steps_continues_the_old_way(self):
        # Given a node an old conductor left waiting: no deploy steps
        node = self.available_node()
        node.provision_state = states.DEPLOYWAIT
        node.target_provision_state = states.ACTIVE
        node.save()
        # When its agent heartbeats to a new conductor
        self.agent_heartbeat(node)
        # Then the legacy continue_deploy() finishes it, with a warning
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn('deploy_steps', node.driver_internal_info or {})
        self.assertIn('legacy way', self.deploy_log.output)

    def test_deploy_started_with_steps_continues_on_another_conductor(self):
        node = self.available_node()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual('write_image', node.deploy_step['step'])
        # The conductor that started it goes away for its upgrade.
        owner = registry.conductor_for(node.uuid, node.driver)
        self.conductors.stop(owner)
        survivor = registry.conductor_for(node.uuid, node.driver)
        self.assertNotEqual(owner, survivor)
        # The agent's heartbeat reaches the survivor, which resumes the
        # stored plan at the next step.
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual({}, node.deploy_step)
        self.assertEqual('disk',
                         node.driver_internal_info['fake_boot_device'])
        self.assertNotIn('legacy way', self.deploy_log.output)

    def test_pinned_to_the_old_release_no_deploy_steps_are_used(self):
        self.config(pin_release_version='0.1')
        pinned_client = rpcapi.ConductorAPI()
        node = self.available_node()
        pinned_client.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE)
        # deploy() ran alone, in one call: nothing waited for an agent and
        # no step bookkeeping was written.
        self.assertNotIn('deploy_steps', node.driver_internal_info)
        self.assertIsNone(node.deploy_step)
        self.assertEqual('pxe', node.driver_internal_info['fake_boot_device'])
        self.assertIn('Pinned to release 0.1', self.deploy_log.output)
        # The deploy-step RPC call is beyond the pinned version.
        self.assertFalse(pinned_client.can_send_version('1.1'))
        self.assertRaises(messaging.RPCVersionCapError,
                          pinned_client.continue_node_deploy, self.context,
                          node.uuid)

    def test_unpinning_switches_new_deploys_to_steps_without_restart(self):
        self.config(pin_release_version='0.1')
        legacy = self.available_node(name='before-unpin')
        rpcapi.ConductorAPI().do_node_deploy(self.context, legacy.uuid)
        self.wait_for_state(legacy, states.ACTIVE)

        self.config(pin_release_version=None)
        modern = self.available_node(name='after-unpin')
        rpcapi.ConductorAPI().do_node_deploy(self.context, modern.uuid)
        modern = self.wait_for_state(modern, states.DEPLOYWAIT)
        self.assertEqual(5, len(modern.driver_internal_info['deploy_steps']))
        self.assertEqual('write_image', modern.deploy_step['step'])

    def test_node_sent_at_the_old_version_is_accepted_and_upgraded(self):
        node = self.available_node()
        node.deploy_step = {'interface': 'deploy', 'step': 'deploy'}
        node.save()
        # A pinned API sends the node at 1.0, without deploy_step.
        self.config(pin_release_version='0.1')
        serializer = objects_base.IronicStepsObjectSerializer()
        old = objects.Node.get(self.context, node.uuid)
        old.extra = {'rack': 'r1'}
        primitive = serializer.serialize_entity(self.context, old)
        self.assertEqual('1.0', primitive['ironic_steps_object.version'])
        self.assertNotIn('deploy_step', primitive['ironic_steps_object.data'])
        # The receiving side upgrades it in place ...
        self.config(pin_release_version=None)
        received = serializer.deserialize_entity(self.context, primitive)
        self.assertEqual(objects.Node.VERSION, received.VERSION)
        self.assertIsNone(received.deploy_step)
        self.assertNotIn('deploy_step', received.obj_what_changed())
        # ... and saving it keeps the deploy_step it never saw.
        rpcapi.ConductorAPI().update_node(self.context, received)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual({'rack': 'r1'}, stored.extra)
        self.assertEqual('deploy', stored.deploy_step['step'])

    def test_pinned_save_never_writes_fields_the_old_release_lacks(self):
        node = self.create_node()
        self.config(pin_release_version='0.1')
        node.deploy_step = {'interface': 'deploy', 'step': 'deploy'}
        node.extra = {'a': 1}
        node.save()
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual({'a': 1}, stored.extra)
        self.assertIsNone(stored.deploy_step)

    def test_pinned_to_0_3_a_bios_step_runs_and_caches_nothing(self):
        # Given conductors pinned to the release before the BIOS cache
        self.config(pin_release_version='0.3')
        node = self.available_node()
        settings = [{'name': 'LogicalProc', 'value': 'Enabled'}]
        # When a deploy applies BIOS settings
        rpcapi.ConductorAPI().do_node_deploy(
            self.context, node.uuid, rebuild=False, deploy_steps=[
                {'interface': 'bios', 'step': 'apply_configuration',
                 'priority': 95, 'args': {'settings': settings}}])
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        # Then the step ran as in 0.3, and wrote nothing 0.3 lacks
        self.assertEqual(settings,
                         node.driver_internal_info['fake_bios_settings'])
        self.assertEqual([], objects.BIOSSetting.list_by_node(self.context,
                                                              node.id))
        # until the pin is lifted.
        self.config(pin_release_version=None)
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        rpcapi.ConductorAPI().do_node_deploy(
            self.context, node.uuid, rebuild=True, deploy_steps=[
                {'interface': 'bios', 'step': 'apply_configuration',
                 'priority': 95, 'args': {'settings': settings}}])
        self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual({'LogicalProc': 'Enabled'}, {
            s.name: s.value for s in objects.BIOSSetting.list_by_node(
                self.context, node.id)})

    def test_pinned_to_0_4_conductors_record_no_hardware_and_place_as_0_4(
            self):
        # Given the services pinned to 0.4, and a conductor started then
        self.config(pin_release_version='0.4')
        self.useFixture(base.RPCConductors(self.context, ['conductor-c']))
        hosts = ['conductor-a', 'conductor-b', 'conductor-c']
        # Then it recorded no hardware types, as a 0.4 conductor
        self.assertIsNone(objects.Conductor.get_by_hostname(
            self.context, 'conductor-c').hardware_types)
        # and nodes are placed on tooz's default ring of every live
        # conductor, exactly as 0.4 placed them, and deploy there
        old_ring = hashring.HashRing(hosts)
        nodes = [self.available_node(name='n-%d' % index)
                 for index in range(3)]
        for node in nodes:
            self.assertEqual(hash_ring.host_on(old_ring, node.uuid),
                             self.rpcapi.get_conductor_for(node.uuid,
                                                           node.driver))
            self.rpcapi.do_node_deploy(self.context, node.uuid)
            self.agent_heartbeat(self.wait_for_state(node,
                                                     states.DEPLOYWAIT))
            self.wait_for_state(node, states.ACTIVE)
        # Unpinned, the new ring places them (conductor-c, which recorded
        # nothing, in every driver's ring).
        self.config(pin_release_version=None)
        registry.reset_ring()
        new_ring = hash_ring.build_ring(hosts, 1024)
        self.assertEqual(
            [hash_ring.host_on(new_ring, node.uuid) for node in nodes],
            [self.rpcapi.get_conductor_for(node.uuid, node.driver)
             for node in nodes])

    def test_remote_errors_come_back_as_ours(self):
        node = self.create_node()
        from ironic_steps.common import exception
        exc = self.assertRaises(exception.InvalidStateRequested,
                                self.rpcapi.do_node_deploy, self.context,
                                node.uuid)
        self.assertIn("'enroll'", str(exc))
        self.assertEqual(400, exc.code)


class PinnedTo07Test(_UpgradeTestCase):
    """Release 0.8 brought the real agent: direct deploys, config drives
    and heartbeats that carry the agent's CA (RPC 1.4)."""

    def test_pinned_to_0_7_a_heartbeat_goes_out_as_0_7_knows_it(self):
        self.config(pin_release_version='0.7')
        self.rpcapi = rpcapi.ConductorAPI()     # an API started pinned
        node = self.available_node()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        # A 0.7 conductor has no agent_verify_ca argument: the API of 0.8
        # leaves it out rather than failing the agent's heartbeat.
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.rpcapi.heartbeat(self.context, node.uuid, agent_token=token,
                              agent_verify_ca='/tmp/not-sent.crt')
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn('agent_verify_ca', node.driver_internal_info)

    def test_pinned_to_0_7_a_config_drive_is_refused_before_the_call(self):
        self.config(pin_release_version='0.7')
        node = self.available_node()
        exc = self.assertRaises(
            exception.NotInPinnedRelease, self.rpcapi.do_node_deploy,
            self.context, node.uuid,
            rebuild=False, configdrive={'meta_data': {}})
        self.assertIn('0.8', str(exc))
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_unpinned_the_heartbeat_records_the_agents_ca(self):
        node = self.available_node()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.rpcapi.heartbeat(
            self.context, node.uuid, agent_token=token,
            agent_verify_ca='-----BEGIN CERTIFICATE-----\nx\n')
        node = self.wait_for_state(node, states.ACTIVE)
        path = node.driver_internal_info['agent_verify_ca']
        with open(path) as kept:
            self.assertIn('BEGIN CERTIFICATE', kept.read())


class PinnedTo010Test(_UpgradeTestCase):
    """Release 0.11 brought inspection (RPC 1.6, NodeInventory) and the
    node's shard and parent_node (Node 1.5)."""

    def test_pinned_to_0_10_a_node_goes_out_as_1_4_and_inspect_is_refused(
            self):
        parent = self.create_node(name='host')
        node = self.create_node(name='dpu', shard='rack-a',
                                parent_node=parent.uuid)
        self.config(pin_release_version='0.10')
        serializer = objects_base.IronicStepsObjectSerializer()
        primitive = serializer.serialize_entity(
            self.context, objects.Node.get(self.context, node.uuid))
        self.assertEqual('1.4', primitive['ironic_steps_object.version'])
        self.assertNotIn('shard', primitive['ironic_steps_object.data'])
        self.assertNotIn('parent_node', primitive['ironic_steps_object.data'])
        # Received by an unpinned conductor, it keeps what it never saw.
        self.config(pin_release_version=None)
        received = serializer.deserialize_entity(self.context, primitive)
        received.extra = {'rack': 'r1'}
        rpcapi.ConductorAPI().update_node(self.context, received)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(('rack-a', parent.uuid, {'rack': 'r1'}),
                         (stored.shard, stored.parent_node, stored.extra))

        self.config(pin_release_version='0.10')
        pinned = rpcapi.ConductorAPI()
        pinned.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        exc = self.assertRaises(exception.NotInPinnedRelease,
                                pinned.inspect_hardware, self.context,
                                node.uuid)
        self.assertIn('0.11', str(exc))

    def test_unpinned_an_inspection_runs_on_the_nodes_conductor(self):
        node = self.create_node()
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        self.rpcapi.inspect_hardware(self.context, node.uuid)
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNotNone(node.inspection_finished_at)
        self.assertEqual(8, node.properties['cpus'])


class PinnedTo011Test(_UpgradeTestCase):
    """Release 0.12 brought in-band inspection (RPC 1.8
    continue_inspection, the agent inspect interface)."""

    INVENTORY = {'cpu': {'count': 2, 'architecture': 'x86_64'},
                 'memory': {'physical_mb': 4096},
                 'interfaces': [{'name': 'eth0',
                                 'mac_address': '52:54:00:00:01:01'}]}

    def waiting(self):
        node = self.create_node(inspect_interface='agent')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        self.rpcapi.inspect_hardware(self.context, node.uuid)
        return self.wait_for_state(node, states.INSPECTWAIT)

    def test_pinned_to_0_11_a_report_is_refused_and_changes_nothing(self):
        node = self.waiting()
        self.config(pin_release_version='0.11')
        exc = self.assertRaises(
            exception.NotInPinnedRelease,
            rpcapi.ConductorAPI().continue_inspection, self.context,
            node.uuid, self.INVENTORY, {})
        self.assertIn('0.12', str(exc))
        self.assertEqual(states.INSPECTWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_unpinned_a_report_reaches_the_nodes_conductor(self):
        node = self.waiting()
        self.rpcapi.continue_inspection(self.context, node.uuid,
                                        self.INVENTORY, {})
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual(4096, node.properties['memory_mb'])


class PinnedTo011PortsAndMediaTest(_UpgradeTestCase):
    """Release 0.12 brought virtual media (RPC 1.8) and the port and
    portgroup fields of API 1.88-1.111 (Port 1.2, Portgroup 1.1)."""

    def test_pinned_to_0_11_virtual_media_is_refused_and_records_go_out_old(
            self):
        node = self.create_node(name='n1')
        self.config(pin_release_version='0.11')
        pinned = rpcapi.ConductorAPI()
        for call, args in (
                (pinned.attach_virtual_media, ('cdrom', 'http://h/x.iso',
                                               'http')),
                (pinned.detach_virtual_media, ()),
                (pinned.get_virtual_media, ())):
            exc = self.assertRaises(exception.NotInPinnedRelease, call,
                                    self.context, node.uuid, *args)
            self.assertIn('0.12', str(exc))
        self.assertNotIn('fake_virtual_media', objects.Node.get(
            self.context, node.uuid).driver_internal_info or {})
        port = objects.Port(self.context, address='52:54:00:12:34:56',
                            node_uuid=node.uuid, pxe_enabled=True,
                            is_smartnic=False, vendor='acme')
        primitive = objects_base.IronicStepsObjectSerializer(
        ).serialize_entity(self.context, port)
        self.assertEqual('1.0', primitive['ironic_steps_object.version'])
        self.assertNotIn('vendor', primitive['ironic_steps_object.data'])
