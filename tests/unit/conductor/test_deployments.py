"""Deploying a node through the real conductor, runner and database."""

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import agent_token
from ironic_steps import objects
from tests import base

DEFAULT_ORDER = ['deploy.deploy', 'deploy.write_image',
                 'management.set_instance_boot_device',
                 'boot.prepare_instance_boot', 'power.boot_instance']


def labels(steps):
    return ['%s.%s' % (s['interface'], s['step']) for s in steps]


class DeployWithStepsTest(base.ConductorTestCase):

    def test_async_step_waits_for_call_back_then_continues_to_active(self):
        # Given an available fake node
        node = self.make_available()
        # When it is deployed
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        # Then it stops in wait call-back at the asynchronous step
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual('write_image', node.deploy_step['step'])
        self.assertEqual(DEFAULT_ORDER,
                         labels(node.driver_internal_info['deploy_steps']))
        self.assertEqual(1, node.driver_internal_info['deploy_step_index'])
        self.assertEqual(states.ACTIVE, node.target_provision_state)
        # When the agent heartbeats
        self.agent_heartbeat(node)
        # Then the remaining steps run and the bookkeeping is gone
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual({}, node.deploy_step)
        self.assertNotIn('deploy_steps', node.driver_internal_info)
        self.assertNotIn('deploy_step_index', node.driver_internal_info)
        self.assertEqual(states.POWER_ON, node.power_state)
        self.assertIsNone(node.target_provision_state)
        self.assertEqual('disk',
                         node.driver_internal_info['fake_boot_device'])

    def test_fake_agent_completes_the_deploy_without_help(self):
        self.config(agent_delay=0, group='fake')
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)

    def test_failure_mid_list_keeps_the_failed_step_and_names_it(self):
        node = self.make_available(
            driver_info={'fake_fail_step': 'boot.prepare_instance_boot'})
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.DEPLOYWAIT)
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        self.assertEqual({'interface': 'boot',
                          'step': 'prepare_instance_boot',
                          'priority': 60, 'argsinfo': None, 'args': {}},
                         node.deploy_step)
        self.assertIn('boot.prepare_instance_boot', node.last_error)
        self.assertIn('simulated failure', node.last_error)
        # The plan and the index still say where it stopped.
        self.assertEqual(3, node.driver_internal_info['deploy_step_index'])
        self.assertEqual(DEFAULT_ORDER,
                         labels(node.driver_internal_info['deploy_steps']))

    def test_failed_deploy_can_be_retried(self):
        node = self.make_available(
            driver_info={'fake_fail_step': 'deploy.deploy'})
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        node.driver_info = {}
        self.rpcapi.update_node(self.context, node)
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertIsNone(node.last_error)
        self.assertEqual(1, node.driver_internal_info['deploy_step_index'])

    def test_tear_down_cleans_and_returns_the_node_to_available(self):
        self.config(agent_delay=0, group='fake')
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        self.rpcapi.do_node_tear_down(self.context, node.uuid)
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertEqual(states.POWER_OFF, node.power_state)
        self.assertEqual({}, node.clean_step)
        self.assertEqual({}, node.deploy_step)

    def test_deploy_refused_in_wrong_state_without_touching_the_node(self):
        node = self.create_node()
        before = objects.Node.get(self.context, node.uuid)
        exc = self.assertRaises(Exception, self.rpcapi.do_node_deploy,
                                self.context, node.uuid)
        self.assertIn("'deploy'", str(exc))
        self.assertIn("'enroll'", str(exc))
        after = objects.Node.get(self.context, node.uuid)
        self.assertEqual(before.obj_to_primitive(), after.obj_to_primitive())

    def test_a_node_in_error_is_rebuilt(self):
        self.config(agent_delay=0, group='fake')
        node = self.make_available()
        node.provision_state = states.ERROR
        node.save()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)

    def test_managing_a_node_after_failed_cleaning_clears_the_error(self):
        node = self.make_available()
        node.provision_state = states.CLEANFAIL
        node.last_error = 'Cleaning failed: disk on fire'
        node.save()
        self.rpcapi.do_provisioning_action(self.context, node.uuid, 'manage')
        node = self.wait_for_state(node, states.MANAGEABLE)
        self.assertIsNone(node.last_error)


