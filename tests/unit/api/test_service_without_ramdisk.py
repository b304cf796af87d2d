"""Servicing with ``disable_ramdisk`` (API 1.108) through the real API,
conductor and SQLite, on an active node of the ``direct`` deploy (whose
servicing boots its agent otherwise), with the fake ironic-python-agent:
out-of-band steps run without booting the agent; a step that needs it is
refused before the node moves."""

from ironic_steps.common import states
from ironic_steps.drivers.modules import fake
from ironic_steps import objects
from tests.unit.api import base
from tests.unit.conductor import test_agent_heartbeat as direct

AT = '1.108'
BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Disabled'}]}}


class ServiceWithoutRamdiskTest(base.AheadOfTheLadderMixin,
                                base.ApiTestMixin,
                                direct.DirectDeployTestCase):

    def setUp(self):
        super().setUp()
        node = self.deploy_to_step('deploy.write_image', name='node-1')
        self.heartbeat(node)
        self.active = self.wait_for_state(node, states.ACTIVE)
        self.sent = len(self.ipa.sent())

    def service(self, steps, version=AT, **extra):
        return self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'service', 'service_steps': steps, **extra},
            version=version)

    def test_out_of_band_steps_run_without_booting_the_agent(self):
        response = self.service([BIOS], disable_ramdisk=True)
        self.assertEqual(202, response.status_code, response.data)
        done = self.wait_for_state(self.active, states.ACTIVE)
        self.assertIsNone(done.last_error)
        self.assertIn({'name': 'LogicalProc', 'value': 'Disabled'}, [
            {'name': s.name, 'value': s.value} for s in
            objects.BIOSSetting.list_by_node(self.context, done.id)])
        # The machine was not rebooted into the agent, which was asked
        # nothing; nothing of the flow is left behind
        self.assertEqual(self.active.driver_internal_info[fake.BOOTS_KEY],
                         done.driver_internal_info[fake.BOOTS_KEY])
        self.assertEqual('disk', done.driver_internal_info[
            'fake_boot_device'])
        self.assertEqual(self.sent, len(self.ipa.sent()))
        self.assertNotIn('agent_url', done.driver_internal_info)

    def test_without_it_the_same_request_boots_the_agent_and_waits(self):
        response = self.service([BIOS], disable_ramdisk=False)
        self.assertEqual(202, response.status_code, response.data)
        waiting = self.wait_for_state(self.active, states.SERVICEWAIT)
        self.assertEqual('pxe', waiting.driver_internal_info[
            'fake_boot_device'])

    def test_a_step_that_needs_the_agent_is_400_and_nothing_moves(self):
        for step, fragment in (
                ({'interface': 'deploy', 'step': 'wait'},
                 'needs the node booted into its agent'),
                ({'interface': 'deploy', 'step': 'erase_devices_metadata'},
                 'deploy.erase_devices_metadata')):
            self.assertError(self.service([BIOS, step],
                                          disable_ramdisk=True),
                             400, fragment)
            self.assertNodeUnchanged(self.active)

    def test_it_is_refused_406_below_1_108(self):
        self.assertError(self.service([BIOS], version='1.107',
                                      disable_ramdisk=True),
                         406, 'disable_ramdisk', AT)
        self.assertNodeUnchanged(self.active)
