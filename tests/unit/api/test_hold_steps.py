"""The reserved ``hold`` step and the ``unhold`` verb (API 1.85) in every
flow, through the API, the real conductor and SQLite."""

import datetime

from oslo_utils import timeutils

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

#: The version that brought unhold.
UNHOLD = '1.85'


def hold(interface='deploy', priority=90):
    return {'interface': interface, 'step': 'hold', 'priority': priority,
            'args': {}}


class HoldTest(base.ApiTestCase):

    def request(self, method, path, version=UNHOLD, **kwargs):
        return super().request(method, path, version=version, **kwargs)

    def held(self, node, state):
        held = self.wait_for_state(node, state)
        self.assertEqual('hold', getattr(held, {
            states.DEPLOYHOLD: 'deploy_step', states.CLEANHOLD: 'clean_step',
            states.SERVICEHOLD: 'service_step'}[state])['step'])
        self.assertIsNone(held.reservation)
        return held

    def steps_ran(self, node, flow):
        return [(entry.step, entry.outcome) for entry in
                objects.NodeStepHistory.list_by_node(self.context, node.id)
                if entry.flow == flow]

    def test_a_deploy_holds_until_unhold_then_goes_on(self):
        # Given a deploy asked to hold after deploy.deploy (priority 100)
        node = self.make_available(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'active', 'deploy_steps': [hold()]})
        self.assertEqual(202, response.status_code, response.data)
        # Then it holds, unlocked, its target still active
        held = self.held(node, states.DEPLOYHOLD)
        self.assertEqual(states.ACTIVE, held.target_provision_state)
        shown = self.get('/v1/nodes/node-1').get_json()
        self.assertEqual('deploy hold', shown['provision_state'])
        # When the operator lets it go
        self.assertEqual(202, self.provision('node-1', 'unhold').status_code)
        # Then it goes on with write_image at once (which waits for the
        # agent) and ends active
        waiting = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual('write_image', waiting.deploy_step['step'])
        self.agent_heartbeat(waiting)
        active = self.wait_for_state(node, states.ACTIVE)
        ran = self.steps_ran(active, 'deploy')
        self.assertLess(ran.index(('deploy', 'success')),
                        ran.index(('hold', 'success')))
        self.assertLess(ran.index(('hold', 'success')),
                        ran.index(('write_image', 'success')))

    def test_a_held_manual_cleaning_is_aborted_into_clean_failed(self):
        node = self.create_node(name='node-1')
        self.provision('node-1', 'manage')
        self.wait_for_state(node, states.MANAGEABLE)
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'clean_steps': [
                {'interface': 'power', 'step': 'hold'}]})
        self.assertEqual(202, response.status_code, response.data)
        self.held(node, states.CLEANHOLD)
        self.assertEqual(202, self.provision('node-1', 'abort').status_code)
        failed = self.wait_for_state(node, states.CLEANFAIL)
        self.assertIn('Cleaning aborted by request during step power.hold',
                      failed.last_error)
        self.assertEqual([('hold', 'aborted')],
                         self.steps_ran(failed, 'clean'))

    def test_a_held_servicing_is_unheld_back_to_active(self):
        node = self.make_active(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'service', 'service_steps': [
                {'interface': 'bios', 'step': 'hold'},
                {'interface': 'bios', 'step': 'factory_reset'}]},
            version='1.87')
        self.assertEqual(202, response.status_code, response.data)
        self.held(node, states.SERVICEHOLD)
        self.assertEqual(202, self.provision('node-1', 'unhold').status_code)
        active = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(active.last_error)
        self.assertEqual([('hold', 'success'), ('factory_reset', 'success')],
                         self.steps_ran(active, 'service'))

    def test_a_held_node_never_times_out(self):
        self.config(deploy_callback_timeout=1, group='conductor')
        node = self.make_available(name='node-1')
        self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'active', 'deploy_steps': [hold()]})
        held = self.held(node, states.DEPLOYHOLD)
        held.provision_updated_at = timeutils.utcnow() - datetime.timedelta(
            hours=1)
        held.save()
        self.manager.housekeeping.check_wait_timeouts(self.context)
        self.assertEqual(states.DEPLOYHOLD, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_unhold_needs_a_held_node(self):
        node = self.make_available(name='node-1')
        self.assertError(self.provision('node-1', 'unhold'), 400,
                         "'unhold'", "state 'available'")
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_before_1_85_there_is_no_unhold(self):
        self.make_available(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision',
                            json={'target': 'unhold'}, version='1.84')
        self.assertError(response, 406, "'unhold'", '1.85')


class PinnedHoldTest(base.ApiTestCase):

    def test_pinned_to_0_11_a_hold_is_refused_naming_the_release(self):
        node = self.make_available(name='node-1')
        self.config(pin_release_version='0.11')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'active', 'deploy_steps': [hold()]})
        self.assertError(response, 400, 'deploy.hold', 'release 0.12')
        after = objects.Node.get(self.context, node.uuid)
        self.assertEqual((states.AVAILABLE, None),
                         (after.provision_state, after.last_error))
