"""Microversion negotiation, version discovery and the version table."""

import inspect
import re

import ddt

from ironic_steps.api import node_view
from ironic_steps.api import versions
from ironic_steps import release_mappings
from tests.unit.api import base

#: The newest version, as the release mapping says (the code's maximum is
#: checked against it in VersionTableTest and test_release_mappings).
MAX = release_mappings.RELEASE_MAPPING['master']['api']
#: The first version past it.
ABOVE_MAX = '1.%d' % (int(MAX.split('.')[1]) + 1)
RANGE = {versions.MIN_HEADER: '1.1', versions.MAX_HEADER: MAX}


@ddt.ddt
class NegotiationTest(base.ApiTestCase):

    def assertVersionHeaders(self, response, used):
        for header, value in RANGE.items():
            self.assertEqual(value, response.headers[header])
        self.assertEqual(used, response.headers[versions.HEADER])

    def test_a_request_without_a_header_gets_the_minimum_version(self):
        response = self.get('/v1/nodes', version=None)
        self.assertEqual(200, response.status_code)
        self.assertVersionHeaders(response, '1.1')

    @ddt.data('latest', 'LATEST', ' latest ')
    def test_latest_means_the_maximum_version(self, value):
        response = self.get('/v1/nodes', version=value)
        self.assertVersionHeaders(response, MAX)

    def test_the_ironic_header_picks_the_version(self):
        self.assertVersionHeaders(self.get('/v1/nodes', version='1.31'),
                                  '1.31')

    @ddt.data('baremetal 1.31', 'compute 2.1, baremetal 1.31',
              'BAREMETAL 1.31')
    def test_the_generic_openstack_header_picks_the_version_too(self, value):
        response = self.get('/v1/nodes', version=None,
                            headers={'OpenStack-API-Version': value})
        self.assertVersionHeaders(response, '1.31')
        self.assertEqual('baremetal 1.31',
                         response.headers['OpenStack-API-Version'])

    def test_a_generic_header_for_another_service_is_ignored(self):
        response = self.get('/v1/nodes', version=None,
                            headers={'OpenStack-API-Version': 'compute 2.1'})
        self.assertVersionHeaders(response, '1.1')

    @ddt.data('1.0', ABOVE_MAX, '1.999', '2.0', '0.44')
    def test_a_version_out_of_range_is_406_naming_the_range(self, value):
        response = self.get('/v1/nodes', version=value)
        self.assertError(response, 406, value, '[1.1, %s]' % MAX)
        self.assertVersionHeaders(response, value)

    def test_even_version_discovery_refuses_an_unsupported_version(self):
        response = self.get('/', version='1.999')
        self.assertError(response, 406, '1.999')
        self.assertVersionHeaders(response, '1.999')

    @ddt.data('1', 'abc', '1.x', '1.44.1', '', 'v1.44')
    def test_a_malformed_version_is_400_with_the_range_headers(self, value):
        response = self.get('/v1/nodes', version=value)
        self.assertError(response, 400, versions.HEADER)
        self.assertVersionHeaders(response, '1.1')

    def test_a_version_of_thousands_of_digits_is_400_not_500(self):
        huge = '1.' + '9' * 5000
        self.assertError(self.get('/v1/nodes', version=huge), 400,
                         versions.HEADER)
        self.assertError(self.get('/v1/nodes', version=None, headers={
            'OpenStack-API-Version': 'baremetal ' + huge}), 400,
            versions.GENERIC_HEADER)

    def test_two_headers_that_disagree_are_400(self):
        response = self.get('/v1/nodes', version='1.40', headers={
            'OpenStack-API-Version': 'baremetal 1.41'})
        self.assertError(response, 400, '1.40', '1.41')

    def test_two_headers_that_agree_are_fine(self):
        response = self.get('/v1/nodes', version='1.41', headers={
            'OpenStack-API-Version': 'baremetal 1.41'})
        self.assertVersionHeaders(response, '1.41')

    def test_errors_carry_the_version_headers_too(self):
        response = self.get('/v1/nodes/no-such-node', version='1.40')
        self.assertError(response, 404, 'no-such-node')
        self.assertVersionHeaders(response, '1.40')


