"""The x-steps extension over HTTP: preview and resume, and their absence
while pinned to a release before them."""

from ironic_steps.common import states
from ironic_steps.drivers import base as drivers_base
from ironic_steps import objects
from tests.unit.api import base
from tests import plugins

SECRET = 'hunter2-in-step-args'
BIOS = {'settings': [{'name': 'LogicalProc', 'value': 'Enabled'}]}


class PasswordDeploy(drivers_base.DeployInterface):

    @drivers_base.deploy_step(priority=100)
    def deploy(self, task):
        pass

    @drivers_base.deploy_step(priority=0, argsinfo={
        'admin_password': {'description': 'set on the BMC'}})
    def set_bmc_password(self, task, admin_password=None):
        pass


class PreviewApiTest(base.ApiTestCase):

    def preview(self, ident, body, version=base.LATEST):
        return self.post('/v1/nodes/%s/x-steps/preview' % ident, json=body,
                         version=version)

    def test_a_deploy_preview_shows_the_plan_and_changes_nothing(self):
        node = self.make_available(name='node-1')
        response = self.preview('node-1', {'flow': 'deploy', 'deploy_steps': [
            {'interface': 'bios', 'step': 'apply_configuration',
             'priority': 95, 'args': BIOS, 'timeout': 300}]})
        self.assertEqual(200, response.status_code, response.data)
        body = response.get_json()
        self.assertEqual([], body['errors'])
        self.assertEqual(
            ['deploy.deploy', 'bios.apply_configuration',
             'deploy.write_image', 'management.set_instance_boot_device',
             'boot.prepare_instance_boot', 'power.boot_instance'],
            ['%s.%s' % (s['interface'], s['step']) for s in body['steps']])
        bios = body['steps'][1]
        self.assertEqual(('user', 300, True),
                         (bios['source'], bios['timeout'], bios['resumable']))
        self.assertEqual(BIOS, bios['args'])
        self.assertIsNone(body['resume'])
        self.assertNodeUnchanged(node)

    def test_secrets_in_step_arguments_are_masked(self):
        self.useFixture(plugins.HardwarePlugin('pw', deploy=PasswordDeploy()))
        self.config(enabled_hardware_types=['fake-hardware', 'pw'])
        node = self.make_available(driver='pw')
        response = self.preview(node.uuid, {'deploy_steps': [
            {'interface': 'deploy', 'step': 'set_bmc_password',
             'priority': 50, 'args': {'admin_password': SECRET}}]})
        self.assertEqual(200, response.status_code, response.data)
        self.assertNotIn(SECRET, response.get_data(as_text=True))
        self.assertEqual({'admin_password': '******'},
                         response.get_json()['steps'][1]['args'])

    def test_without_a_microversion_header_it_answers_too(self):
        node = self.make_available(name='node-1')
        response = self.preview(node.uuid, {}, version=None)
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual('deploy', response.get_json()['flow'])

    def test_a_body_mixing_flows_or_naming_an_unknown_one_is_refused(self):
        self.make_available(name='node-1')
        self.assertError(self.preview('node-1', {
            'flow': 'deploy', 'clean_steps': []}), 400,
            'clean_steps cannot be given with flow')
        self.assertError(self.preview('node-1', {'flow': 'verify'}), 400,
                         'valid flows: deploy, clean, service')
        self.assertError(self.preview('node-1', {'steps': []}), 400,
                         'unknown key(s) steps')

    def test_an_unknown_node_is_404(self):
        self.assertError(self.preview('no-such-node', {}), 404,
                         'no-such-node')


class ResumeApiTest(base.ApiTestCase):

    def test_resume_continues_a_failed_deploy_from_the_failed_step(self):
        node = self.make_available(
            name='node-1',
            driver_info={'fake_fail_step': 'boot.prepare_instance_boot'})
        self.provision('node-1', 'active')
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        self.agent_heartbeat(node)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        node.driver_info = {}
        self.rpcapi.update_node(self.context, node)

        response = self.post('/v1/nodes/node-1/x-steps/resume')
        self.assertEqual(202, response.status_code, response.data)
        self.assertEqual('http://localhost/v1/nodes/%s/states' % node.uuid,
                         response.headers['Location'])
        # write_image (the step that waits for the agent) is kept: the
        # deploy reaches active without another call-back.
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertEqual('disk',
                         node.driver_internal_info['fake_boot_device'])

    def test_resume_of_a_node_without_a_failed_deploy_is_refused(self):
        node = self.make_available(name='node-1')
        self.assertError(self.post('/v1/nodes/node-1/x-steps/resume'), 400,
                         'has no failed deploy or servicing to resume',
                         'not deploy failed or service failed')
        self.assertNodeUnchanged(node)


class PinnedBeforeTheExtensionApiTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.config(pin_release_version='0.5')
        self.make_client()

    def test_the_extension_paths_are_unknown(self):
        node = self.make_available(name='node-1')
        node.provision_state = states.DEPLOYFAIL
        node.save()
        node = objects.Node.get(self.context, node.uuid)
        for path in ('preview', 'resume'):
            response = self.post('/v1/nodes/node-1/x-steps/%s' % path,
                                 json={})
            self.assertEqual(404, response.status_code, response.data)
            unknown = self.post('/v1/nodes/node-1/no-such-thing', json={})
            self.assertEqual(unknown.status_code, response.status_code)
        self.assertNodeUnchanged(node)