class HeartbeatTest(base.ConductorTestCase):

    def test_a_heartbeat_for_a_busy_waiting_node_is_refused_as_locked(self):
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        objects.Node.reserve(self.context, 'someone-else', node.id)
        exc = self.assertRaises(exception.NodeLocked, self.rpcapi.heartbeat,
                                self.context, node.uuid, agent_token=token)
        self.assertIn('someone-else', str(exc))
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.DEPLOYWAIT, stored.provision_state)
        self.assertEqual('someone-else', stored.reservation)

    def test_a_lookup_of_a_locked_node_is_refused_and_changes_nothing(self):
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        objects.Node.reserve(self.context, 'someone-else', node.id)
        self.assertRaises(exception.NodeLocked,
                          self.rpcapi.get_node_with_token, self.context,
                          node.uuid)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertNotIn('agent_secret_token', stored.driver_internal_info)
        self.assertEqual(node.updated_at, stored.updated_at)
        # Unlocked, the next lookup hands the token out, once.
        objects.Node.release(self.context, 'someone-else', node.id)
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.assertEqual(token, objects.Node.get(
            self.context, node.uuid).driver_internal_info[
                'agent_secret_token'])
        self.assertEqual('******', self.rpcapi.get_node_with_token(
            self.context, node.uuid))

    def test_a_heartbeat_for_a_busy_node_that_does_not_wait_is_ignored(self):
        # (with the token the node holds: without, it is refused first)
        node = self.make_available()
        node.driver_internal_info = {'agent_secret_token': 't' * 43}
        node.save()
        objects.Node.reserve(self.context, 'someone-else', node.id)
        self.rpcapi.heartbeat(self.context, node.uuid, agent_token='t' * 43)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual(states.AVAILABLE, stored.provision_state)
        self.assertEqual('someone-else', stored.reservation)

    def test_a_heartbeat_without_the_token_never_reaches_the_lock(self):
        node = self.make_available()
        objects.Node.reserve(self.context, 'someone-else', node.id)
        self.assertRaises(exception.InvalidAgentToken, self.rpcapi.heartbeat,
                          self.context, node.uuid)
        stored = objects.Node.get(self.context, node.uuid)
        self.assertEqual('someone-else', stored.reservation)
        self.assertEqual(node.updated_at, stored.updated_at)


class FakeAgentTokenTest(base.ConductorTestCase):
    """The fake machine's agent gets its token with the work (0.14)."""

    def deploy_until_the_agent_is_due(self):
        # The agent heartbeats a second after the node parks: meanwhile
        # anyone may call the lookup.
        self.config(agent_delay=1, group='fake')
        node = self.make_available()
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        return self.wait_for_state(node, states.DEPLOYWAIT)

    def test_no_lookup_gets_the_token_and_the_agent_deploys_with_it(self):
        node = self.deploy_until_the_agent_is_due()
        self.assertEqual(agent_token.MASK, self.rpcapi.get_node_with_token(
            self.context, node.uuid))
        self.assertRaises(exception.InvalidAgentToken, self.rpcapi.heartbeat,
                          self.context, node.uuid, agent_token='t' * 43)
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)
        self.assertNotIn(agent_token.TOKEN_KEY, node.driver_internal_info)

    def test_the_agents_heartbeat_reads_nothing_before_its_lock(self):
        # The flow that parked the node with the token remembers it.
        node = self.deploy_until_the_agent_is_due()
        token = objects.Node.get(self.context, node.uuid).driver_internal_info[
            agent_token.TOKEN_KEY]
        self.assertTrue(agent_token.KNOWN.knows(node.uuid, token))
        self.assertFalse(agent_token.KNOWN.knows(node.uuid, 't' * 43))
        recorded = self.useFixture(base.SQLStatements())
        objects.Node.reserve(self.context, 'someone-else', node.id)
        self.assertRaises(exception.NodeLocked, self.rpcapi.heartbeat,
                          self.context, node.uuid, agent_token=token)
        # The reserve above, then the heartbeat's own try of the lock.
        self.assertEqual(['UPDATE', 'UPDATE'], recorded.verbs()[:2])
        objects.Node.release(self.context, 'someone-else', node.id)
        self.assertEqual(states.ACTIVE,
                         self.wait_for_state(node, states.ACTIVE)
                         .provision_state)

    def test_pinned_to_0_13_the_first_lookup_hands_the_token_out(self):
        self.config(pin_release_version='0.13')
        node = self.deploy_until_the_agent_is_due()
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.assertNotEqual(agent_token.MASK, token)
        self.assertEqual(token, objects.Node.get(
            self.context, node.uuid).driver_internal_info[
                agent_token.TOKEN_KEY])

    def test_a_deploy_with_its_agent_writes_the_node_nine_times(self):
        # No lookup write: TransactionCostTest's ten, less the token's.
        self.config(agent_delay=0, group='fake')
        node = self.make_available()
        recorded = self.useFixture(base.SQLStatements())
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        self.wait_for_state(node, states.ACTIVE)
        writes = recorded.node_writes()
        self.assertEqual(9, len(writes), writes)