class DiscoveryTest(base.ApiTestCase):

    VERSION = {'id': 'v1', 'status': 'CURRENT', 'min_version': '1.1',
               'version': MAX,
               'links': [{'href': 'http://localhost/v1/', 'rel': 'self'}]}

    def test_root_lists_v1_as_the_current_and_default_version(self):
        body = self.get('/', version=None).get_json()
        self.assertEqual([self.VERSION], body['versions'])
        self.assertEqual(self.VERSION, body['default_version'])
        self.assertEqual('OpenStack Ironic API', body['name'])

    def test_v1_lists_its_resources_media_type_and_version(self):
        body = self.get('/v1', version=None).get_json()
        self.assertEqual('v1', body['id'])
        self.assertEqual(self.VERSION, body['version'])
        self.assertEqual('application/vnd.openstack.ironic.v1+json',
                         body['media_types'][0]['type'])
        self.assertEqual([{'href': 'http://localhost/v1/nodes/',
                           'rel': 'self'},
                          {'href': 'http://localhost/nodes/',
                           'rel': 'bookmark'}], body['nodes'])
        self.assertIn('drivers', body)

    def test_v1_links_the_resources_of_the_version_asked(self):
        for version, resources in (
                ('1.1', {'nodes', 'drivers'}),
                ('1.22', {'nodes', 'drivers', 'lookup', 'heartbeat'}),
                ('1.49', {'nodes', 'drivers', 'lookup', 'heartbeat',
                          'conductors'}),
                ('1.55', {'nodes', 'drivers', 'lookup', 'heartbeat',
                          'conductors', 'deploy_templates'})):
            body = self.get('/v1', version=version).get_json()
            self.assertEqual(resources, {
                key for key, value in body.items()
                if key not in ('id', 'links') and isinstance(value, list)
                and value and 'rel' in value[0]}, version)

    def test_links_use_the_public_endpoint_when_configured(self):
        self.config(public_endpoint='https://bm.example.com:8443/',
                    group='api')
        body = self.get('/v1/', version=None).get_json()
        self.assertEqual('https://bm.example.com:8443/v1/',
                         body['links'][0]['href'])


class VersionTableTest(base.ApiTestCase):
    """Invariants between the version constants and their users."""

    def minors(self):
        return {name: value for name, value in vars(versions).items()
                if name.startswith('MINOR_')}

    def test_every_version_constant_is_in_the_changelog(self):
        changelog = inspect.getdoc(versions)
        for name, minor in self.minors().items():
            self.assertRegex(changelog, r'\* 1\.%d - ' % minor, name)
            self.assertTrue(name.startswith('MINOR_%d_' % minor), name)

    def test_the_changelog_names_only_known_versions(self):
        listed = re.findall(r'^\* 1\.(\d+) - ', inspect.getdoc(versions),
                            re.MULTILINE)
        self.assertEqual(sorted(self.minors().values()),
                         sorted(int(minor) for minor in listed))

    def test_every_gated_field_is_within_the_supported_range(self):
        for field in node_view.FIELDS:
            since = node_view.since(field)
            # (or built ahead of the maximum, awaiting the ladder)
            self.assertTrue(versions.MIN_VERSION <= since
                            <= versions.max_version()
                            or since[1] in versions.AWAITING_LADDER, field)

    def test_the_maximum_is_the_newest_version_constant(self):
        served = set(self.minors().values()) - versions.AWAITING_LADDER
        self.assertEqual((1, max(served)), versions.max_version())

    def test_a_version_awaiting_the_ladder_is_above_the_maximum(self):
        for minor in versions.AWAITING_LADDER:
            self.assertGreater((1, minor), versions.max_version())
            self.assertRegex(inspect.getdoc(versions),
                             r'\* 1\.%d - \(awaiting the ladder' % minor)
        self.assertEqual(MAX, versions.to_string(versions.max_version()))
