"""The agent token handed over on virtual media: no lookup can race for it.

A redfish node of the ``direct`` deploy boots its agent from virtual media
(the Redfish emulator, :mod:`tests.redfish_emulator`); with ``[deploy]
http_url`` set, the conductor makes the agent's token before the boot and
the BMC presents it on a second medium, a config image written in
``[deploy] http_root``.  The fake agent (:class:`tests.fake_ipa.FakeIPA`)
reads it there, as ironic-python-agent reads the medium labelled
``ir-vfd-dev``; the anonymous lookup and heartbeats go through the real API
(a WSGI client over the same conductor).
"""

import os
from urllib import parse

import fixtures

from ironic_steps.common import exception
from ironic_steps.common import states
from ironic_steps.conductor import task_manager
from ironic_steps import objects
from tests.functional import test_redfish_direct_deploy
from tests.unit.api import base as api_base
from tests.unit.conductor import test_agent_heartbeat

HTTP_URL = 'http://127.0.0.1:9/httpboot/'
MASK = '******'


class TokenOnVirtualMediaTestCase(api_base.ApiTestMixin,
                                  test_redfish_direct_deploy
                                  .RedfishDirectTestCase):

    def setUp(self):
        super().setUp()
        self.http_root = self.useFixture(fixtures.TempDir()).path
        self.config(http_url=HTTP_URL, http_root=self.http_root,
                    group='deploy')

    def config_image(self):
        """The path, in http_root, of the config image the BMC's floppy
        device holds (None if it holds none)."""
        floppy = self.emulator.virtual_media(self.system_id(),
                                             device='Floppy')
        if not floppy['Inserted']:
            return None
        url = floppy['Image']
        self.assertTrue(url.startswith(HTTP_URL), url)
        return os.path.join(self.http_root, parse.urlsplit(url).path.rpartition(
            '/')[2])

    def lookup(self, node):
        """An anonymous lookup through the API: what its config says."""
        response = self.get('/v1/lookup?node_uuid=%s' % node.uuid)
        self.assertEqual(200, response.status_code, response.json)
        return response.json['config']

    def api_heartbeat(self, node, token):
        return self.post('/v1/heartbeat/%s' % node.uuid, json={
            'callback_url': self.ipa.url, 'agent_token': token,
            'agent_version': test_agent_heartbeat.AGENT_VERSION})

    def heartbeat(self, node, agent_verify_ca=None):
        """Heartbeat as an agent booted from the config image: its token
        read from the image once, then looked up (masked) each time."""
        if self.ipa.token is None:
            self.ipa.read_config_image(self.config_image())
        super().heartbeat(node, agent_verify_ca)


