"""The config drive of a deploy (``PUT /v1/nodes/{node}/states/provision``
with ``configdrive``), through the real API, conductor and database.

Its shapes come with API versions (a string for ``active`` always, for
``rebuild`` from 1.35; an object from 1.56, its ``vendor_data`` from
1.59); ``null``, ``""`` and ``{}`` mean none; a bad one is refused 400
without a word of its content; the one stored is shown masked.  While the
services are pinned to release 0.7, whose conductors cannot take one,
it is refused, and the ``direct`` deploy interface is not offered.
"""

import base64
import gzip
import logging

import ddt
import fixtures

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base

SECRET = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISecretKeyOfTheTest test@x'
URL = 'https://127.0.0.1:9/drive.iso.gz?temp_url_sig=%s' % ('f00d' * 8)
#: A config drive image as a client sends one: base64 of a gzip.
IMAGE = base64.b64encode(gzip.compress(
    b'not really ISO 9660, holding ' + SECRET.encode(), mtime=0)).decode()
OBJECT = {'meta_data': {'public_keys': {'0': SECRET}}}
VENDOR = {'meta_data': {}, 'vendor_data': {'root_password': SECRET}}


class ConfigdriveTestCase(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))

    def available(self):
        node = self.make_available(name='node-1')
        self.uuid = node.uuid
        return node

    def active(self):
        """A deployed node (its deploy is not what these tests are
        about)."""
        node = self.available()
        node.provision_state = states.ACTIVE
        node.save()
        return node

    def provision(self, target, version=base.LATEST, **body):
        # By UUID: node names arrive in 1.5.
        return self.put('/v1/nodes/%s/states/provision' % self.uuid,
                        json={'target': target, **body}, version=version)

    def deployed(self, target, **body):
        """``target`` accepted, the node deploys to its agent's wait."""
        response = self.provision(target, **body)
        self.assertEqual(202, response.status_code, response.data)
        return self.wait_for_state(objects.Node.get(self.context, self.uuid),
                                   states.DEPLOYWAIT)

    def stored(self, node):
        return (objects.Node.get(self.context, node.uuid).instance_info
                or {}).get('configdrive')

    def assertNoSecret(self, response):
        for text in (response.get_data(as_text=True), self.logs.output):
            self.assertNotIn(SECRET, text)
            self.assertNotIn(IMAGE, text)
            self.assertNotIn(URL, text)

    def assertRefused(self, response, node, status, *fragments):
        """Refused with ``status`` naming ``fragments``; nothing stored,
        nothing moved, nothing told."""
        self.assertError(response, status, *fragments)
        self.assertNoSecret(response)
        self.assertNodeUnchanged(node)
        self.assertIsNone(self.stored(node))


