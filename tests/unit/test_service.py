"""Starting a service: configuration and database checks come first."""

import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time

import ddt
import fixtures

from ironic_steps.api import request_threads
from ironic_steps.common import exception
from ironic_steps.common import exposure
from ironic_steps.conf import CONF
from ironic_steps.db import migration
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from ironic_steps import objects
from ironic_steps import service
from tests import base
from tests import burst
from tests import keystone_options
from tests import self_signed


class CheckConfigTest(base.TestCase):

    def _load(self, text):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'ironic-steps.conf')
        with open(path, 'w') as conf:
            conf.write(text)
        CONF(['--config-file', path], project='ironic-steps',
             default_config_files=[])

    def test_an_unknown_release_pin_stops_the_start_naming_valid_ones(self):
        self._load('[DEFAULT]\npin_release_version = 9.9\n')
        exc = self.assertRaises(SystemExit, service.check_config)
        self.assertIn('[DEFAULT] pin_release_version', str(exc))
        self.assertIn("'9.9'", str(exc))
        self.assertIn('0.1, 0.2', str(exc))

    def test_a_bad_number_is_reported_with_its_group(self):
        self._load('[conductor]\nworkers_pool_size = many\n')
        exc = self.assertRaises(SystemExit, service.check_config)
        self.assertIn('[conductor] workers_pool_size', str(exc))

    def test_oslo_service_s_ssl_options_are_read_as_the_api_s(self):
        # Older Ironic configurations name the certificate under [ssl].
        self._load('[api]\nenable_ssl_api = true\n'
                   '[ssl]\ncert_file = /etc/c.pem\nkey_file = /etc/k.pem\n')
        service.check_config()
        self.assertEqual(('/etc/c.pem', '/etc/k.pem'),
                         (CONF.api.cert_file, CONF.api.key_file))

    def test_a_valid_configuration_passes(self):
        self._load('[DEFAULT]\npin_release_version = 0.1\n')
        service.check_config()

    def test_an_option_nothing_reads_stops_the_start_naming_it(self):
        self._load('[agent]\ncomand_timeout = 5\n[pxe]\ntftp_root = /t\n')
        exc = self.assertRaises(SystemExit, service.check_config)
        self.assertIn('[agent] comand_timeout', str(exc))
        self.assertIn('[pxe] tftp_root', str(exc))
        self.assertIn('no such option', str(exc))

    def test_ironics_names_and_the_libraries_options_are_known(self):
        self._load('[DEFAULT]\ndebug = true\ntransport_url = fake:/\n'
                   '[agent]\nimage_download_source = http\n'
                   'stream_raw_images = true\ndeploy_logs_collect = never\n'
                   'require_tls = false\n'
                   '[deploy]\nerase_devices_priority = 0\n'
                   'erase_devices_metadata_priority = 99\n'
                   '[conductor]\nautomated_clean = true\n'
                   '[api]\nramdisk_heartbeat_timeout = 30\n'
                   '[oslo_messaging_rabbit]\n'
                   'heartbeat_timeout_threshold = 10\n'
                   '[oslo_policy]\npolicy_file = policy.yaml\n'
                   '[database]\nconnection = sqlite://\n')
        service.check_config()

    def test_an_ironic_keystone_authtoken_section_is_taken_as_it_is(self):
        self.useFixture(keystone_options.KeystoneOptions())
        self._load('[DEFAULT]\nauth_strategy = keystone\n'
                   '[keystone_authtoken]\n'
                   'www_authenticate_uri = http://192.0.2.5:5000\n'
                   'auth_url = http://192.0.2.5:5000\n'
                   'auth_type = password\nusername = ironic\n'
                   'password = secret\nproject_name = service\n'
                   'user_domain_name = Default\n'
                   'project_domain_name = Default\n'
                   'region_name = RegionOne\n'
                   'memcached_servers = 127.0.0.1:11211\n')
        service.check_config()

    def test_keystone_without_credentials_of_its_own_stops_the_start(self):
        self._load('[DEFAULT]\nauth_strategy = keystone\n'
                   '[keystone_authtoken]\n'
                   'www_authenticate_uri = http://192.0.2.5:5000\n')
        exc = self.assertRaises(SystemExit, service.check_config)
        self.assertIn('[keystone_authtoken] auth_type: not set', str(exc))

    def test_an_unknown_auth_plugin_is_named(self):
        self._load('[DEFAULT]\nauth_strategy = keystone\n'
                   '[keystone_authtoken]\nauth_type = pasword\n')
        exc = self.assertRaises(SystemExit, service.check_config)
        self.assertIn("no auth plugin is called 'pasword'", str(exc))


