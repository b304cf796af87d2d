"""Secrets in what a flow reads and leaves behind are shown masked: the
node's ``last_error``, its step history and node history, the agent's
lookup; and the kinds of secret Ironic masks that no key word gives away
(a config drive, a signed image URL, ``password=`` in a string).

Through the real API, a real conductor and its step runner, real SQLite.
"""

import logging

import fixtures

from ironic_steps.common import safe_log
from ironic_steps.common import states
from ironic_steps.drivers import base as drivers_base
from ironic_steps import objects
from tests import plugins
from tests.unit.api import base

SIG = 'c0ffee5ab1e5ig'
SECRET = 'hunter2-bios-admin'
SIGNED_URL = ('https://swift.example/v1/AUTH_p/images/disk.qcow2'
              '?temp_url_sig=%s&temp_url_expires=2000000000' % SIG)


class DownloadFails(drivers_base.DeployInterface):
    """A deploy whose image download fails, quoting the signed URL, as the
    agent's errors do."""

    @drivers_base.deploy_step(priority=80)
    def write_image(self, task):
        raise RuntimeError('Download of %s failed: password=%s'
                           % (SIGNED_URL, SECRET))


class WhatRanTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        safe_log.install()   # on the fixture's handler, as on oslo.log's

    def assertMasked(self, text):
        self.assertNotIn(SIG, text)
        self.assertNotIn(SECRET, text)

    def get_text(self, path, version=base.LATEST):
        response = self.get(path, version=version)
        self.assertEqual(200, response.status_code, response.data)
        return response.get_data(as_text=True)

    def test_a_failed_step_quoting_a_signed_url_shows_it_masked(self):
        # Given a deploy that failed, its error quoting a signed URL
        self.useFixture(plugins.HardwarePlugin('test-hw',
                                               deploy=DownloadFails()))
        node = self.make_available(driver='test-hw')
        self.assertEqual(202, self.provision(node.uuid, 'active').status_code)
        node = self.wait_for_state(node, states.DEPLOYFAIL)
        # Then wherever the error shows, the signature and password do not
        for path, version in (
                ('/v1/nodes/%s' % node.uuid, base.LATEST),
                ('/v1/nodes/%s/states' % node.uuid, base.LATEST),
                ('/v1/nodes/detail', base.LATEST),
                ('/v1/nodes/%s/history?detail=true' % node.uuid, '1.78'),
                ('/v1/nodes/%s/x-steps/history' % node.uuid, base.LATEST)):
            self.assertMasked(self.get_text(path, version))
        shown = self.get('/v1/nodes/%s' % node.uuid).get_json()
        self.assertIn('temp_url_sig=******&temp_url_expires=2000000000',
                      shown['last_error'])
        self.assertIn('password=******', shown['last_error'])
        # and the history keeps it masked (the node keeps it as it was)
        entries = objects.NodeStepHistory.list_by_node(self.context,
                                                       node.id)
        self.assertMasked(entries[-1].error)
        self.assertIn(SIG, objects.Node.get(self.context,
                                            node.uuid).last_error)
        self.assertMasked(self.logs.output)

    def test_bios_settings_asked_for_show_their_secret_values_masked(self):
        # Given a deploy asked to set a BIOS admin password, as name/value
        node = self.make_available()
        response = self.put(
            '/v1/nodes/%s/states/provision' % node.uuid,
            json={'target': 'active', 'deploy_steps': [
                {'interface': 'bios', 'step': 'apply_configuration',
                 'priority': 95, 'args': {'settings': [
                     {'name': 'AdminPassword', 'value': SECRET},
                     {'name': 'BootMode', 'value': 'Uefi'}]}}]})
        self.assertEqual(202, response.status_code, response.data)
        # (the BIOS step ran; the deploy waits for its agent)
        node = self.wait_for_state(node, states.DEPLOYWAIT)
        # Then the step history shows the plain setting, not the secret
        text = self.get_text('/v1/nodes/%s/x-steps/history' % node.uuid)
        self.assertMasked(text)
        self.assertIn('Uefi', text)
        self.assertMasked(self.get_text('/v1/nodes/%s' % node.uuid))
        self.assertMasked(self.logs.output)


class IronicSecretsTest(base.ApiTestCase):
    """What Ironic masks in ``instance_info``: the config drive always,
    and (here, only the signature of) a signed image URL; and what oslo
    masks in any string value."""

    INSTANCE_INFO = {
        'configdrive': {'meta_data': {'admin_pass': SECRET},
                        'user_data': '#cloud-config'},
        'image_url': SIGNED_URL, 'image_source': SIGNED_URL,
        'kernel_append_params': 'console=ttyS0 password=%s nofb' % SECRET,
        'root_gb': 10}

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        node = self.make_available()
        node.instance_info = dict(self.INSTANCE_INFO)
        node.save()
        self.node = node

    def test_every_view_shows_them_masked(self):
        for path in ('/v1/nodes/%s' % self.node.uuid, '/v1/nodes/detail',
                     '/v1/nodes/%s?fields=instance_info' % self.node.uuid):
            response = self.get(path)
            self.assertEqual(200, response.status_code, response.data)
            text = response.get_data(as_text=True)
            self.assertNotIn(SECRET, text)
            self.assertNotIn(SIG, text)
        shown = self.get('/v1/nodes/%s' % self.node.uuid).get_json()[
            'instance_info']
        self.assertEqual('******', shown['configdrive'])
        self.assertEqual(SIGNED_URL.replace(SIG, '******'),
                         shown['image_url'])
        self.assertEqual('console=ttyS0 password=****** nofb',
                         shown['kernel_append_params'])
        self.assertEqual(10, shown['root_gb'])

    def test_a_patch_cannot_copy_or_test_them(self):
        for op in ({'op': 'copy', 'from': '/instance_info/configdrive',
                    'path': '/extra/cd'},
                   {'op': 'copy', 'from': '/instance_info/configdrive/'
                    'meta_data', 'path': '/extra/md'},
                   {'op': 'move', 'from': '/instance_info/image_url',
                    'path': '/extra/url'},
                   {'op': 'copy', 'from': '/instance_info/'
                    'kernel_append_params', 'path': '/description'},
                   {'op': 'test', 'path': '/instance_info/configdrive',
                    'value': {}}):
            response = self.patch('/v1/nodes/%s' % self.node.uuid, json=[op])
            where = op.get('from', op['path'])
            self.assertError(response, 400, 'secret', where)
            self.assertNotIn(SECRET, response.get_data(as_text=True))
        self.assertEqual(self.INSTANCE_INFO, objects.Node.get(
            self.context, self.node.uuid).instance_info)
        self.assertNotIn(SECRET, self.logs.output)

    def test_the_agent_lookup_shows_them_masked(self):
        # A node waiting for its agent, as a deploy leaves it.
        self.node.provision_state = states.DEPLOYWAIT
        self.node.target_provision_state = states.ACTIVE
        self.node.save()
        response = self.get('/v1/lookup?node_uuid=%s' % self.node.uuid,
                            version='latest')
        self.assertEqual(200, response.status_code, response.data)
        text = response.get_data(as_text=True)
        self.assertNotIn(SECRET, text)
        self.assertNotIn(SIG, text)
        self.assertEqual('******', response.get_json()['node'][
            'instance_info']['configdrive'])
