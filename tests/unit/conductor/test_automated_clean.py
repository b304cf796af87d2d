"""A node's automated_clean overrides [conductor] automated_clean."""

import ddt

from ironic_steps.common import states
from tests import base


@ddt.ddt
class AutomatedCleanTest(base.ConductorTestCase):

    @ddt.data((None, True, True), (None, False, False), (True, False, True),
              (False, True, False))
    @ddt.unpack
    def test_the_node_decides_and_the_option_only_when_it_does_not(
            self, node_says, option_says, cleans):
        self.config(automated_clean=option_says, group='conductor')
        # The clean step fails if it runs: the end state tells whether
        # cleaning ran.
        node = self.create_node(
            automated_clean=node_says,
            driver_info={'fake_fail_step': 'deploy.erase_devices_metadata'})
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'provide')
        self.wait_for_state(node, states.CLEANFAIL if cleans
                            else states.AVAILABLE)
