"""The inventory of an ephemeral run: what it takes, and every refusal
naming the file, the node and the field."""

import json
import os

import ddt
import fixtures
import testtools

from ironic_steps.ephemeral import inventory

PATH = 'rack.yaml'


def node(**fields):
    entry = {'name': 'n1', 'driver': 'fake-hardware'}
    entry.update(fields)
    return entry


@ddt.ddt
class ParseTest(testtools.TestCase):

    def refusal(self, data):
        return str(self.assertRaises(inventory.InventoryError,
                                     inventory.parse, data, PATH))

    def test_a_full_node_becomes_the_api_bodies(self):
        parsed = inventory.parse({
            'deploy_templates': [{'name': 'CUSTOM_A', 'steps': [
                {'interface': 'bios', 'step': 'apply_configuration',
                 'priority': 90, 'args': {'settings': []}}]}],
            'nodes': [node(driver_info={'ipmi_password': 'p'},
                           properties={'cpus': 2},
                           instance_info={'image_source': 'http://x'},
                           resource_class='gold', traits=['CUSTOM_GPU'],
                           deploy_templates=['CUSTOM_A'],
                           deploy_steps=[{'interface': 'raid',
                                          'step': 'delete_configuration',
                                          'priority': 10, 'args': {}}])]},
            PATH)
        (spec,) = parsed.nodes
        self.assertEqual(
            {'name': 'n1', 'driver': 'fake-hardware',
             'driver_info': {'ipmi_password': 'p'},
             'properties': {'cpus': 2}, 'resource_class': 'gold',
             'instance_info': {'image_source': 'http://x',
                               'traits': ['CUSTOM_A']}},
            spec.create_body())
        self.assertEqual(['CUSTOM_GPU', 'CUSTOM_A'], spec.all_traits())
        # The node's own instance_info is not changed by the body.
        self.assertEqual({'image_source': 'http://x'}, spec.instance_info)

    def test_a_minimal_node_has_empty_mappings_and_no_steps(self):
        (spec,) = inventory.parse({'nodes': [node()]}, PATH).nodes
        self.assertEqual(({}, [], None), (spec.driver_info, spec.traits,
                                          spec.deploy_steps))
        self.assertNotIn('resource_class', spec.create_body())

    @ddt.data(
        ([], 'rack.yaml: top level: must be a mapping with "nodes"'),
        ({'nodes': []}, 'rack.yaml: nodes: required: a non-empty list'),
        ({'nodes': [node()], 'hosts': 1},
         'rack.yaml: top level: unknown field(s) hosts; an inventory has '
         'nodes, deploy_templates'),
        ({'nodes': ['n1']}, 'rack.yaml: node #1: must be a mapping'),
        ({'nodes': [{'driver': 'fake-hardware'}]},
         'rack.yaml: node #1: name: required'),
        ({'nodes': [node(driver=None)]},
         'rack.yaml: node n1 (#1): driver: required'),
        ({'nodes': [node(properties=[1])]},
         'rack.yaml: node n1 (#1): properties: must be a mapping, got list'),
        ({'nodes': [node(traits='CUSTOM_A')]},
         'rack.yaml: node n1 (#1): traits: must be a list of names'),
        ({'nodes': [node(deploy_templates=['CUSTOM_X'])]},
         'rack.yaml: node n1 (#1): deploy_templates: CUSTOM_X is not a '
         'template of this inventory (it has: none)'),
        ({'nodes': [node(deploy_steps={'interface': 'raid'})]},
         'rack.yaml: node n1 (#1): deploy_steps: must be a list of steps'),
        ({'nodes': [node(deploy_steps=[{'interface': 'raid',
                                        'priority': 'high'}])]},
         'rack.yaml: node n1 (#1): deploy_steps: step 1: step is required'),
        ({'nodes': [node(deploy_steps=[{'interface': 'raid', 'step': 's',
                                        'priority': 'high'}])]},
         'deploy_steps: step 1: priority must be an integer'),
        ({'nodes': [node(instance_info={'traits': ['CUSTOM_A']})]},
         'instance_info: traits is set by the run from deploy_templates'),
        ({'nodes': [node(), node()]},
         'rack.yaml: node n1 (#2): name: n1 is also the name of node #1'),
        ({'nodes': [node()], 'deploy_templates': [{'steps': []}]},
         'rack.yaml: deploy_templates #1: name is required'),
        ({'nodes': [node()], 'deploy_templates': [
            {'name': 'CUSTOM_A', 'steps': []},
            {'name': 'CUSTOM_A', 'steps': []}]},
         'rack.yaml: deploy template CUSTOM_A: defined twice (#1 and #2)'),
    )
    @ddt.unpack
    def test_a_problem_is_named_with_file_node_and_field(self, data, said):
        self.assertIn(said, self.refusal(data))

    def test_every_problem_is_told_at_once(self):
        said = self.refusal({'nodes': [node(driver=None),
                                       node(name='n2', traits=1)]})
        self.assertEqual(2, len(said.splitlines()), said)


class LoadTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as stream:
            stream.write(text)
        return path

    def test_json_and_yaml_read_alike(self):
        data = {'nodes': [node(traits=['CUSTOM_A'])]}
        from_json = inventory.load(self.write('r.json', json.dumps(data)))
        from_yaml = inventory.load(self.write(
            'r.yaml', 'nodes:\n- name: n1\n  driver: fake-hardware\n'
                      '  traits: [CUSTOM_A]\n'))
        self.assertEqual(from_json.nodes, from_yaml.nodes)

    def test_what_a_run_saves_loads_back_the_same(self):
        original = inventory.parse({
            'deploy_templates': [{'name': 'CUSTOM_A', 'steps': []}],
            'nodes': [node(deploy_templates=['CUSTOM_A'],
                           driver_info={'k': 'v'})]}, PATH)
        saved = os.path.join(self.tmp, 'inventory.json')
        inventory.save(original, saved)
        again = inventory.load(saved)
        self.assertEqual((original.nodes, original.deploy_templates),
                         (again.nodes, again.deploy_templates))

    def test_a_file_that_is_not_yaml_is_named(self):
        path = self.write('bad.yaml', 'nodes: [unclosed\n')
        said = str(self.assertRaises(inventory.InventoryError,
                                     inventory.load, path))
        self.assertIn('bad.yaml: is neither YAML nor JSON', said)

    def test_a_missing_file_is_named(self):
        said = str(self.assertRaises(inventory.InventoryError,
                                     inventory.load,
                                     os.path.join(self.tmp, 'none.yaml')))
        self.assertIn('none.yaml: cannot be read', said)
