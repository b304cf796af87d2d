"""The release mapping stays honest about what the code speaks."""

from oslo_utils import versionutils
import testtools

from ironic_steps.conductor import manager
from ironic_steps.conductor import rpcapi
from ironic_steps.objects import base as objects_base
from ironic_steps import release_mappings

MAPPING = release_mappings.RELEASE_MAPPING


def as_tuple(version):
    return versionutils.convert_version_to_tuple(version)


class ReleaseMappingTest(testtools.TestCase):

    def test_master_is_the_newest_release(self):
        newest = release_mappings.RELEASES[-1]
        self.assertEqual(MAPPING[newest], MAPPING['master'])

    def test_newest_release_speaks_the_rpc_version_of_the_code(self):
        self.assertEqual(rpcapi.ConductorAPI.RPC_API_VERSION,
                         MAPPING['master']['rpc'])
        self.assertEqual(manager.ConductorManager.RPC_API_VERSION,
                         MAPPING['master']['rpc'])

    def test_newest_release_lists_every_object_at_its_current_version(self):
        registered = objects_base.IronicStepsObjectRegistry.obj_classes()
        self.assertEqual(sorted(registered),
                         sorted(MAPPING['master']['objects']))
        for name, classes in registered.items():
            self.assertEqual(classes[0].VERSION,
                             MAPPING['master']['objects'][name][-1], name)

    def test_every_release_lists_every_part_and_versions_never_go_back(self):
        previous = None
        for name in release_mappings.RELEASES:
            release = MAPPING[name]
            self.assertEqual({'api', 'rpc', 'objects'}, set(release), name)
            if previous is not None:
                self.assertGreaterEqual(as_tuple(release['api']),
                                        as_tuple(previous['api']), name)
                self.assertGreaterEqual(as_tuple(release['rpc']),
                                        as_tuple(previous['rpc']), name)
                for obj, versions in previous['objects'].items():
                    self.assertIn(obj, release['objects'], name)
                    self.assertGreaterEqual(
                        as_tuple(release['objects'][obj][-1]),
                        as_tuple(versions[-1]), name)
            previous = release

    def test_a_release_before_deploy_steps_exists(self):
        from ironic_steps import objects
        oldest = MAPPING[release_mappings.RELEASES[0]]
        self.assertIn('deploy_step', objects.Node.fields_unknown_at(
            oldest['objects']['Node'][-1]))
        self.assertLess(as_tuple(oldest['api']), (1, 44))
        self.assertLess(as_tuple(oldest['rpc']), (1, 1))

    def test_release_0_11_brings_inspection_shards_parents_and_rescue(self):
        from ironic_steps import objects
        before, release = MAPPING['0.10'], MAPPING['0.11']
        self.assertNotIn('NodeInventory', before['objects'])
        self.assertEqual(['1.0'], release['objects']['NodeInventory'])
        self.assertTrue({'shard', 'parent_node'} <= objects.Node
                        .fields_unknown_at(before['objects']['Node'][-1]))
        self.assertFalse({'shard', 'parent_node'} & objects.Node
                         .fields_unknown_at(release['objects']['Node'][-1]))
        self.assertEqual(('1.80', '1.5'), (before['api'], before['rpc']))
        self.assertEqual(('1.83', '1.7'), (release['api'], release['rpc']))

    def test_release_0_12_brings_steps_across_a_server_s_life(self):
        before, release = MAPPING['0.11'], MAPPING['0.12']
        # In-band inspection (1.84), unhold (1.85), servicing (1.87) and
        # RPC 1.8 (continue_inspection, do_node_service, unhold) at least.
        self.assertGreaterEqual(
            versionutils.convert_version_to_tuple(release['api']), (1, 87))
        self.assertEqual('1.8', release['rpc'])
        # The node learnt service_step.
        self.assertEqual(['1.6'], release['objects']['Node'])
        self.assertEqual(['1.5'], before['objects']['Node'])

    def test_release_0_12_brings_runbooks(self):
        before, release = MAPPING['0.11'], MAPPING['0.12']
        self.assertNotIn('Runbook', before['objects'])
        self.assertEqual(['1.0'], release['objects']['Runbook'])

    def test_release_0_13_brings_inspection_rules(self):
        before, release = MAPPING['0.12'], MAPPING['0.13']
        self.assertNotIn('InspectionRule', before['objects'])
        self.assertEqual(['1.0'], release['objects']['InspectionRule'])
        self.assertGreaterEqual(as_tuple(release['api']), (1, 96))
        self.assertEqual(('1.94', '1.8'), (before['api'], before['rpc']))

    def test_release_0_12_brings_the_port_api_and_virtual_media(self):
        from ironic_steps import objects
        before, release = MAPPING['0.11'], MAPPING['0.12']
        new_port_fields = {'name', 'description', 'vendor', 'category',
                           'available_for_dynamic_portgroup'}
        new_group_fields = {'physical_network', 'category',
                            'dynamic_portgroup'}
        self.assertEqual(new_port_fields, objects.Port.fields_unknown_at(
            before['objects']['Port'][-1]))
        self.assertEqual(new_group_fields,
                         objects.Portgroup.fields_unknown_at(
                             before['objects']['Portgroup'][-1]))
        self.assertFalse(objects.Port.fields_unknown_at(
            release['objects']['Port'][-1]))
        self.assertFalse(objects.Portgroup.fields_unknown_at(
            release['objects']['Portgroup'][-1]))
        self.assertEqual(('1.83', '1.7'), (before['api'], before['rpc']))
        self.assertGreaterEqual(as_tuple(release['api']), (1, 94))
        self.assertGreaterEqual(as_tuple(release['rpc']), (1, 8))

    def test_release_0_13_brings_the_node_fields_of_the_api_ladder(self):
        from ironic_steps import objects
        before, release = MAPPING['0.12'], MAPPING['0.13']
        self.assertEqual({'disable_power_off', 'instance_name', 'health'},
                         objects.Node.fields_unknown_at(
            before['objects']['Node'][-1]) - objects.Node.fields_unknown_at(
            release['objects']['Node'][-1]))
        self.assertEqual('1.94', before['api'])
        self.assertGreaterEqual(as_tuple(release['api']), (1, 95))