class TransactionCostTest(base.ConductorTestCase):
    """One write per transition; locks ride along where they can."""

    def test_a_deploy_writes_each_transition_once(self):
        node = self.make_available()
        recorded = self.useFixture(base.SQLStatements())
        # Lock; enter deploying with deploy.deploy recorded as the step
        # running; record write_image; then wait call-back with the lock
        # dropped in the same write.
        self.rpcapi.do_node_deploy(self.context, node.uuid)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        writes = recorded.node_writes()
        self.assertEqual(4, len(writes), writes)
        self.assertIn(' deploy_step=', writes[1])
        # The agent's lookup stores the token it hands out in one
        # conditional write, without the lock (once per flow).
        token = self.rpcapi.get_node_with_token(self.context, node.uuid)
        self.assertEqual(5, len(recorded.node_writes()))
        # Lock; leaving the wait rides with the next step's record; three
        # steps; active with the lock dropped in the same write.
        self.rpcapi.heartbeat(self.context, node.uuid, agent_token=token)
        self.wait_for_state(node, states.ACTIVE)
        writes = recorded.node_writes()
        self.assertEqual(10, len(writes), writes)


class UserDeployStepsTest(base.ConductorTestCase):

    RAID = {'raid_config': {'logical_disks': [{'size_gb': 10,
                                               'raid_level': '1'}]}}
    BIOS = {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]}

    def test_requested_raid_and_bios_steps_run_in_priority_order(self):
        node = self.make_available()
        deploy_steps = [
            {'interface': 'raid', 'step': 'apply_configuration',
             'priority': 90, 'args': self.RAID},
            {'interface': 'bios', 'step': 'apply_configuration',
             'priority': 95, 'args': self.BIOS}]
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False,
                                   deploy_steps=deploy_steps)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(['deploy.deploy', 'bios.apply_configuration',
                          'raid.apply_configuration'] + DEFAULT_ORDER[1:],
                         labels(node.driver_internal_info['deploy_steps']))
        self.assertEqual(3, node.driver_internal_info['deploy_step_index'])
        self.assertEqual(self.RAID['raid_config'],
                         node.driver_internal_info['fake_raid_config'])
        self.assertEqual(self.BIOS['settings'],
                         node.driver_internal_info['fake_bios_settings'])
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)

    def test_a_refused_request_leaves_the_node_as_it_was(self):
        node = self.make_available()
        exc = self.assertRaises(
            exception.InvalidRequestedSteps, self.rpcapi.do_node_deploy,
            self.context, node.uuid, rebuild=False, deploy_steps=[
                {'interface': 'raid', 'step': 'apply_configuration',
                 'priority': 90, 'args': {'raid_konfig': {}}}])
        self.assertIn('raid_konfig', str(exc))
        self.assertNodeUnchanged(node)

    def test_rebuild_is_explicit(self):
        node = self.make_available()
        exc = self.assertRaises(exception.InvalidStateRequested,
                                self.rpcapi.do_node_deploy, self.context,
                                node.uuid, rebuild=True)
        self.assertIn("'rebuild'", str(exc))

    def test_deploy_steps_on_a_legacy_interface_are_refused(self):
        node = self.make_available(deploy_interface='fake-legacy')
        exc = self.assertRaises(
            exception.InvalidParameterValue, self.rpcapi.do_node_deploy,
            self.context, node.uuid, rebuild=False, deploy_steps=[
                {'interface': 'deploy', 'step': 'deploy', 'priority': 0,
                 'args': {}}])
        self.assertIn('legacy way', str(exc))
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)