@ddt.ddt
class ConfigdriveVersionTest(ConfigdriveTestCase):

    @ddt.data(
        # (target, API version, configdrive)
        ('active', '1.1', URL),
        ('active', '1.1', IMAGE),
        ('active', '1.56', OBJECT),
        ('active', '1.59', VENDOR),
        ('rebuild', '1.35', URL),
        ('rebuild', '1.56', OBJECT),
    )
    @ddt.unpack
    def test_a_configdrive_is_accepted_from_the_version_of_its_shape(
            self, target, version, configdrive):
        # Given a node that can take the target
        node = self.available() if target == 'active' else self.active()
        # When it is given a config drive at a version that has its shape
        self.deployed(target, version=version, configdrive=configdrive)
        # Then the deploy starts, and keeps the drive for its agent:
        # an image or a URL as it is, an object built into an image
        stored = self.stored(node)
        if isinstance(configdrive, str):
            self.assertEqual(configdrive, stored)
        else:
            iso = gzip.decompress(base64.b64decode(stored))
            self.assertEqual(b'CD001', iso[0x8001:0x8006])
            self.assertIn(SECRET.encode(), iso)

    @ddt.data(
        # (target, API version, configdrive, what the refusal names)
        ('active', '1.55', OBJECT, 'configdrive object', '1.56'),
        ('active', '1.1', OBJECT, 'configdrive object', '1.56'),
        ('active', '1.58', VENDOR, 'vendor_data', '1.59'),
        ('active', '1.55', VENDOR, 'configdrive object', '1.56'),
        ('rebuild', '1.34', URL, 'configdrive', '1.35'),
        ('rebuild', '1.55', OBJECT, 'configdrive object', '1.56'),
    )
    @ddt.unpack
    def test_a_configdrive_before_the_version_of_its_shape_is_406(
            self, target, version, configdrive, feature, needed):
        node = self.available() if target == 'active' else self.active()
        response = self.provision(target, version, configdrive=configdrive)
        self.assertRefused(response, node, 406, feature, needed, version)

    @ddt.data(
        # (configdrive, API version)
        (None, base.LATEST), ('', base.LATEST), ({}, base.LATEST),
        (None, '1.1'), ('', '1.1'), ({}, '1.1'),
    )
    @ddt.unpack
    def test_null_an_empty_string_and_an_empty_object_mean_none(
            self, configdrive, version):
        node = self.available()
        self.deployed('active', version=version, configdrive=configdrive)
        self.assertIsNone(self.stored(node))

    def test_a_rebuild_without_a_configdrive_keeps_the_one_it_has(self):
        # Given a node deployed with a config drive
        self.available()
        node = self.deployed('active', configdrive=URL)
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        # When it is rebuilt without one
        self.deployed('rebuild')
        # Then the drive it had is written again
        self.assertEqual(URL, self.stored(node))

    def test_a_rebuild_with_a_configdrive_replaces_the_one_it_has(self):
        # Given an active node deployed with a config drive
        self.active()
        node = self.deployed('rebuild', configdrive=URL)
        self.agent_heartbeat(node)
        self.wait_for_state(node, states.ACTIVE)
        # When it is rebuilt with another, then that one is written
        self.deployed('rebuild', configdrive=IMAGE)
        self.assertEqual(IMAGE, self.stored(node))


@ddt.ddt
class BadConfigdriveTest(ConfigdriveTestCase):

    @ddt.data(
        # (configdrive, what the refusal names)
        ('ftp://%s@127.0.0.1/drive' % SECRET.split()[1], "'ftp' scheme"),
        ('%s:drive' % SECRET.split()[1], 'unsupported scheme'),
        ('https:///%s' % SECRET.split()[1], 'no host'),
        (SECRET.split()[1] + '!', 'nor base64'),
        (base64.b64encode(SECRET.encode()).decode(), 'not complete gzip'),
        (base64.b64encode(gzip.compress(b'', mtime=0)).decode(), 'empty'),
        (42, 'is a number'),
        ([SECRET], 'is an array'),
        (True, 'is a boolean'),
        ({'meta_data': SECRET}, "meta_data is a string"),
        ({'meta_data': {}, 'public_keys': SECRET}, "'public_keys'"),
        ({'user_data': 42}, 'user_data is a number'),
        ({'network_data': [SECRET]}, 'network_data is an array'),
        ({'vendor_data': SECRET}, 'vendor_data is a string'),
    )
    @ddt.unpack
    def test_a_bad_configdrive_is_400_naming_the_problem_not_the_content(
            self, configdrive, problem):
        node = self.available()
        response = self.provision('active', configdrive=configdrive)
        self.assertRefused(response, node, 400, 'configdrive', problem)

    def test_a_configdrive_larger_than_allowed_is_400_naming_the_limit(self):
        self.config(configdrive_max_bytes=4096, group='deploy')
        node = self.available()
        response = self.provision('active', configdrive={
            'meta_data': {}, 'user_data': SECRET * 100})
        self.assertRefused(response, node, 400, '4096',
                           'configdrive_max_bytes')

    def test_a_refused_deploy_keeps_no_configdrive(self):
        # Given a deploy whose steps cannot run
        node = self.available()
        response = self.provision('active', configdrive=URL, deploy_steps=[
            {'interface': 'deploy', 'step': 'no_such_step', 'args': {},
             'priority': 50}])
        # Then the refusal leaves the node without the drive
        self.assertRefused(response, node, 400, 'deploy.no_such_step')

    def test_a_configdrive_with_another_target_is_400(self):
        node = self.create_node(name='node-1')
        self.uuid = node.uuid
        node = objects.Node.get(self.context, node.uuid)
        response = self.provision('manage', configdrive=URL)
        self.assertRefused(response, node, 400, 'configdrive', "'manage'")


