"""Provision actions (PUT /v1/nodes/{node}/states/provision) and heartbeats."""

import json
import logging

import ddt
import fixtures

from ironic_steps.common import states
from ironic_steps.db import api as db_api
from ironic_steps import objects
from tests.unit.api import base


class ProvisionTest(base.ApiTestCase):

    def assertAccepted(self, response, node):
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual(b'', response.data)
        self.assertEqual('http://localhost/v1/nodes/%s/states' % node.uuid,
                         response.headers['Location'])

    def deploy_to_wait(self, node):
        self.assertAccepted(self.provision(node.name, 'active'), node)
        return self.wait_for_state(node, states.DEPLOYWAIT)

    def test_manage_then_provide_makes_a_new_node_available(self):
        node = self.create_node(name='node-1')
        self.assertAccepted(self.provision('node-1', 'manage'), node)
        self.wait_for_state(node, states.MANAGEABLE)
        self.assertAccepted(self.provision(node.uuid, 'provide'), node)
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertEqual(states.POWER_OFF, node.power_state)

    def test_active_deploys_to_the_agent_wait_and_a_heartbeat_finishes(self):
        node = self.deploy_to_wait(self.make_available(name='node-1'))
        self.assertEqual('write_image', node.deploy_step['step'])
        response = self.post('/v1/heartbeat/%s' % node.uuid, json={
            'callback_url': 'http://127.0.0.1:9999', 'agent_version': '9.0',
            'agent_token': self.lookup_token(node.uuid)}, version='1.62')
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual({}, node.deploy_step)

    def test_rebuild_redeploys_an_active_node(self):
        node = self.deploy_to_wait(self.make_available(name='node-1'))
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        self.assertAccepted(self.provision('node-1', 'rebuild'), node)
        self.wait_for_state(node, states.DEPLOYWAIT)

    def test_deleted_tears_an_active_node_down_to_available(self):
        node = self.deploy_to_wait(self.make_available(name='node-1'))
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        self.assertAccepted(self.provision('node-1', 'deleted'), node)
        self.wait_for_state(node, states.AVAILABLE)

    def test_an_action_not_allowed_in_the_state_is_400_naming_both(self):
        node = self.create_node(name='node-1')
        response = self.provision('node-1', 'active')
        self.assertError(response, 400, "'deploy'", "'enroll'", 'manage')
        self.assertEqual(states.ENROLL, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_active_is_refused_on_a_deployed_node_rather_than_a_rebuild(self):
        node = self.deploy_to_wait(self.make_available(name='node-1'))
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        self.assertError(self.provision('node-1', 'active'), 400,
                         "'deploy'", "'active'", 'rebuild')

    def test_rebuild_is_refused_on_an_available_node(self):
        self.make_available(name='node-1')
        self.assertError(self.provision('node-1', 'rebuild'), 400,
                         "'rebuild'", "'available'")

    def test_an_unknown_target_is_400_listing_the_valid_ones(self):
        self.create_node(name='node-1')
        response = self.provision('node-1', 'verify')
        self.assertError(response, 400, 'verify', 'manage', 'provide',
                         'active', 'rebuild', 'deleted', 'inspect', 'adopt',
                         'rescue', 'unrescue')

    def test_unknown_body_keys_are_400(self):
        self.create_node(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision',
                            json={'target': 'manage', 'configdrive': 'x'})
        self.assertError(response, 400, 'configdrive')

    def test_an_action_on_an_unknown_node_is_404(self):
        self.assertError(self.provision('no-such-node', 'manage'), 404,
                         'no-such-node')
        # A UUID goes to the conductor unread; its answer is the same.
        missing = '0b6a9d3e-54c1-4e7b-8f2a-9c1d3e5f7a20'
        for target in ('manage', 'active', 'deleted', 'abort'):
            self.assertError(self.provision(missing.upper(), target), 404,
                             missing)

    def test_states_shows_where_a_node_is_going(self):
        node = self.deploy_to_wait(self.make_available(name='node-1'))
        body = self.get('/v1/nodes/node-1/states').get_json()
        self.assertEqual(states.DEPLOYWAIT, body['provision_state'])
        self.assertEqual(states.ACTIVE, body['target_provision_state'])
        self.assertEqual(node.provision_updated_at.isoformat(),
                         body['provision_updated_at'])


class AdoptTest(base.ApiTestCase):

    def manageable(self):
        node = self.make_available(name='node-1')
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        return self.wait_for_state(node, states.MANAGEABLE)

    def test_adopt_makes_a_manageable_node_active(self):
        node = self.manageable()
        response = self.put('/v1/nodes/node-1/states/provision',
                            version='1.17', json={'target': 'adopt'})
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.ACTIVE)

    def test_adopt_is_a_target_from_1_17(self):
        node = self.manageable()
        response = self.put('/v1/nodes/node-1/states/provision',
                            version='1.16', json={'target': 'adopt'})
        self.assertError(response, 406, 'adopt', '1.17')
        self.assertEqual(states.MANAGEABLE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_adopt_from_another_state_is_refused_naming_it(self):
        self.make_available(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision',
                            version='1.17', json={'target': 'adopt'})
        self.assertError(response, 400, "'available'", 'adopt')

    def test_pinned_before_0_11_adopt_is_refused(self):
        node = self.manageable()
        self.config(pin_release_version='0.10')
        response = self.put('/v1/nodes/node-1/states/provision',
                            version='1.17', json={'target': 'adopt'})
        self.assertError(response, 406, 'adopt', '0.11', '0.10')
        self.assertEqual(states.MANAGEABLE, objects.Node.get(
            self.context, node.uuid).provision_state)


class RescueTest(base.ApiTestCase):

    def active(self):
        self.config(agent_delay=0, group='fake')
        node = self.make_available(name='node-1', rescue_interface='fake')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        return self.wait_for_state(node, states.ACTIVE)

    def provision(self, body, version='1.38'):
        return self.put('/v1/nodes/node-1/states/provision', version=version,
                        json=body)

    def test_rescue_and_unrescue_the_password_never_shown(self):
        node = self.active()
        response = self.provision({'target': 'rescue',
                                   'rescue_password': 'pa55-word'})
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.RESCUE)
        shown = self.get('/v1/nodes/node-1', version='latest').get_json()
        self.assertEqual('rescue', shown['provision_state'])
        self.assertNotIn('pa55-word', json.dumps(shown))
        self.assertEqual('******',
                         shown['instance_info']['rescue_password'])
        response = self.provision({'target': 'unrescue'})
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.ACTIVE)

    def test_rescue_needs_its_password_and_only_it_takes_one(self):
        self.active()
        self.assertError(self.provision({'target': 'rescue'}), 400,
                         'rescue_password')
        self.assertError(self.provision({'target': 'unrescue',
                                         'rescue_password': 'x'}), 400,
                         'rescue_password', 'unrescue')

    def test_the_password_reaches_no_log_and_a_bad_one_changes_nothing(
            self):
        node = self.active()
        logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        for bad in (None, '', '   ', {'password': 'x'}, ['x'], 42):
            response = self.provision({'target': 'rescue',
                                       'rescue_password': bad})
            self.assertError(response, 400, 'rescue_password')
            stored = objects.Node.get(self.context, node.uuid)
            self.assertEqual(states.ACTIVE, stored.provision_state)
            self.assertNotIn('rescue_password', stored.instance_info)
        self.provision({'target': 'rescue',
                        'rescue_password': 'n0t-in-any-log'})
        self.wait_for_state(node, states.RESCUE)
        self.assertNotIn('n0t-in-any-log', logs.output)

    def test_rescue_is_a_target_from_1_38(self):
        self.active()
        response = self.provision({'target': 'rescue',
                                   'rescue_password': 'x'}, version='1.37')
        self.assertError(response, 406, 'rescue', '1.38')
        self.assertError(self.provision({'target': 'unrescue'},
                                        version='1.37'), 406, 'unrescue')


