"""A node's virtual media (API 1.89 attach and detach, 1.93 list), through
the real API and conductor on SQLite, with fake-hardware's management,
which records what it is given."""

import ddt

from ironic_steps.drivers.modules import fake
from ironic_steps import objects
from tests.unit.api import base

VERSION = '1.89'
GET_VERSION = '1.93'
ISO = 'http://127.0.0.1:8080/images/live.iso'
IMG = 'https://127.0.0.1:8443/images/data.img'


def recorded(context, ident='node-0'):
    """What fake management holds: {device type: image URL}."""
    node = objects.Node.get(context, ident)
    return (node.driver_internal_info or {}).get(fake.VIRTUAL_MEDIA_KEY, {})


@ddt.ddt
class VirtualMediaTest(base.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.node = self.api_create(name='node-0')

    def attach(self, version=VERSION, ident='node-0', **body):
        return self.post('/v1/nodes/%s/vmedia' % ident, json=body,
                         version=version)

    def detach(self, query='', version=VERSION):
        return self.delete('/v1/nodes/node-0/vmedia' + query,
                           version=version)

    def listed(self):
        response = self.get('/v1/nodes/node-0/vmedia', version=GET_VERSION)
        self.assertEqual(200, response.status_code, response.data)
        return {tuple(device['media_types']): device['image']
                for device in response.get_json()}

    def test_images_are_attached_listed_and_detached_by_type(self):
        response = self.attach(device_type='cdrom', image_url=ISO)
        self.assertEqual(204, response.status_code, response.data)
        self.assertEqual(204, self.attach(
            ident=self.node['uuid'], device_type='disk', image_url=IMG,
            image_download_source='http').status_code)
        self.assertEqual({'cdrom': ISO, 'disk': IMG},
                         recorded(self.context))
        self.assertEqual({('CD', 'DVD'): ISO, ('USBStick',): IMG,
                          ('Floppy',): None}, self.listed())

        self.assertEqual(204, self.detach('?device_types=cdrom').status_code)
        self.assertEqual({'disk': IMG}, recorded(self.context))
        self.assertEqual(204, self.detach().status_code)
        self.assertEqual({}, recorded(self.context))
        self.assertEqual([False] * 3, [d['inserted'] for d in self.get(
            '/v1/nodes/node-0/vmedia', version=GET_VERSION).get_json()])

    def test_an_image_url_s_credentials_and_signature_are_never_shown(self):
        secret_url = ('http://deployer:s3cret-pw@127.0.0.1/x.iso'
                      '?temp_url_sig=abcdef0123&temp_url_expires=9')
        self.assertEqual(204, self.attach(device_type='cdrom',
                                          image_url=secret_url).status_code)
        listed = self.get('/v1/nodes/node-0/vmedia', version=GET_VERSION)
        self.assertEqual(200, listed.status_code)
        for shown in (listed.data, self.get('/v1/nodes/node-0',
                                            version=GET_VERSION).data):
            self.assertNotIn(b's3cret-pw', shown)
            self.assertNotIn(b'abcdef0123', shown)
        self.assertIn('127.0.0.1/x.iso',
                      self.listed()[('CD', 'DVD')])

    def test_attaching_again_replaces_the_image_of_that_device(self):
        self.attach(device_type='cdrom', image_url=ISO)
        self.attach(device_type='cdrom', image_url=IMG)
        self.assertEqual({'cdrom': IMG}, recorded(self.context))

    @ddt.data(
        ({'device_type': 'usb', 'image_url': ISO}, 'device_type'),
        ({'image_url': ISO}, 'device_type'),
        ({'device_type': 'cdrom'}, 'image_url'),
        ({'device_type': 'cdrom', 'image_url': 'ftp://h/x.iso'}, 'ftp'),
        ({'device_type': 'cdrom', 'image_url': '/srv/x.iso'}, 'scheme'),
        ({'device_type': 'cdrom', 'image_url': 7}, 'image_url'),
        ({'device_type': 'cdrom', 'image_url': ISO,
          'image_download_source': 'glance'}, 'image_download_source'),
        ({'device_type': 'cdrom', 'image_url': ISO,
          'image_download_source': 'swift'}, 'image_download_source'),
        ({'device_type': 'cdrom', 'image_url': ISO, 'username': 'u'},
         'username'))
    @ddt.unpack
    def test_a_bad_attachment_is_400_naming_it_and_nothing_changes(
            self, body, named):
        self.assertError(self.attach(**body), 400, named)
        self.assertEqual({}, recorded(self.context))

    def test_the_types_to_detach_may_come_in_a_body_as_openstacksdk_sends(
            self):
        self.attach(device_type='cdrom', image_url=ISO)
        self.attach(device_type='floppy', image_url=IMG)
        self.attach(device_type='disk', image_url=IMG)
        self.assertEqual(204, self.delete(
            '/v1/nodes/node-0/vmedia', json={'device_types': 'cdrom'},
            version=VERSION).status_code)
        self.assertEqual(204, self.delete(
            '/v1/nodes/node-0/vmedia', json={'device_types': ['floppy']},
            version=VERSION).status_code)
        self.assertEqual({'disk': IMG}, recorded(self.context))

    @ddt.data(('?device_types=usb', None), ('?device_types=cdrom,usb', None),
              ('?device_types=', None), ('?device_type=cdrom', None),
              ('', {'device_types': 'usb'}), ('', {'device_types': 7}),
              ('', {'device_type': 'cdrom'}), ('', ['cdrom']),
              ('?device_types=cdrom', {'device_types': 'cdrom'}))
    @ddt.unpack
    def test_a_bad_detach_is_400_and_nothing_changes(self, query, body):
        self.attach(device_type='cdrom', image_url=ISO)
        response = self.delete('/v1/nodes/node-0/vmedia' + query, json=body,
                               version=VERSION)
        self.assertEqual(400, response.status_code, response.data)
        self.assertEqual({'cdrom': ISO}, recorded(self.context))

    def test_a_node_that_does_not_exist_is_404(self):
        self.assertError(self.attach(ident='nope', device_type='cdrom',
                                     image_url=ISO), 404, 'nope')

    def test_the_endpoints_need_their_versions_and_are_404_below(self):
        self.assertError(self.attach(version='1.88', device_type='cdrom',
                                     image_url=ISO), 404, '1.89')
        self.assertError(self.detach(version='1.88'), 404, '1.89')
        self.assertError(self.get('/v1/nodes/node-0/vmedia',
                                  version='1.92'), 404, '1.93')
        self.assertEqual({}, recorded(self.context))

    def test_each_action_needs_its_policy_rule(self):
        self.use_policy({'baremetal:node:vmedia:attach': '!',
                         'baremetal:node:vmedia:detach': '!',
                         'baremetal:node:vmedia:get': '!'})
        self.assertError(self.attach(device_type='cdrom', image_url=ISO),
                         403, 'baremetal:node:vmedia:attach')
        self.assertError(self.detach(), 403, 'baremetal:node:vmedia:detach')
        self.assertError(self.get('/v1/nodes/node-0/vmedia',
                                  version=GET_VERSION), 403,
                         'baremetal:node:vmedia:get')
        self.assertEqual({}, recorded(self.context))

    def test_a_bmc_that_cannot_be_reached_is_named_in_the_error(self):
        # sushy tries a refused connection three times, this far apart.
        self.config(server_side_retries_delay=0.05, group='redfish')
        self.api_create(name='rf', driver='redfish', driver_info={
            'redfish_address': 'http://127.0.0.1:9',
            'redfish_system_id': '/redfish/v1/Systems/1'})
        response = self.attach(ident='rf', device_type='cdrom',
                               image_url=ISO)
        failure = self.assertError(response, 503, 'attach virtual media',
                                   '127.0.0.1:9')
        self.assertEqual(failure, self.get('/v1/nodes/rf').get_json()[
            'last_error'])
        self.assertEqual(204, self.attach(
            device_type='cdrom', image_url=ISO).status_code)
        self.assertIsNone(self.get('/v1/nodes/node-0').get_json()[
            'last_error'])


class PinnedTo011Test(base.ApiTestCase):
    """Release 0.11's conductors know no virtual media."""

    conductor_config = {None: {'pin_release_version': '0.11'}}

    def test_the_endpoints_do_not_exist_and_nothing_is_recorded(self):
        self.api_create(name='node-0')
        self.assertError(self.post('/v1/nodes/node-0/vmedia', json={
            'device_type': 'cdrom', 'image_url': ISO}, version=VERSION),
            406, '1.83')
        for method in ('POST', 'DELETE', 'GET'):
            self.assertEqual(404, self.request(
                method, '/v1/nodes/node-0/vmedia', version='latest',
                json={'device_type': 'cdrom',
                      'image_url': ISO}).status_code, method)
        self.assertEqual({}, recorded(self.context))
