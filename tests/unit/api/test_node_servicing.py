"""Servicing (API 1.87) through the API, the real conductor and SQLite:
an active node runs the operator's service steps and is active again."""

import time

import ddt

from ironic_steps.common import states
from ironic_steps.drivers.modules import fake
from ironic_steps import objects
from tests.unit.api import base

BIOS = {'interface': 'bios', 'step': 'apply_configuration',
        'args': {'settings': [{'name': 'LogicalProc', 'value': 'Disabled'}]}}
FACTORY_RESET = {'interface': 'bios', 'step': 'factory_reset'}
#: The version that brought servicing.
SERVICE = '1.87'


def wait_step(seconds=30):
    return {'interface': 'deploy', 'step': 'wait',
            'args': {'seconds': seconds}}


@ddt.ddt
class ServicingTest(base.ApiTestCase):

    conductor_config = {'conductor': {'step_poll_interval': 0.5}}

    def service(self, steps, version=SERVICE, ident='node-1', **extra):
        return self.put('/v1/nodes/%s/states/provision' % ident, json={
            'target': 'service', 'service_steps': steps, **extra},
            version=version)

    def history(self, node):
        return [(entry.flow, '%s.%s' % (entry.interface, entry.step),
                 entry.outcome) for entry in
                objects.NodeStepHistory.list_by_node(self.context, node.id)]

    def test_an_active_node_runs_its_service_steps_and_is_active_again(self):
        # Given a deployed node
        node = self.make_active(name='node-1')
        # When the operator services it with a BIOS change
        response = self.service([BIOS])
        self.assertEqual(202, response.status_code, response.data)
        # Then the change is made and the node is active again, its
        # instance untouched and no step left on it
        done = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(done.last_error)
        self.assertEqual(BIOS['args']['settings'],
                         done.driver_internal_info['fake_bios_settings'])
        self.assertEqual(node.instance_info, done.instance_info)
        self.assertEqual({}, done.service_step)
        self.assertNotIn('service_steps', done.driver_internal_info)
        self.assertIn(('service', 'bios.apply_configuration', 'success'),
                      self.history(done))
        shown = self.get('/v1/nodes/node-1', version=SERVICE).get_json()
        self.assertEqual({}, shown['service_step'])

    def test_the_steps_run_in_the_order_given(self):
        node = self.make_active(name='node-1')
        self.assertEqual(202, self.service([FACTORY_RESET, BIOS]).status_code)
        done = self.wait_for_state(node, states.ACTIVE)
        ran = [step for flow, step, _ in self.history(done)
               if flow == 'service']
        self.assertEqual(['bios.factory_reset', 'bios.apply_configuration'],
                         ran)

    @ddt.data(
        ([{'interface': 'bios', 'step': 'no_such_step'}],
         'bios.no_such_step'),
        ([{'interface': 'raid', 'step': 'apply_configuration'}],
         'raid.apply_configuration'),
        ([dict(BIOS, args={'settings': [], 'colour': 'red'})], 'colour'),
        ([{'interface': 'vendor', 'step': 'send_raw'}], 'vendor.send_raw'),
        ([], 'service_steps must be a non-empty list'),
        ('bios.factory_reset', 'service_steps must be a non-empty list'),
    )
    @ddt.unpack
    def test_a_step_that_cannot_run_is_400_and_nothing_changes(
            self, steps, fragment):
        node = self.make_active(name='node-1')
        self.assertError(self.service(steps), 400, fragment)
        after = objects.Node.get(self.context, node.uuid)
        self.assertEqual((states.ACTIVE, None, node.service_step),
                         (after.provision_state, after.last_error,
                          after.service_step))
        self.assertEqual(node.driver_internal_info,
                         after.driver_internal_info)

    def test_a_step_the_operator_disallows_is_refused_naming_the_option(self):
        self.config(disallow_service_steps=['bios.factory_reset'],
                    group='api')
        node = self.make_active(name='node-1')
        self.assertError(self.service([BIOS, FACTORY_RESET]), 400,
                         'bios.factory_reset',
                         '[api] disallow_service_steps')
        self.assertEqual(states.ACTIVE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_a_runbook_names_the_service_steps_of_a_node_it_is_for(self):
        node = self.make_active(name='node-1')
        runbook = {'name': 'CUSTOM_NO_HT', 'steps': [dict(BIOS, order=0)]}
        self.assertEqual(201, self.post('/v1/runbooks', json=runbook,
                                        version='1.92').status_code)
        # Not one of the node's traits yet: refused, nothing moves.
        self.assertError(self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'service', 'runbook': 'CUSTOM_NO_HT'},
            version='1.92'), 400, 'CUSTOM_NO_HT')
        self.put('/v1/nodes/node-1/traits/CUSTOM_NO_HT', version='1.92')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'service', 'runbook': 'CUSTOM_NO_HT'}, version='1.92')
        self.assertEqual(202, response.status_code, response.data)
        done = self.wait_for_state(node, states.ACTIVE)
        self.assertIn(('service', 'bios.apply_configuration', 'success'),
                      self.history(done))
        # A runbook and service steps together name the steps twice.
        self.assertError(self.service([BIOS], version='1.92',
                                      runbook='CUSTOM_NO_HT'), 400,
                         'either a runbook or service_steps')

    def test_service_steps_are_required(self):
        self.make_active(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision',
                            json={'target': 'service'}, version=SERVICE)
        self.assertError(response, 400, 'target service needs service_steps')

    def test_only_an_active_node_is_serviced(self):
        node = self.make_available(name='node-1')
        self.assertError(self.service([BIOS]), 400, "'service'",
                         "state 'available'")
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_before_1_87_there_is_no_servicing(self):
        self.make_active(name='node-1')
        self.assertError(self.service([BIOS], version='1.86'), 406,
                         "'service'", '1.87')
        shown = self.get('/v1/nodes/node-1', version='1.86').get_json()
        self.assertNotIn('service_step', shown)

    def test_disable_ramdisk_waits_for_api_1_108(self):
        node = self.make_active(name='node-1')
        self.assertError(self.service([BIOS], disable_ramdisk=True), 406,
                         'disable_ramdisk', '1.108')
        self.assertEqual(states.ACTIVE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_a_failed_step_leaves_service_failed_which_abort_ends(self):
        # Given an active node whose BIOS change fails
        node = self.make_active(name='node-1', driver_info={
            fake.FAIL_STEP_KEY: 'bios.apply_configuration'})
        self.assertEqual(202, self.service([BIOS]).status_code)
        failed = self.wait_for_state(node, states.SERVICEFAIL)
        self.assertIn('bios.apply_configuration', failed.last_error)
        self.assertEqual('apply_configuration', failed.service_step['step'])
        self.assertIsNone(failed.target_provision_state)
        # When the operator aborts it
        self.assertEqual(202, self.provision('node-1', 'abort').status_code)
        # Then the node is active again, the failure kept as its record
        active = self.wait_for_state(node, states.ACTIVE)
        self.assertIn('bios.apply_configuration', active.last_error)
        self.assertEqual({}, active.service_step)
        self.assertIsNone(active.target_provision_state)

    def test_a_failed_give_back_after_abort_puts_the_node_in_maintenance(
            self):
        # Given a failed servicing whose machine cannot be given back to
        # its instance
        node = self.make_active(name='node-1', driver_info={
            fake.FAIL_STEP_KEY: 'bios.apply_configuration'})
        self.service([BIOS])
        self.wait_for_state(node, states.SERVICEFAIL)
        self.patch('/v1/nodes/node-1', json=[{
            'op': 'replace', 'path': '/driver_info/%s' % fake.FAIL_STEP_KEY,
            'value': 'deploy.tear_down_service'}])
        # When the operator aborts it
        self.assertEqual(202, self.provision('node-1', 'abort').status_code)
        # Then the node is active but in maintenance, saying why
        for _ in range(100):
            active = objects.Node.get(self.context, node.uuid)
            if active.maintenance:
                break
            time.sleep(0.05)
        self.assertEqual(states.ACTIVE, active.provision_state)
        self.assertTrue(active.maintenance)
        self.assertIn('giving the machine back to its instance failed',
                      active.last_error)
        self.assertIn('deploy.tear_down_service', active.maintenance_reason)
        self.assertIsNone(active.reservation)

    def test_a_failed_servicing_may_be_serviced_again(self):
        node = self.make_active(name='node-1', driver_info={
            fake.FAIL_STEP_KEY: 'bios.apply_configuration'})
        self.service([BIOS])
        self.wait_for_state(node, states.SERVICEFAIL)
        self.assertEqual(202, self.service([FACTORY_RESET]).status_code)
        done = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(done.last_error)

    def test_a_waiting_servicing_is_aborted_into_service_failed(self):
        node = self.make_active(name='node-1')
        self.assertEqual(202, self.service([wait_step()]).status_code)
        waiting = self.wait_for_state(node, states.SERVICEWAIT)
        self.assertEqual('wait', waiting.service_step['step'])
        self.assertIsNone(waiting.reservation)
        self.assertEqual(202, self.provision('node-1', 'abort').status_code)
        failed = self.wait_for_state(node, states.SERVICEFAIL)
        self.assertIn('Servicing aborted by request during step deploy.wait',
                      failed.last_error)
        self.assertIn(('service', 'deploy.wait', 'aborted'),
                      self.history(failed))

    def test_a_wait_step_goes_on_after_its_seconds(self):
        node = self.make_active(name='node-1')
        self.assertEqual(202, self.service([wait_step(1), BIOS]).status_code)
        done = self.wait_for_state(node, states.ACTIVE, timeout=15)
        self.assertEqual(
            [('service', 'deploy.wait', 'success'),
             ('service', 'bios.apply_configuration', 'success')],
            [entry for entry in self.history(done) if entry[0] == 'service'])

    def test_the_preview_shows_a_servicing(self):
        self.make_active(name='node-1')
        response = self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'service', 'service_steps': [BIOS]})
        self.assertEqual(200, response.status_code, response.data)
        preview = response.get_json()
        self.assertEqual([], preview['errors'])
        self.assertEqual([('bios', 'apply_configuration', 'user')],
                         [(s['interface'], s['step'], s['source'])
                          for s in preview['steps']])

    def test_the_preview_of_a_servicing_names_a_wrong_state(self):
        self.make_available(name='node-1')
        preview = self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'service', 'service_steps': [BIOS]}).get_json()
        self.assertIn("state 'available'", ' '.join(preview['errors']))

    def test_the_step_history_filters_servicing(self):
        node = self.make_active(name='node-1')
        self.service([BIOS])
        self.wait_for_state(node, states.ACTIVE)
        response = self.get('/v1/nodes/node-1/x-steps/history?flow=service')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(['apply_configuration'],
                         [entry['step'] for entry in
                          response.get_json()['history']])


class PinnedServicingTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.make_active(name='node-1')
        self.config(pin_release_version='0.11')

    def test_pinned_to_0_11_the_api_has_no_servicing(self):
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'service', 'service_steps': [BIOS]}, version='1.87')
        self.assertEqual(406, response.status_code)
        self.assertNotIn('service_step',
                         self.get('/v1/nodes/node-1').get_json())

    def test_pinned_to_0_11_the_conductor_refuses_it(self):
        self.assertRaisesRegex(
            Exception, 'Servicing needs release 0.12',
            self.rpcapi.do_node_service, self.context, self.node.uuid,
            [BIOS])
        self.assertEqual(states.ACTIVE, objects.Node.get(
            self.context, self.node.uuid).provision_state)

    def test_pinned_to_0_11_a_servicing_is_not_previewed(self):
        response = self.post('/v1/nodes/node-1/x-steps/preview', json={
            'flow': 'service', 'service_steps': [BIOS]})
        self.assertError(response, 406, 'release 0.12')
