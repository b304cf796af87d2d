"""``abort`` from ``wait call-back`` (API 1.110) through the real API,
conductor and SQLite: refused below 1.110 as Ironic 39 refuses it, the
deploy stopped from it."""

import ddt

from ironic_steps.common import states
from tests.unit.api import base


@ddt.ddt
class AbortWaitingDeployTest(base.AheadOfTheLadderTestCase):

    def waiting_deploy(self, rebuild=False):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        if rebuild:
            self.agent_heartbeat(self.wait_for_state(node,
                                                     states.DEPLOYWAIT))
            self.wait_for_state(node, states.ACTIVE)
            self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=True)
        return self.wait_for_state(node, states.DEPLOYWAIT)

    @ddt.data('1.13', '1.95', '1.109')
    def test_below_1_110_it_is_406_as_ironic_and_nothing_changes(
            self, version):
        node = self.waiting_deploy()
        message = self.assertError(
            self.provision('node-1', 'abort', version=version), 406,
            'Request not acceptable.', 'wait call-back', '1.110', version)
        self.assertTrue(message.startswith('Request not acceptable.'))
        self.assertNodeUnchanged(node)

    @ddt.data(False, True)
    def test_from_1_110_it_stops_the_deploy_or_rebuild(self, rebuild):
        node = self.waiting_deploy(rebuild)
        response = self.provision('node-1', 'abort', version='1.110')
        self.assertEqual(202, response.status_code, response.data)
        failed = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertIn('aborted by request', failed.last_error)

    def test_an_abort_elsewhere_keeps_its_own_versions(self):
        # A clean waiting for its agent is aborted from 1.13, as before.
        node = self.create_node(name='node-1')
        self.provision('node-1', 'manage', version='1.13')
        self.wait_for_state(node, states.MANAGEABLE)
        self.assertEqual(202, self.put(
            '/v1/nodes/node-1/states/provision', json={
                'target': 'clean', 'clean_steps': [
                    {'interface': 'deploy', 'step': 'erase_devices'}]},
            version='1.15').status_code)
        self.wait_for_state(node, states.CLEANWAIT)
        self.assertEqual(202, self.provision('node-1', 'abort',
                                             version='1.15').status_code)
        self.wait_for_state(node, states.CLEANFAIL)
