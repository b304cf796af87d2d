"""Reserved steps (power_on, power_off, reboot, wait) through the API, the
real conductor, its poller and the database."""

import ddt

from ironic_steps.common import states
from ironic_steps.common import step_kinds
from ironic_steps.conductor import reserved_steps
from ironic_steps import objects
from tests.unit.api import base


def reserved(name, interface='power', priority=90, **args):
    return {'interface': interface, 'step': name, 'priority': priority,
            'args': args}


def history(context, node):
    return objects.NodeStepHistory.list_by_node(context, node.id)


@ddt.ddt
class ReservedStepsTest(base.ApiTestCase):

    # Checks of polled steps (a reserved wait is one) looked for every 0.1 s.
    conductor_config = {'conductor': {'step_poll_interval': 0.5}}

    def deploy(self, ident, steps, version=base.LATEST):
        return self.put('/v1/nodes/%s/states/provision' % ident,
                        json={'target': 'active', 'deploy_steps': steps},
                        version=version)

    def deploy_to_active(self, node, steps):
        self.assertEqual(202, self.deploy(node.uuid, steps).status_code)
        return self.finish_deploy(node)

    def finish_deploy(self, node):
        """Heartbeat once write_image waits for the agent; the node
        active."""
        while True:
            waiting = self.wait_for_state(node, states.DEPLOYWAIT)
            if waiting.deploy_step.get('step') == 'write_image':
                break
        self.agent_heartbeat(waiting)
        return self.wait_for_state(node, states.ACTIVE)

    def test_power_steps_run_on_any_interface_in_priority_order(self):
        node = self.make_available(name='node-1')
        active = self.deploy_to_active(node, [
            reserved('reboot', interface='management', priority=90),
            reserved('power_off', priority=10)])
        ran = ['%s.%s' % (e.interface, e.step)
               for e in history(self.context, active)]
        self.assertLess(ran.index('management.reboot'),
                        ran.index('deploy.write_image'))
        self.assertEqual('power.power_off', ran[-1])
        # power_off ran after boot_instance: the node is active and off.
        self.assertEqual(states.POWER_OFF, active.power_state)
        before = node.driver_internal_info.get('fake_boots', 0)
        # deploy.deploy booted the machine once and the reboot once more
        # (boot_instance found it on): one boot more than a plain deploy.
        self.assertEqual(before + 2, active.driver_internal_info['fake_boots'])

    def test_a_wait_parks_the_node_unlocked_for_at_least_its_seconds(self):
        node = self.make_available(name='node-1')
        self.assertEqual(202, self.deploy(node.uuid, [
            reserved('wait', interface='deploy', seconds=1)]).status_code)
        parked = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual('wait', parked.deploy_step['step'])
        self.assertIsNone(parked.reservation)
        active = self.finish_deploy(node)
        (wait,) = [e for e in history(self.context, active)
                   if e.step == 'wait']
        self.assertEqual('success', wait.outcome)
        self.assertGreaterEqual(wait.duration, 1.0)

    def test_an_abort_stops_a_waiting_clean(self):
        node = self.create_node(name='node-1')
        self.provision('node-1', 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'clean', 'clean_steps': [
                {'interface': 'deploy', 'step': 'wait',
                 'args': {'seconds': 30}}]})
        self.assertEqual(202, response.status_code, response.data)
        parked = self.wait_for_state(node, states.CLEANWAIT)
        self.assertTrue(parked.clean_step['abortable'])
        self.assertEqual(202, self.provision('node-1', 'abort').status_code)
        failed = self.wait_for_state(node, states.CLEANFAIL)
        self.assertIn('aborted by request during step deploy.wait',
                      failed.last_error)

    @ddt.data(
        (reserved('wait', seconds=0), 'seconds must be an integer from 1'),
        (reserved('wait', seconds=31), 'max_conductor_wait_step_seconds'),
        (reserved('wait', seconds='5'), 'seconds must be an integer'),
        (reserved('wait'), 'has no agent: give seconds'),
        (reserved('power_off', force=True), 'does not take argument(s) force'),
        (reserved('reboot', interface='psu'), "'psu' is no interface"),
    )
    @ddt.unpack
    def test_a_bad_reserved_step_is_400_and_nothing_changes(
            self, step, fragment):
        node = self.make_available(name='node-1')
        self.assertError(self.deploy('node-1', [step]), 400, fragment)
        self.assertNodeUnchanged(node)

    def test_the_preview_shows_them_from_the_user(self):
        self.make_available(name='node-1')
        response = self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'deploy', 'deploy_steps': [reserved('reboot')]})
        self.assertEqual(200, response.status_code, response.data)
        shown = [(s['interface'], s['step'], s['source'])
                 for s in response.get_json()['steps']]
        self.assertIn(('power', 'reboot', 'user'), shown)

    def test_pinned_to_the_release_before_they_are_unknown_steps(self):
        self.config(pin_release_version='0.8')
        self.make_client()
        node = self.make_available(name='node-1')
        self.assertError(self.deploy('node-1', [reserved('power_off')]),
                         400, 'offers no deploy step power.power_off')
        self.assertNodeUnchanged(node)

    def test_every_reserved_name_is_run(self):
        self.assertEqual(step_kinds.RESERVED_STEP_NAMES,
                         reserved_steps.NAMES)