@ddt.ddt
class HeartbeatTest(base.ApiTestCase):

    def deploy_to_wait(self):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        return self.wait_for_state(node, states.DEPLOYWAIT)

    def test_a_heartbeat_with_the_looked_up_token_resumes_the_deploy(self):
        node = self.deploy_to_wait()
        response = self.post('/v1/heartbeat/node-1', version='1.62', json={
            'agent_token': self.lookup_token(node.uuid)})
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.ACTIVE)

    @ddt.data(None, 'not-the-token', '', '******')
    def test_a_heartbeat_without_the_token_is_refused_and_changes_nothing(
            self, token):
        node = self.deploy_to_wait()
        self.lookup_token(node.uuid)
        data = {} if token is None else {'agent_token': token}
        response = self.post('/v1/heartbeat/node-1', version='1.62',
                             json=data)
        self.assertError(response, 400, 'Invalid or missing agent token')
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.DEPLOYWAIT, stored.provision_state)
        self.assertEqual(node.deploy_step, stored.deploy_step)
        self.assertEqual(node.provision_updated_at,
                         stored.provision_updated_at)
        self.assertIsNone(stored.reservation)

    def test_a_wrong_token_is_refused_before_the_lock_is_looked_at(self):
        # Given a waiting node whose lock another operation holds
        node = self.deploy_to_wait()
        self.lookup_token(node.uuid)
        db_api.get_instance().reserve_node('another-operation', node.uuid)
        # When a heartbeat comes with a wrong token
        response = self.post('/v1/heartbeat/node-1', version='1.62',
                             json={'agent_token': 'not-the-token'})
        # Then it is refused as such (not 409: the lock was never tried)
        # and the lock is still the other operation's
        self.assertError(response, 400, 'Invalid or missing agent token')
        self.assertEqual('another-operation', objects.Node.get(
            self.context, node.uuid).reservation)

    def test_a_token_this_conductor_does_not_know_is_read_and_accepted(self):
        # Given a token handed out by another conductor (stored on the
        # node, unknown here)
        node = self.deploy_to_wait()
        stored = objects.Node.get(self.context, node.uuid)
        stored.driver_internal_info = dict(stored.driver_internal_info,
                                           agent_secret_token='t' * 43)
        stored.save()
        # Then a heartbeat with it resumes the deploy
        response = self.post('/v1/heartbeat/node-1', version='1.62',
                             json={'agent_token': 't' * 43})
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.ACTIVE)

    def test_a_heartbeat_before_any_lookup_is_refused(self):
        node = self.deploy_to_wait()
        self.assertError(self.post('/v1/heartbeat/node-1'), 400,
                         'agent token')
        self.assertEqual(states.DEPLOYWAIT, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_the_token_is_handed_out_once_and_never_shown_on_the_node(self):
        node = self.deploy_to_wait()
        token = self.lookup_token(node.uuid)
        self.assertGreaterEqual(len(token), 32)
        self.assertEqual('******', self.lookup_token(node.uuid))
        shown = self.get('/v1/nodes/node-1').get_json()
        self.assertNotIn(token, str(shown))
        self.assertEqual('******', shown['driver_internal_info'][
            'agent_secret_token'])
        looked_up = self.get('/v1/lookup?node_uuid=%s' % node.uuid,
                             version='latest').get_json()
        self.assertNotIn(token, str(looked_up))

    def test_the_token_is_forgotten_when_the_flow_ends(self):
        node = self.deploy_to_wait()
        token = self.lookup_token(node.uuid)
        self.post('/v1/heartbeat/node-1', version='1.62',
                  json={'agent_token': token})
        done = self.wait_for_state(node, states.ACTIVE)
        self.assertNotIn('agent_secret_token', done.driver_internal_info)
        late = self.post('/v1/heartbeat/node-1', version='1.62',
                         json={'agent_token': token})
        self.assertError(late, 400, 'agent token')

    def test_a_lookup_below_1_62_hands_no_token_out(self):
        node = self.deploy_to_wait()
        response = self.get('/v1/lookup?node_uuid=%s' % node.uuid,
                            version='1.61')
        self.assertEqual(200, response.status_code, response.data)
        self.assertNotIn('agent_token', response.get_json()['config'])
        self.assertEqual(node.uuid, response.get_json()['node']['uuid'])
        self.assertGreaterEqual(len(self.lookup_token(node.uuid)), 32)

    def test_a_node_no_agent_serves_cannot_be_looked_up(self):
        node = self.create_node(name='node-1')
        self.assertError(self.get('/v1/lookup?node_uuid=%s' % node.uuid,
                                  version='latest'), 404, node.uuid)
        self.assertError(self.get('/v1/lookup', version='latest'), 400,
                         'node_uuid')
        self.assertError(self.get('/v1/lookup?node_uuid=x',
                                  version='latest'), 400, 'node_uuid')

    def test_a_heartbeat_from_a_node_with_nothing_to_resume_needs_a_token(
            self):
        self.create_node(name='node-1')
        self.assertError(self.post('/v1/heartbeat/node-1'), 400,
                         'agent token')

    def test_agent_token_is_accepted_from_1_62(self):
        self.create_node(name='node-1')
        response = self.post('/v1/heartbeat/node-1', version='1.61',
                             json={'agent_token': 'x'})
        self.assertError(response, 406, 'agent_token', '1.62')

    def test_a_heartbeat_for_an_unknown_node_is_404(self):
        self.assertError(self.post('/v1/heartbeat/no-such-node'), 404,
                         'no-such-node')

    def test_a_heartbeat_for_a_uuid_no_node_has_is_404_naming_it(self):
        # The API passes a UUID on unread: the conductor's answer counts.
        missing = '0b0e4f0a-7a4b-4c3e-9a49-3f3a8b1c2d10'
        self.assertError(self.post('/v1/heartbeat/%s' % missing.upper(),
                                   json={'agent_token': 'x'}), 404, missing)

    def test_the_endpoint_exists_from_1_22(self):
        self.create_node(name='node-1')
        self.assertError(self.post('/v1/heartbeat/node-1', version='1.21'),
                         404, '1.22')

    def test_agent_version_is_accepted_from_1_36(self):
        self.create_node(name='node-1')
        response = self.post('/v1/heartbeat/node-1', version='1.35',
                             json={'agent_version': '9.0'})
        self.assertError(response, 406, 'agent_version', '1.36')

    @ddt.data('agent_status', 'agent_status_message')
    def test_agent_status_is_accepted_from_1_72(self, key):
        self.create_node(name='node-1')
        response = self.post('/v1/heartbeat/node-1', version='1.71',
                             json={key: 'end'})
        self.assertError(response, 406, key, '1.72')

    def test_an_agent_status_is_logged_and_the_heartbeat_goes_on(self):
        logged = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        node = self.deploy_to_wait()
        response = self.post('/v1/heartbeat/%s' % node.uuid, json={
            'callback_url': 'http://127.0.0.1:9999',
            'agent_token': self.lookup_token(node.uuid),
            'agent_status': 'error', 'agent_status_message': 'no disk'},
            version='1.72')
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.ACTIVE)
        self.assertIn('reports status error: no disk', logged.output)

    def test_a_status_without_the_token_is_refused_and_not_logged(self):
        logged = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        node = self.deploy_to_wait()
        self.lookup_token(node.uuid)
        node = objects.Node.get(self.context, node.uuid)
        response = self.post('/v1/heartbeat/%s' % node.uuid, json={
            'agent_token': 'not-the-token', 'agent_status': 'error',
            'agent_status_message': 'forged\nCRITICAL fake line'},
            version='1.72')
        self.assertError(response, 400, 'agent token')
        self.assertNodeUnchanged(node)
        self.assertNotIn('forged', logged.output)

    def test_a_status_message_cannot_forge_log_lines(self):
        logged = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        node = self.deploy_to_wait()
        response = self.post('/v1/heartbeat/%s' % node.uuid, json={
            'agent_token': self.lookup_token(node.uuid),
            'agent_status': 'error',
            'agent_status_message': 'disk\nCRITICAL fake line' + 'x' * 900},
            version='1.72')
        self.assertEqual(202, response.status_code, response.data)
        self.assertIn('disk\\nCRITICAL fake line', logged.output)
        self.assertNotIn('\nCRITICAL fake line', logged.output)
        self.assertNotIn('x' * 600, logged.output)

    @ddt.data({'callback_url': 5}, {'agent_token': 5}, {'token': 'x'},
              ['x'], {'agent_status': 'done'}, {'agent_status': 1},
              {'agent_status_message': ['x']})
    def test_a_bad_body_is_400(self, data):
        self.create_node(name='node-1')
        self.assertError(self.post('/v1/heartbeat/node-1', json=data,
                                   version='1.72'), 400)


