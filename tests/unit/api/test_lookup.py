"""GET /v1/lookup: an agent finds its node by a port's MAC address, and
learns how to behave from the answer's config, as ironic-python-agent
reads it."""

from ironic_steps.common import states
from ironic_steps import objects
from tests.unit.api import base


class LookupTest(base.ApiTestCase):

    def deploy_to_wait(self, name='node-1'):
        node = self.make_available(name=name)
        self.provision(name, 'active')
        return self.wait_for_state(node, states.DEPLOYWAIT)

    def add_port(self, node, address):
        response = self.post('/v1/ports', json={'node_uuid': node.uuid,
                                                'address': address})
        self.assertEqual(201, response.status_code, response.data)

    def lookup(self, query):
        return self.get('/v1/lookup?%s' % query, version='latest')

    def test_an_agent_finds_its_node_by_a_mac_address_of_its_ports(self):
        node = self.deploy_to_wait()
        self.add_port(node, '52:54:00:12:34:56')
        response = self.lookup('addresses=aa:bb:cc:dd:ee:ff,'
                               '52:54:00:12:34:56')
        self.assertEqual(200, response.status_code, response.data)
        self.assertEqual(node.uuid, response.get_json()['node']['uuid'])

    def test_addresses_match_whatever_their_case(self):
        node = self.deploy_to_wait()
        self.add_port(node, '52:54:00:ab:cd:ef')
        response = self.lookup('addresses=52:54:00:AB:CD:EF')
        self.assertEqual(node.uuid, response.get_json()['node']['uuid'])

    def test_addresses_of_no_node_find_nothing(self):
        self.deploy_to_wait()
        self.assertError(self.lookup('addresses=52:54:00:00:00:01'), 404,
                         '52:54:00:00:00:01')

    def test_addresses_of_two_nodes_find_neither(self):
        first = self.deploy_to_wait('node-1')
        second = self.deploy_to_wait('node-2')
        self.add_port(first, '52:54:00:00:00:01')
        self.add_port(second, '52:54:00:00:00:02')
        self.assertError(self.lookup(
            'addresses=52:54:00:00:00:01,52:54:00:00:00:02'), 404,
            '52:54:00:00:00:01')

    def test_a_node_no_agent_serves_is_not_found_by_its_ports_either(self):
        node = self.make_available(name='node-1')
        self.add_port(node, '52:54:00:00:00:03')
        self.assertError(self.lookup('addresses=52:54:00:00:00:03'), 404)

    def test_a_lookup_naming_neither_uuid_nor_address_is_400(self):
        self.assertError(self.lookup('addresses=,'), 400, 'addresses')

    def test_the_config_tells_the_agent_what_ironic_would(self):
        self.config(ramdisk_heartbeat_timeout=7, group='api')
        self.config(permitted_image_formats=['raw', 'qcow2'],
                    group='conductor')
        node = self.deploy_to_wait()
        config = self.lookup('node_uuid=%s' % node.uuid).get_json()['config']
        self.assertEqual(7, config['heartbeat_timeout'])
        self.assertEqual(['raw', 'qcow2'], config['permitted_image_formats'])
        self.assertIs(False, config['disable_deep_image_inspection'])
        self.assertIs(False, config['agent_md5_checksum_enable'])
        self.assertIs(True, config['agent_token_required'])
        self.assertGreaterEqual(len(config['agent_token']), 32)


class _WaitingForItsAgentTestCase(base.ApiTestCase):
    """node-1 deploying, waiting for its agent, whose token was looked up
    (``self.token``)."""

    def setUp(self):
        super().setUp()
        node = self.make_available(name='node-1')
        self.provision('node-1', 'active')
        self.wait_for_state(node, states.DEPLOYWAIT)
        self.token = self.lookup_token(node.uuid)
        self.node = objects.Node.get(self.context, node.uuid)


class CallbackUrlTest(_WaitingForItsAgentTestCase):
    """A heartbeat's callback_url is where the conductor sends commands,
    with the agent token: it must be the agent's own address."""

    def heartbeat(self, url):
        return self.post('/v1/heartbeat/node-1', json={
            'callback_url': url, 'agent_token': self.token})

    def test_the_address_the_heartbeat_comes_from_is_accepted(self):
        self.assertEqual(202, self.heartbeat(
            'http://127.0.0.1:9999').status_code)

    def test_another_host_is_refused(self):
        self.assertError(self.heartbeat('http://10.1.2.3:9999'), 400,
                         'callback_url', '127.0.0.1')

    def test_another_host_in_a_configured_network_is_accepted(self):
        self.config(callback_networks=['10.1.0.0/16'], group='agent')
        self.assertEqual(202, self.heartbeat(
            'https://10.1.2.3:9999').status_code)

    def test_what_is_not_an_http_url_is_refused(self):
        for url in ('ftp://127.0.0.1:21', 'http://127.0.0.1:0',
                    'http:///x', 'http://127.0.0.1:9999/?agent_token=x'):
            self.assertError(self.heartbeat(url), 400, 'callback_url')

    def test_with_require_tls_only_https_is_accepted(self):
        self.config(require_tls=True, group='agent')
        self.assertError(self.heartbeat('http://127.0.0.1:9999'), 400,
                         'require_tls')
        self.assertEqual(202, self.heartbeat(
            'https://127.0.0.1:9999').status_code)

    def test_agent_verify_ca_needs_1_68(self):
        response = self.post('/v1/heartbeat/node-1', version='1.67',
                             json={'agent_verify_ca': 'x'})
        self.assertError(response, 406, 'agent_verify_ca', '1.68')


class LookupRefusalTest(base.ApiTestCase):
    """Anyone may look up: what is not a MAC address is refused before
    any query, and tells nothing about nodes."""

    def test_an_address_that_is_not_a_mac_is_400_naming_the_field(self):
        response = self.get('/v1/lookup?addresses=52:54:00:12:34:56,'
                            'x%27%20OR%201=1', version='latest')
        self.assertError(response, 400, 'addresses', 'not a MAC address')

    def test_a_very_long_address_is_not_echoed_whole(self):
        response = self.get('/v1/lookup?addresses=' + 'a' * 4000,
                            version='latest')
        self.assertError(response, 400, 'addresses')
        self.assertLess(len(response.data), 1000)

    def test_more_than_sixty_four_addresses_are_refused(self):
        many = ','.join('52:54:00:00:%02x:%02x' % (i // 256, i % 256)
                        for i in range(65))
        self.assertError(self.get('/v1/lookup?addresses=' + many,
                                  version='latest'), 400, '64')


class AgentCertificateTest(_WaitingForItsAgentTestCase):
    """agent_verify_ca becomes a file the conductor trusts: it must look
    like a certificate, and a bad one changes nothing."""

    def heartbeat(self, certificate):
        return self.post('/v1/heartbeat/node-1', json={
            'agent_token': self.token, 'agent_verify_ca': certificate})

    def test_what_is_not_a_pem_certificate_is_refused_and_kept_nowhere(self):
        for bad in ('/etc/passwd', '../../x', '-----BEGIN CERTIFICATE-----'
                    + 'A' * 20000):
            self.assertError(self.heartbeat(bad), 400, 'agent_verify_ca')
        self.assertNodeUnchanged(self.node)