class PrepareDatabaseTest(base.TestCase):

    def setUp(self):
        super().setUp()
        directory = self.useFixture(fixtures.TempDir()).path
        self.config(state_path=directory)
        sqlalchemy_api.configure(
            connection='sqlite:///%s/empty.sqlite' % directory)

    def test_the_embedded_service_creates_the_schema_of_an_empty_db(self):
        service.prepare_database(create_if_empty=True)
        self.assertEqual([], migration.pending())

    def test_separate_services_refuse_an_empty_db_and_name_the_command(self):
        exc = self.assertRaises(exception.IronicStepsException,
                                service.prepare_database,
                                create_if_empty=False)
        self.assertIn('ironic-steps-dbsync upgrade', str(exc))
        self.assertIsNone(migration.version())

    def test_pending_migrations_stop_every_service(self):
        migration.upgrade('2c1f0b4d9e01')
        exc = self.assertRaises(exception.IronicStepsException,
                                service.prepare_database,
                                create_if_empty=True)
        self.assertIn('7b3e5d2a8f10', str(exc))
        self.assertEqual('2c1f0b4d9e01', migration.version())


class AllInOneApiTest(base.TestCase):
    """The all-in-one service's API: one thread, and no request waits."""

    def start_service(self):
        directory = self.useFixture(fixtures.TempDir()).path
        self.config(state_path=directory)
        self.config(host_ip='127.0.0.1', port=0, group='api')
        self.config(connection='sqlite:///%s/aio.sqlite' % directory,
                    group='database')
        svc = service.Service()
        svc.start()
        self.addCleanup(svc.stop)
        return svc

    def request(self, svc, method, path, body=None):
        connection = http.client.HTTPConnection('127.0.0.1', svc.port,
                                                timeout=60)
        self.addCleanup(connection.close)
        connection.request(method, path, body=json.dumps(body),
                           headers={'Content-Type': 'application/json',
                                    'X-OpenStack-Ironic-API-Version': '1.44'})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or 'null')

    def test_one_thread_serves_requests_unless_configured(self):
        self.assertEqual(1, self.start_service().server.threads)

    def test_the_configured_number_of_threads_is_used(self):
        self.config(api_workers=3, group='api')
        self.assertEqual(3, self.start_service().server.threads)

    def test_lists_across_the_deployment_run_on_the_lane(self):
        usual = sys.getswitchinterval()
        svc = self.start_service()
        is_long = svc.server.long_requests
        self.assertTrue(is_long('GET', '/v1/ports'))
        self.assertTrue(is_long('GET', '/v1/nodes/detail'))
        self.assertFalse(is_long('GET', '/v1/nodes/some-node'))
        self.assertFalse(is_long('GET', '/v1/nodes/some-node/ports'))
        self.assertFalse(is_long('POST', '/v1/nodes'))
        # The interpreter changes threads quickly only while the lane runs
        # a request (so that the I/O thread gets it back soon).
        self.assertEqual(usual, sys.getswitchinterval())
        seen = []
        handed_back = threading.Event()
        lane = svc.server._request_threads
        real_run, real_ran = lane._run, lane._ran

        def run(conn, request):
            seen.append(sys.getswitchinterval())
            return real_run(conn, request)

        def ran(conn):
            # Once the request ran: the interval is set back by then.
            seen.append(sys.getswitchinterval())
            handed_back.set()
            return real_ran(conn)

        lane._run, lane._ran = run, ran
        self.assertEqual(200, self.request(svc, 'GET', '/v1/ports')[0])
        self.assertTrue(handed_back.wait(10))
        self.assertEqual([0.001, usual], seen)

    def test_two_lanes_at_once_set_the_interval_back_once_both_ended(self):
        usual = sys.getswitchinterval()
        switches = request_threads._QuickSwitches()
        with switches:
            with switches:
                self.assertEqual(0.001, sys.getswitchinterval())
            self.assertEqual(0.001, sys.getswitchinterval())
        self.assertEqual(usual, sys.getswitchinterval())

    def test_with_a_pool_there_is_no_lane(self):
        self.config(api_workers=3, group='api')
        self.assertIsNone(self.start_service().server.long_requests)

    def test_the_server_gets_the_configured_limits(self):
        self.config(client_timeout=7, max_json_body_size=64,
                    max_connections=99, backlog=55, retry_after_seconds=3,
                    group='api')
        server = self.start_service().server
        self.assertEqual(7, server.timeout)
        self.assertEqual(64 * 1024, server.max_body)
        self.assertEqual((99, 55, 3), (server.max_connections,
                                       server.backlog, server.retry_after))

    def test_fifty_clients_connecting_at_once_are_all_served(self):
        svc = self.start_service()
        outcomes = burst.burst('127.0.0.1', svc.port, 50,
                               b'GET /v1/nodes HTTP/1.1\r\nHost: t\r\n'
                               b'Connection: close\r\n\r\n')
        self.assertEqual([('served', 200)] * 50,
                         [(o.outcome, o.status) for o in outcomes])

    def test_ten_hostile_connections_do_not_hold_the_default_api(self):
        # Given the all-in-one service as configured by default
        svc = self.start_service()
        hostile = []
        for number in range(10):
            sock = socket.create_connection(('127.0.0.1', svc.port))
            self.addCleanup(sock.close)
            if number % 3 == 1:      # half a request
                sock.sendall(b'POST /v1/nodes HTTP/1.1\r\nHost: t\r\n'
                             b'Content-Length: 100\r\n\r\n{"dri')
            elif number % 3 == 2:    # the start of a head, then nothing
                sock.sendall(b'GET /v1/no')
            hostile.append(sock)
        # Then a normal request is answered within a second
        started = time.monotonic()
        status, _ = self.request(svc, 'GET', '/v1/nodes')
        self.assertEqual(200, status)
        self.assertLess(time.monotonic() - started, 1.0)

    def test_each_request_has_its_own_request_id(self):
        svc = self.start_service()
        ids = set()
        for _ in range(3):
            connection = http.client.HTTPConnection('127.0.0.1', svc.port,
                                                    timeout=60)
            connection.request('GET', '/v1/nodes')
            response = connection.getresponse()
            response.read()
            connection.close()
            ids.add(response.headers['X-OpenStack-Request-Id'])
        self.assertEqual(3, len(ids))

    def test_a_locked_node_is_answered_409_at_once_not_retried(self):
        # Given retries so slow that waiting for one would show
        self.config(node_locked_retry_interval=30, group='conductor')
        svc = self.start_service()
        node = self.create_node()
        objects.Node.reserve(self.context, 'another-task', node.id)
        started = time.monotonic()
        status, body = self.request(
            svc, 'PUT', '/v1/nodes/%s/states/provision' % node.uuid,
            {'target': 'manage'})
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(409, status)
        self.assertIn('another-task', body['error_message'])
        self.assertEqual('enroll', objects.Node.get(
            self.context, node.uuid).provision_state)

    def test_retrying_locked_nodes_is_refused_with_the_option_named(self):
        self.config(node_locked_retry_attempts=3, group='conductor')
        failure = self.assertRaises(exception.IronicStepsException,
                                    self.start_service)
        self.assertIn('[conductor] node_locked_retry_attempts = 3',
                      str(failure))
        self.assertIn('set it to 1', str(failure))
        # Refused before anything was made: no database file.
        self.assertFalse(os.path.exists(
            CONF.database.connection[len('sqlite:///'):]))