class DeployTemplateTest(base.ConductorTestCase):
    """Deploy templates named by the instance's traits bring their steps."""

    RAID = {'raid_config': {'logical_disks': [{'size_gb': 10,
                                               'raid_level': '1'}]}}
    BIOS = {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]}

    def make_template(self, name, steps):
        template = objects.DeployTemplate(self.context, name=name,
                                          steps=steps, extra={})
        template.create()
        return template

    def node_asking_for(self, *traits, node_traits=None):
        node = self.make_available()
        self.rpcapi.add_node_traits(
            self.context, node.uuid,
            list(node_traits if node_traits is not None else traits))
        node = objects.Node.get(self.context, node.uuid)
        node.instance_info = {'traits': list(traits)}
        node.save()
        return node

    def setUp(self):
        super().setUp()
        self.make_template('CUSTOM_RAID1', [
            {'interface': 'raid', 'step': 'apply_configuration',
             'priority': 90, 'args': self.RAID}])
        self.make_template('CUSTOM_HT_ON', [
            {'interface': 'bios', 'step': 'apply_configuration',
             'priority': 95, 'args': self.BIOS}])

    def test_every_named_template_runs_its_steps_in_priority_order(self):
        node = self.node_asking_for('CUSTOM_RAID1', 'CUSTOM_HT_ON')
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.assertEqual(['deploy.deploy', 'bios.apply_configuration',
                          'raid.apply_configuration'] + DEFAULT_ORDER[1:],
                         labels(node.driver_internal_info['deploy_steps']))
        self.assertEqual(self.RAID['raid_config'],
                         node.driver_internal_info['fake_raid_config'])
        self.assertEqual(self.BIOS['settings'],
                         node.driver_internal_info['fake_bios_settings'])

    def test_a_node_trait_not_asked_for_brings_no_template(self):
        node = self.node_asking_for('CUSTOM_HT_ON',
                                    node_traits=['CUSTOM_HT_ON',
                                                 'CUSTOM_RAID1'])
        self.rpcapi.do_node_deploy(self.context, node.uuid, rebuild=False)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        planned = labels(node.driver_internal_info['deploy_steps'])
        self.assertIn('bios.apply_configuration', planned)
        self.assertNotIn('raid.apply_configuration', planned)

    def test_user_steps_override_template_steps(self):
        node = self.node_asking_for('CUSTOM_RAID1', 'CUSTOM_HT_ON')
        self.rpcapi.do_node_deploy(
            self.context, node.uuid, rebuild=False, deploy_steps=[
                {'interface': 'raid', 'step': 'apply_configuration',
                 'priority': 0, 'args': {}}])
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        planned = labels(node.driver_internal_info['deploy_steps'])
        self.assertIn('bios.apply_configuration', planned)
        self.assertNotIn('raid.apply_configuration', planned)

    def test_instance_traits_must_be_traits_of_the_node(self):
        node = self.node_asking_for('CUSTOM_RAID1', node_traits=[])
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.rpcapi.do_node_deploy, self.context,
                                node.uuid, rebuild=False)
        self.assertIn('CUSTOM_RAID1', str(exc))
        self.assertIn('does not have', str(exc))
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_a_template_step_the_node_cannot_run_is_refused_naming_it(self):
        self.make_template('CUSTOM_TYPO', [
            {'interface': 'raid', 'step': 'apply_configuraton',
             'priority': 90, 'args': {}}])
        node = self.node_asking_for('CUSTOM_TYPO')
        exc = self.assertRaises(exception.InvalidRequestedSteps,
                                self.rpcapi.do_node_deploy, self.context,
                                node.uuid, rebuild=False)
        self.assertIn('deploy template(s) CUSTOM_TYPO', str(exc))
        self.assertIn('raid.apply_configuraton', str(exc))
        self.assertEqual(states.AVAILABLE, objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_two_templates_may_not_both_set_one_step(self):
        self.make_template('CUSTOM_RAID0', [
            {'interface': 'raid', 'step': 'apply_configuration',
             'priority': 80, 'args': self.RAID}])
        node = self.node_asking_for('CUSTOM_RAID1', 'CUSTOM_RAID0')
        exc = self.assertRaises(exception.InvalidRequestedSteps,
                                self.rpcapi.do_node_deploy, self.context,
                                node.uuid, rebuild=False)
        self.assertIn('raid.apply_configuration is asked for twice',
                      str(exc))