class TokenOnVirtualMediaTest(TokenOnVirtualMediaTestCase):

    def test_the_agent_gets_its_token_on_a_second_medium_before_it_boots(
            self):
        # When a redfish direct node is deployed
        node = self.deploy_to_agent_wait()
        # Then beside the deploy ISO in the CD drive, the BMC's floppy
        # device holds the config image, which holds the token the node
        # now waits for and the API's URL
        bmc = self.bmc()
        self.assertTrue(bmc['cd']['Inserted'])
        parameters = self.ipa.read_config_image(self.config_image())
        self.assertEqual({'ipa-agent-token', 'ipa-api-url'}, set(parameters))
        self.assertEqual('http://127.0.0.1:6385', parameters['ipa-api-url'])
        node = objects.Node.get(self.context, node.uuid)
        self.assertEqual(node.driver_internal_info['agent_secret_token'],
                         parameters['ipa-agent-token'])
        # readable by its owner only, by default
        self.assertEqual(0o600, os.stat(self.config_image()).st_mode & 0o777)

    def test_an_anonymous_lookup_during_the_deploy_does_not_get_the_token(
            self):
        node = self.deploy_to_agent_wait()
        # When anyone looks the node up, before and after its agent
        first, second = self.lookup(node), self.lookup(node)
        # Then each is told a token is required, and sees it masked
        for config in (first, second):
            self.assertEqual((MASK, True), (config['agent_token'],
                                            config['agent_token_required']))
        # and a heartbeat with what it saw resumes nothing
        self.assertEqual(400, self.api_heartbeat(node, MASK).status_code)
        self.wait_at(node, states.DEPLOYWAIT, 'deploy.deploy')
        self.assertEqual([], self.ipa.requests)

    def test_a_wrong_token_is_refused_before_any_lock_or_write(self):
        node = self.deploy_to_agent_wait()
        before = objects.Node.get(self.context, node.uuid)
        # Given the node locked by another operation
        with task_manager.acquire(self.context, node.uuid,
                                  purpose='holding the lock'):
            # When a heartbeat with a wrong token comes
            refused = self.api_heartbeat(node, 'not-the-token')
            # Then it is refused for its token (400, as Ironic answers),
            # not for the lock
            self.assertEqual(400, refused.status_code, refused.json)
            self.assertIn('Invalid or missing agent token',
                          refused.json['error_message'])
            self.assertRaises(exception.InvalidAgentToken,
                              self.rpcapi.heartbeat, self.context, node.uuid,
                              callback_url=self.ipa.url,
                              agent_token='not-the-token')
        # and the node was not written
        after = objects.Node.get(self.context, node.uuid)
        self.assertEqual(before.updated_at, after.updated_at)
        self.assertEqual(before.driver_internal_info,
                         after.driver_internal_info)

    def test_the_deploy_completes_with_the_handed_token_and_clears_it_up(
            self):
        node = self.deploy_to_agent_wait()
        # When the agent heartbeats with the token it read (the API's
        # heartbeat first, then as the deploy goes on)
        self.ipa.read_config_image(self.config_image())
        image = self.config_image()
        self.assertEqual(202, self.api_heartbeat(
            node, self.ipa.token).status_code)
        self.wait_at(node, states.DEPLOYWAIT, 'deploy.write_image')
        self.heartbeat(node)
        # Then the node becomes active, the config image ejected and
        # removed, the token forgotten
        node = self.wait_for_state(node, states.ACTIVE)
        self.assertIsNone(node.last_error)
        self.assertIsNone(self.config_image())
        self.assertFalse(os.path.exists(image))
        self.assertNotIn('agent_secret_token', node.driver_internal_info)
        self.assertFalse(self.bmc()['cd']['Inserted'])


class FirstLookupTest(TokenOnVirtualMediaTestCase):
    """Where the token still goes to the first lookup (the race that
    stays open): no http_url, or pinned to a release from before."""

    def assert_first_lookup_gets_the_token(self):
        node = self.deploy_to_agent_wait()
        self.assertIsNone(self.config_image())
        self.assertEqual([], os.listdir(self.http_root))
        token = self.lookup(node)['agent_token']
        self.assertNotEqual(MASK, token)
        self.assertEqual(MASK, self.lookup(node)['agent_token'])
        # and the deploy completes with it
        self.ipa.token = token
        self.heartbeat(node)
        self.wait_at(node, states.DEPLOYWAIT, 'deploy.write_image')
        self.heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)

    def test_without_http_url_the_first_lookup_gets_the_token(self):
        self.config(http_url=None, group='deploy')
        self.assert_first_lookup_gets_the_token()

    def test_pinned_to_0_13_the_first_lookup_gets_the_token(self):
        self.config(pin_release_version='0.13')
        self.assert_first_lookup_gets_the_token()


class TokenOnVirtualMediaCleaningTest(TokenOnVirtualMediaTestCase):

    def test_cleaning_hands_the_token_over_too_and_clears_it_up(self):
        self.config(automated_clean=True, group='conductor')
        self.config(erase_devices_priority=0, group='deploy')
        # When a node is provided, its agent booted to clean it
        node = self.provide()
        # Then its lookup shows the token masked, and the agent cleans
        # with the one on its config image
        self.assertEqual(MASK, self.lookup(node)['agent_token'])
        image = self.config_image()
        self.heartbeat(node)
        self.wait_at(node, states.CLEANWAIT, 'deploy.erase_devices_metadata')
        self.heartbeat(node)
        node = self.wait_for_state(node, states.AVAILABLE)
        self.assertIsNone(node.last_error)
        # and the image is ejected and removed
        self.assertIsNone(self.config_image())
        self.assertFalse(os.path.exists(image))