class DefaultApiThreadsTest(base.TestCase):

    def test_the_all_in_one_runs_requests_on_the_io_thread(self):
        # Slow clients cannot hold it: the server reads requests whole
        # before running them, on a network address as on loopback.
        self.assertEqual(1, service.default_api_threads(True))

    def test_a_separate_api_has_several_threads(self):
        self.assertEqual(4, service.default_api_threads(False))


@ddt.ddt
class ExposureTest(base.TestCase):
    """noauth makes every caller an administrator: not on a network."""

    @ddt.data('127.0.0.1', '::1', 'localhost', '127.0.0.2')
    def test_noauth_on_loopback_starts_quietly(self, host):
        logs = self.useFixture(fixtures.FakeLogger())
        exposure.check_exposure(host)
        self.assertEqual('', logs.output)

    @ddt.data('0.0.0.0', '192.0.2.10', '::', 'bm.example.com')
    def test_noauth_on_a_network_address_refuses_to_start(self, host):
        exc = self.assertRaises(exception.UnauthenticatedOnNetwork,
                                exposure.check_exposure, host)
        self.assertIn(host, str(exc))
        self.assertIn('allow_noauth_off_loopback', str(exc))

    def test_the_refusal_comes_before_the_api_binds(self):
        # Never binds: the check refuses first (tests bind loopback only).
        self.config(host_ip='192.0.2.10', port=0, group='api')
        svc = service.Service(conductor=False)
        self.assertRaises(exception.UnauthenticatedOnNetwork,
                          svc._start_api)
        self.assertIsNone(svc.server)

    def test_a_port_in_use_is_named_and_nothing_is_left_to_stop(self):
        with socket.socket() as holder:
            holder.bind(('127.0.0.1', 0))
            holder.listen()
            port = holder.getsockname()[1]
            self.config(port=port, group='api')
            svc = service.Service(conductor=False)
            exc = self.assertRaises(exception.APICannotListen,
                                    svc._start_api)
        self.assertIn('127.0.0.1 port %d: Address already in use' % port,
                      str(exc))
        self.assertIsNone(svc.server)
        svc.stop()   # what the command does next: no AttributeError

    def test_allowed_explicitly_it_warns_at_every_start(self):
        self.config(allow_noauth_off_loopback=True, group='api')
        logs = self.useFixture(fixtures.FakeLogger())
        exposure.check_exposure('192.0.2.10')
        exposure.check_exposure('192.0.2.10')
        self.assertEqual(2, logs.output.count('without authentication'))

    def test_http_basic_may_listen_anywhere(self):
        self.config(auth_strategy='http_basic')
        exposure.check_exposure('192.0.2.10')

    def test_keystone_may_listen_anywhere(self):
        self.config(auth_strategy='keystone')
        exposure.check_exposure('192.0.2.10')