@ddt.ddt
class RequestedStepsTest(base.ApiTestCase):

    BIOS = {'interface': 'bios', 'step': 'apply_configuration',
            'priority': 95, 'args': {'settings': [
                {'name': 'LogicalProc', 'value': 'Enabled'}]}}

    def provision_with(self, ident, version='1.69', **request_body):
        return self.put('/v1/nodes/%s/states/provision' % ident,
                        json=request_body, version=version)

    def test_active_with_deploy_steps_runs_them(self):
        node = self.make_available(name='node-1')
        response = self.provision_with('node-1', target='active',
                                       deploy_steps=[self.BIOS])
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(self.BIOS['args']['settings'],
                         node.driver_internal_info['fake_bios_settings'])
        self.assertIn(dict(self.BIOS, argsinfo=node.driver_internal_info[
            'deploy_steps'][1]['argsinfo']),
            node.driver_internal_info['deploy_steps'])

    @ddt.data(
        ([dict(BIOS, args={})], 'needs argument(s) settings'),
        ([dict(BIOS, step='apply')], 'offers no deploy step bios.apply'),
        ([dict(BIOS, args={'settings': [], 'reset': True})],
         'does not take argument(s) reset'),
        ([dict(BIOS, priority=-3)], 'priority'),
        ('bios', 'deploy_steps must be a list'),
    )
    @ddt.unpack
    def test_a_bad_step_is_400_naming_it_and_changes_nothing(
            self, steps, fragment):
        node = self.make_available(name='node-1')
        response = self.provision_with('node-1', target='active',
                                       deploy_steps=steps)
        self.assertError(response, 400, fragment)
        self.assertNodeUnchanged(node)

    def test_deploy_steps_exist_from_1_69_and_only_with_deploy_targets(self):
        node = self.make_available(name='node-1')
        self.assertError(self.provision_with(
            'node-1', version='1.68', target='active',
            deploy_steps=[self.BIOS]), 406, 'deploy_steps', '1.69')
        self.assertError(self.provision_with(
            'node-1', target='manage', deploy_steps=[self.BIOS]), 400,
            'deploy_steps', "'manage'")
        self.assertNodeUnchanged(node)

    def test_rebuild_with_deploy_steps(self):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        self.wait_for_state(node, states.ACTIVE)
        response = self.provision_with('node-1', target='rebuild',
                                       deploy_steps=[self.BIOS])
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertIn('fake_bios_settings', node.driver_internal_info)

    def test_manual_clean_from_1_15_back_to_manageable(self):
        node = self.create_node(name='node-1')
        self.provision('node-1', 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        clean_steps = [{'interface': 'deploy',
                        'step': 'erase_devices_metadata'}]
        self.assertError(self.provision_with(
            'node-1', version='1.14', target='clean',
            clean_steps=clean_steps), 406, "'clean'", '1.15')
        self.assertError(self.provision_with('node-1', target='clean'), 400,
                         'clean_steps')
        shred = [{'interface': 'deploy', 'step': 'shred'}]
        self.assertError(self.provision_with(
            'node-1', target='clean', clean_steps=shred), 400, 'deploy.shred')
        self.assertNodeUnchanged(node)
        response = self.provision_with('node-1', version='1.15',
                                       target='clean',
                                       clean_steps=clean_steps)
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.MANAGEABLE)

    def test_abort_from_1_13(self):
        node = self.make_available(name='node-1')
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertError(self.provision_with('node-1', version='1.12',
                                             target='abort'), 406, 'abort',
                         '1.13')
        self.assertNodeUnchanged(node)
        # From wait call-back, Ironic aborts from 1.110 only (see
        # test_node_abort_deploy.py, which aborts it there)
        self.assertError(self.provision_with('node-1', version='1.13',
                                             target='abort'), 406,
                         'Request not acceptable.', '1.110')
        self.assertNodeUnchanged(node)


