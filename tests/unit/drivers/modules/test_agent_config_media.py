"""The agent's config image: written whole and private before the token
is kept, and refused naming the root when it cannot be written."""

import io
import os
import types

import fixtures
import pycdlib

from ironic_steps.common import exception
from ironic_steps.drivers.modules import agent_client
from ironic_steps.drivers.modules import agent_config_media
from tests import base


def node():
    return types.SimpleNamespace(uuid='node-1',
                                 driver_internal_info={'kept': 1})


class PublishTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.root = self.useFixture(fixtures.TempDir()).path
        self.config(http_root=self.root, http_url='http://127.0.0.1:8080/',
                    group='deploy')

    def test_the_image_holds_the_token_kept_and_is_private(self):
        machine = node()
        url = agent_config_media.publish(machine)
        token = machine.driver_internal_info[agent_client.TOKEN_KEY]
        self.assertEqual(1, machine.driver_internal_info['kept'])
        name = url.rsplit('/', 1)[1]
        self.assertEqual('http://127.0.0.1:8080/' + name, url)
        path = os.path.join(self.root, name)
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)
        iso = pycdlib.PyCdlib()
        iso.open(path)
        text = io.BytesIO()
        iso.get_file_from_iso_fp(text, joliet_path='/parameters.txt')
        iso.close()
        self.assertIn('ipa-agent-token=%s\n' % token, text.getvalue().decode())
        agent_config_media.withdraw(machine)
        self.assertEqual([], os.listdir(self.root))

    def test_a_root_that_cannot_be_written_is_named_and_no_token_kept(self):
        blocker = os.path.join(self.root, 'file')
        open(blocker, 'w').close()
        self.config(http_root=os.path.join(blocker, 'httpboot'),
                    group='deploy')
        machine = node()
        exc = self.assertRaises(exception.InvalidParameterValue,
                                agent_config_media.publish, machine)
        self.assertIn('[deploy] http_root', str(exc))
        self.assertEqual({'kept': 1}, machine.driver_internal_info)