class TLSTest(base.TestCase):
    """[api] enable_ssl_api: the API's own server speaks HTTPS."""

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.cert, self.key = self_signed.certificate(self.directory)
        self.config(host_ip='127.0.0.1', port=0, group='api')
        self.config(enable_ssl_api=True, cert_file=self.cert,
                    key_file=self.key, group='api')

    def test_a_verifying_client_is_served_over_https(self):
        svc = service.Service(conductor=False)
        svc._start_api()
        self.addCleanup(svc.stop)
        connection = http.client.HTTPSConnection(
            '127.0.0.1', svc.port, timeout=30,
            context=ssl.create_default_context(cafile=self.cert))
        self.addCleanup(connection.close)
        connection.request('GET', '/v1')
        response = connection.getresponse()
        self.assertEqual(200, response.status)
        self.assertEqual('https://127.0.0.1:%d/v1/' % svc.port, json.loads(
            response.read())['links'][0]['href'])

    def test_a_missing_file_option_stops_the_start_naming_it(self):
        self.config(key_file=None, group='api')
        svc = service.Service(conductor=False)
        exc = self.assertRaises(exception.APICannotServeTLS, svc._start_api)
        self.assertIn('set [api] key_file', str(exc))
        self.assertIsNone(svc.server)

    def test_a_file_that_cannot_be_used_is_named(self):
        for cert, key, said in (
                ('/nonexistent/cert.pem', self.key, 'No such file'),
                (self.key, self.key, self.key),
                (self.cert, self.cert, self.cert)):
            self.config(cert_file=cert, key_file=key, group='api')
            svc = service.Service(conductor=False)
            exc = self.assertRaises(exception.APICannotServeTLS,
                                    svc._start_api)
            self.assertIn(said, str(exc))
            self.assertIn('[api] cert_file', str(exc))
            self.assertIsNone(svc.server)


class CommandTest(base.TestCase):
    """What the service command says when it cannot start."""

    def test_a_port_in_use_ends_the_command_with_one_line_naming_it(self):
        directory = self.useFixture(fixtures.TempDir()).path
        with socket.socket() as holder:
            holder.bind(('127.0.0.1', 0))
            holder.listen()
            port = holder.getsockname()[1]
            config = os.path.join(directory, 'ironic-steps.conf')
            with open(config, 'w') as out:
                out.write('[DEFAULT]\nstate_path = %s\n[api]\nport = %d\n'
                          % (directory, port))
            result = subprocess.run(
                [sys.executable, '-m', 'ironic_steps.cmd.all_in_one',
                 '--config-file', config], capture_output=True, text=True,
                timeout=120)
        self.assertEqual(1, result.returncode, result.stderr)
        last = result.stderr.strip().splitlines()[-1]
        self.assertEqual('all_in_one.py: The API cannot listen on 127.0.0.1 '
                         'port %d: Address already in use.' % port,
                         last.partition(' Another service')[0])
        self.assertNotIn('Traceback', result.stderr)
        self.assertNotIn('AttributeError', result.stderr)