@ddt.ddt
class DeployUndeployVerbsTest(base.ApiTestCase):
    """``deploy`` and ``undeploy`` (1.73): ``active`` and ``deleted`` by
    Ironic's newer names."""

    def test_deploy_then_undeploy(self):
        node = self.make_available(name='node-1')
        response = self.provision('node-1', 'deploy', version='1.73')
        self.assertEqual(202, response.status_code, response.data)
        self.agent_heartbeat(self.wait_for_state(node, states.DEPLOYWAIT))
        self.wait_for_state(node, states.ACTIVE)
        response = self.provision('node-1', 'undeploy', version='1.73')
        self.assertEqual(202, response.status_code, response.data)
        self.wait_for_state(node, states.AVAILABLE)

    def test_deploy_takes_what_active_takes(self):
        node = self.make_available(name='node-1')
        response = self.put('/v1/nodes/node-1/states/provision', json={
            'target': 'deploy', 'deploy_steps': [RequestedStepsTest.BIOS]},
            version='1.73')
        self.assertEqual(202, response.status_code, response.data)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertIn('fake_bios_settings', node.driver_internal_info)

    @ddt.data('deploy', 'undeploy')
    def test_they_exist_from_1_73(self, target):
        node = self.make_available(name='node-1')
        self.assertError(self.provision('node-1', target, version='1.72'),
                         406, repr(target), '1.73')
        self.assertNodeUnchanged(node)
        listed = self.assertError(self.provision('node-1', 'bogus',
                                                 version='1.72'), 400,
                                  'valid targets', 'active')
        self.assertNotIn('undeploy', listed)
        self.assertIn('undeploy', self.assertError(
            self.provision('node-1', 'bogus', version='1.73'), 400))
