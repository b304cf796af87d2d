"""An out-of-tree driver plugs in through entry points and deploys.

The driver is the package in ``examples/ironic-steps-example-driver``; it
must be installed next to ironic-steps (the test command does it).  When it
is missing, every test here fails saying how to install it: a skipped test
would hide that driver authors can no longer plug in.
"""

import importlib.metadata

from ironic_steps.common import states
from ironic_steps.conductor import steps
from ironic_steps.conductor import task_manager
from ironic_steps.drivers import base as drivers_base
from ironic_steps.drivers import driver_factory
from tests import base

DISTRIBUTION = 'ironic-steps-example-driver'
INSTALL_HINT = ('The example driver package %s is not installed; install it '
                'with: .venv/bin/pip install -e '
                'examples/ironic-steps-example-driver' % DISTRIBUTION)

#: The whole deploy plan of an example-hardware node: the example deploy
#: interface's steps first (100, 90), then those of the fake interfaces.
EXPECTED_PLAN = ['deploy.deploy', 'deploy.configure_firmware',
                 'management.set_instance_boot_device',
                 'boot.prepare_instance_boot', 'power.boot_instance']


def labels(plan):
    return [step.label for step in plan]


class ExampleDriverTest(base.ConductorTestCase):

    def setUp(self):
        super().setUp()
        try:
            importlib.metadata.distribution(DISTRIBUTION)
        except importlib.metadata.PackageNotFoundError:
            self.fail(INSTALL_HINT)
        self.config(enabled_hardware_types=['fake-hardware',
                                            'example-hardware'])

    def test_entry_points_make_the_example_hardware_type_available(self):
        # Given the example package installed and its type enabled
        # When the enabled hardware types are listed
        enabled = driver_factory.enabled_hardware_types()
        # Then the type found through its entry point is among them
        self.assertIn('example-hardware', enabled, INSTALL_HINT)
        hw_type = driver_factory.hardware_type('example-hardware')
        self.assertEqual(('example', 'fake'), hw_type.supported('deploy'))

    def test_new_node_gets_the_example_deploy_interface_by_default(self):
        # When a node is created with the example hardware type
        node = self.create_node(driver='example-hardware')
        # Then its deploy interface is the package's own, the rest fake
        self.assertEqual('example', node.deploy_interface)
        for interface_type in ('bios', 'boot', 'management', 'power',
                               'raid', 'vendor'):
            self.assertEqual('fake',
                             getattr(node, '%s_interface' % interface_type))

    def test_plan_orders_example_steps_before_the_fake_ones(self):
        # Given an example-hardware node
        node = self.create_node(driver='example-hardware')
        # When its deploy steps are planned
        with task_manager.acquire(self.context, node.uuid,
                                  shared=True) as task:
            plan = steps.plan(task, drivers_base.DEPLOY)
            offered = task.driver.deploy.get_deploy_steps(task)
        # Then they run from the highest priority to the lowest
        self.assertEqual(EXPECTED_PLAN, labels(plan))
        # And configure_firmware documents its arguments
        firmware = [s for s in offered if s['step'] == 'configure_firmware']
        self.assertEqual({'version', 'secure_boot'},
                         set(firmware[0]['argsinfo']))

    def test_providing_runs_the_example_clean_step(self):
        # When an example-hardware node is managed and provided
        node = self.make_available(driver='example-hardware')
        # Then automated cleaning ran the example clean step
        self.assertTrue(node.driver_internal_info['example_disks_wiped'])
        self.assertEqual(['wipe_disks'],
                         node.driver_internal_info['example_steps_run'])

    def test_deploy_runs_the_example_steps_in_priority_order_to_active(self):
        # Given an available example-hardware node with an image
        node = self.make_available(
            driver='example-hardware',
            instance_info={'image_source': 'http://images/example.qcow2'})
        # When it is deployed
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        # Then it becomes active without waiting for any agent
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)
        info = node.driver_internal_info
        # And the example steps ran, the higher priority first
        self.assertEqual(['wipe_disks', 'deploy', 'configure_firmware'],
                         info['example_steps_run'])
        self.assertTrue(info['example_image_written'])
        self.assertEqual('http://images/example.qcow2',
                         info['example_image_source'])
        self.assertEqual({'version': 'latest', 'secure_boot': True},
                         info['example_firmware'])
        # And the fake interfaces' steps ran after them
        self.assertEqual('disk', info['fake_boot_device'])
        self.assertEqual(states.POWER_ON, node.power_state)
        # And the deploy bookkeeping is gone
        self.assertEqual({}, node.deploy_step)
        self.assertNotIn('deploy_steps', info)