@ddt.ddt
class StoredConfigdriveTest(ConfigdriveTestCase):

    def deployed_with(self, configdrive):
        self.available()
        return self.deployed('active', configdrive=configdrive)

    @ddt.data('/v1/nodes/node-1', '/v1/nodes/detail',
              '/v1/nodes?detail=True', '/v1/nodes/node-1?fields=instance_info')
    def test_the_stored_configdrive_is_shown_masked(self, path):
        self.deployed_with(URL)
        response = self.get(path)
        self.assertEqual(200, response.status_code, response.data)
        body = response.get_json()
        node = body['nodes'][0] if 'nodes' in body else body
        self.assertEqual('******', node['instance_info']['configdrive'])
        self.assertNoSecret(response)

    def test_a_built_configdrive_is_shown_masked_too(self):
        node = self.deployed_with(OBJECT)
        response = self.get('/v1/nodes/node-1')
        self.assertEqual('******',
                         response.get_json()['instance_info']['configdrive'])
        self.assertNotIn(self.stored(node), response.get_data(as_text=True))
        self.assertNoSecret(response)

    def test_the_agents_lookup_shows_it_masked(self):
        node = self.deployed_with(URL)
        response = self.get('/v1/lookup?node_uuid=%s' % node.uuid,
                            version='latest')
        self.assertEqual(
            '******',
            response.get_json()['node']['instance_info']['configdrive'])
        self.assertNoSecret(response)

    @ddt.data(
        [{'op': 'test', 'path': '/instance_info/configdrive',
          'value': URL}],
        [{'op': 'copy', 'from': '/instance_info/configdrive',
          'path': '/extra/leak'}],
        [{'op': 'move', 'from': '/instance_info/configdrive',
          'path': '/name'}],
    )
    def test_it_cannot_be_tested_copied_or_moved(self, patch):
        self.deployed_with(URL)
        response = self.patch('/v1/nodes/node-1', json=patch)
        self.assertEqual(400, response.status_code, response.data)
        self.assertNoSecret(response)


class PinnedTo07Test(ConfigdriveTestCase):
    """Release 0.7's conductors take no config drive and cannot run the
    direct deploy interface."""

    # Set before the conductor starts, which registers what it offers
    # (group None: [DEFAULT]).
    conductor_config = {None: {'pin_release_version': '0.7'}}

    def test_a_configdrive_is_refused_naming_the_release_it_needs(self):
        node = self.available()
        response = self.provision('active', configdrive=URL)
        self.assertRefused(response, node, 406, 'config drive', '0.8',
                           '0.7')

    def test_a_deploy_without_a_configdrive_still_starts(self):
        node = self.available()
        self.deployed('active', configdrive=None)
        self.assertIsNone(self.stored(node))

    def test_a_node_cannot_be_created_with_the_direct_interface(self):
        response = self.post('/v1/nodes', json={
            'name': 'node-1', 'driver': 'fake-hardware',
            'deploy_interface': 'direct'})
        self.assertError(response, 406, 'direct', '0.7', '0.8')
        self.assertEqual([], self.get('/v1/nodes').get_json()['nodes'])

    def test_a_node_cannot_be_given_the_direct_interface(self):
        self.api_create(name='node-1')
        response = self.patch('/v1/nodes/node-1', json=[
            {'op': 'replace', 'path': '/deploy_interface',
             'value': 'direct'}])
        self.assertError(response, 406, 'direct', '0.7', '0.8')
        self.assertEqual('fake', self.get('/v1/nodes/node-1').get_json()[
            'deploy_interface'])

    def test_the_driver_does_not_offer_the_direct_interface(self):
        body = self.get('/v1/drivers/fake-hardware').get_json()
        self.assertNotIn('direct', body['enabled_deploy_interfaces'])

    def test_validation_says_why_a_direct_node_cannot_deploy(self):
        # Given a direct node enrolled before the services were pinned
        self.config(pin_release_version=None)
        node = self.create_node(name='node-1', deploy_interface='direct')
        self.config(pin_release_version='0.7')
        body = self.get('/v1/nodes/%s/validate' % node.uuid).get_json()
        self.assertFalse(body['deploy']['result'])
        self.assertIn('0.8', body['deploy']['reason'])
