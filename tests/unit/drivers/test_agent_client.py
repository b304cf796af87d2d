"""The agent client speaks IPA's command API to a real HTTP server.

The server (:class:`tests.fake_ipa.FakeIPA`) answers on 127.0.0.1 as
ironic-python-agent 13's API does (the same paths, bodies, token check,
401 and 409 answers), records every request, and can be told to answer
otherwise for the next requests: busy, a refused token, a server error, a
body that is not JSON, or no answer at all.
"""

import logging
import socket
import time

import ddt
import fixtures

from ironic_steps.common import exception
from ironic_steps.conductor import agent_token
from ironic_steps.drivers.modules import agent_client
from tests import base
from tests import fake_ipa

TOKEN = 'tok-3f9a1c77e2b04d5e'
NODE = {'uuid': '1be26c0b-03f2-4d2d-ae87-c02d7f33c123',
        'properties': {'root_device': {'name': '/dev/sda'}},
        'instance_info': {}, 'driver_info': {'ipmi_password': '******'},
        'driver_internal_info': {}}
PORTS = [{'address': '52:54:00:12:34:56', 'pxe_enabled': True}]
STEP = {'step': 'write_image', 'interface': 'deploy', 'priority': 80,
        'args': {}}
IMAGE = {'id': 'img-1', 'urls': ['http://images/img-1.raw'],
         'os_hash_algo': 'sha256', 'os_hash_value': 'ab' * 32}

BUSY = (409, {'faultcode': 'Client',
              'faultstring': 'Agent is busy: executing command '
                             'execute_deploy_step'})
UNAUTHORIZED = fake_ipa.UNAUTHORIZED
FORBIDDEN = (403, {'faultcode': 'Client', 'faultstring': 'Forbidden'})
SERVER_ERROR = (500, {'faultcode': 'Server',
                      'faultstring': 'Object of type TypeError is not JSON '
                                     'serializable'})
NOT_JSON = (200, b'<html>agent_token=%s</html>' % TOKEN.encode())
HANG = fake_ipa.HANG


def closed_port():
    """A loopback port nothing listens on: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class AgentClientTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config(group='agent', **fake_ipa.QUICK_CLIENT)
        self.agent = self.useFixture(fake_ipa.FakeIPA(token=TOKEN,
                                                      node=NODE['uuid']))
        self.client = agent_client.AgentClient()

    def assertHidesToken(self, text):
        self.assertNotIn(TOKEN, str(text))


@ddt.ddt
class CommandRequestTest(AgentClientTestCase):

    def test_a_command_is_posted_with_its_name_params_and_token(self):
        result = self.client.execute(self.agent.endpoint(), 'standby.sync',
                                     {'a': 1}, wait=True)

        self.assertEqual(
            [('POST', '/v1/commands/', {'wait': 'true', 'agent_token': TOKEN},
              {'name': 'standby.sync', 'params': {'a': 1}})],
            self.agent.requests)
        self.assertEqual('sync', result['command_name'])
        self.assertEqual('SUCCEEDED', result['command_status'])

    def test_a_command_not_waited_for_is_answered_running(self):
        result = self.client.execute(self.agent.endpoint(), 'standby.power_off')

        self.assertEqual({'wait': 'false', 'agent_token': TOKEN},
                         self.agent.requests[0][2])
        self.assertEqual({'name': 'standby.power_off', 'params': {}},
                         self.agent.requests[0][3])
        self.assertEqual('RUNNING', result['command_status'])

    def test_a_command_is_read_by_its_id_and_all_are_listed(self):
        first = self.agent.start('prepare_image')
        second = self.agent.start('sync', 'SUCCEEDED')

        one = self.client.get_command(self.agent.endpoint(), first['id'])
        every = self.client.get_commands_status(self.agent.endpoint())

        self.assertEqual(first['id'], one['id'])
        self.assertEqual([first['id'], second['id']],
                         [command['id'] for command in every])
        self.assertEqual(['/v1/commands/%s' % first['id'], '/v1/commands/'],
                         self.agent.paths('GET'))
        self.assertEqual([{'agent_token': TOKEN}] * 2,
                         [query for _, _, query, _ in self.agent.requests])

    def test_poll_reads_a_running_command_until_it_is_done(self):
        self.agent.reads_until_done = 3
        self.agent.results['install_bootloader'] = {'result': 'ok'}

        result = self.client.execute(self.agent.endpoint(),
                                     'image.install_bootloader', poll=True)

        self.assertEqual('SUCCEEDED', result['command_status'])
        self.assertEqual({'result': 'ok'}, result['command_result'])
        self.assertEqual({'wait': 'false', 'agent_token': TOKEN},
                         self.agent.requests[0][2])
        self.assertEqual(['/v1/commands/%s' % result['id']] * 3,
                         self.agent.paths('GET'))

    def test_poll_gives_up_after_command_wait_attempts_reads(self):
        self.agent.reads_until_done = 100

        exc = self.assertRaises(
            exception.AgentCommandTimeout, self.client.execute,
            self.agent.endpoint(), 'image.install_bootloader', poll=True)

        self.assertEqual(5, len(self.agent.paths('GET')))
        self.assertIn('image.install_bootloader', str(exc))
        self.assertIn('after 5 checks', str(exc))

    @ddt.data(('deploy.get_deploy_steps', {'wait': True, 'poll': True}),
              ('get_deploy_steps', {}), ('deploy.', {}), (None, {}))
    @ddt.unpack
    def test_a_call_that_cannot_be_a_command_is_refused_unsent(self, method,
                                                               kwargs):
        self.assertRaises(exception.InvalidParameterValue,
                          self.client.execute, self.agent.endpoint(), method,
                          **kwargs)
        self.assertEqual([], self.agent.requests)


@ddt.ddt
class CommandTest(AgentClientTestCase):
    """Each command is sent with the name and parameters IPA 13 takes."""

    @ddt.data(
        ('get_deploy_steps', (NODE, PORTS), 'deploy.get_deploy_steps',
         {'node': NODE, 'ports': PORTS}, 'true'),
        ('execute_deploy_step', (STEP, NODE, PORTS),
         'deploy.execute_deploy_step',
         {'step': STEP, 'node': NODE, 'ports': PORTS,
          'deploy_version': None}, 'false'),
        ('get_clean_steps', (NODE, PORTS), 'clean.get_clean_steps',
         {'node': NODE, 'ports': PORTS}, 'true'),
        ('execute_clean_step', (STEP, NODE, PORTS, {'generic': '1.2'}),
         'clean.execute_clean_step',
         {'step': STEP, 'node': NODE, 'ports': PORTS,
          'clean_version': {'generic': '1.2'}}, 'false'),
        ('prepare_image', (IMAGE, 'http://configdrive/1'),
         'standby.prepare_image',
         {'image_info': IMAGE, 'configdrive': 'http://configdrive/1'},
         'false'),
        ('sync', (), 'standby.sync', {}, 'true'),
        ('power_off', (), 'standby.power_off', {}, 'false'),
        ('get_partition_uuids', (), 'standby.get_partition_uuids', {},
         'true'),
        ('collect_system_logs', (), 'log.collect_system_logs', {}, 'true'),
        ('install_bootloader', ('root-uuid', 'uefi', 'efi-uuid'),
         'image.install_bootloader',
         {'root_uuid': 'root-uuid', 'target_boot_mode': 'uefi',
          'efi_system_part_uuid': 'efi-uuid', 'prep_boot_part_uuid': None},
         'false'),
    )
    @ddt.unpack
    def test_the_command_is_posted_as_ipa_expects(self, call, args, name,
                                                  params, wait):
        getattr(self.client, call)(self.agent.endpoint(), *args)

        _, path, query, body = self.agent.requests[0]
        self.assertEqual(('/v1/commands/', wait), (path, query['wait']))
        self.assertEqual({'name': name, 'params': params}, body)

    def test_service_steps_are_steps_of_another_kind(self):
        self.client.execute_step(self.agent.endpoint(), 'service', STEP,
                                 NODE, PORTS, {'generic': '1.2'})

        self.assertEqual(
            {'name': 'service.execute_service_step',
             'params': {'step': STEP, 'node': NODE, 'ports': PORTS,
                        'service_version': {'generic': '1.2'}}},
            self.agent.requests[0][3])

    def test_an_unknown_kind_of_step_is_refused_naming_the_kinds(self):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                self.client.get_steps, self.agent.endpoint(),
                                'verify', NODE, PORTS)
        self.assertIn("'verify'", str(exc))
        self.assertIn('clean, deploy, service', str(exc))

    @ddt.data({'properties': {}}, 'node-uuid', None)
    def test_a_node_without_its_uuid_is_refused_unsent(self, node):
        self.assertRaises(exception.InvalidParameterValue,
                          self.client.get_deploy_steps,
                          self.agent.endpoint(), node, PORTS)
        self.assertEqual([], self.agent.requests)


@ddt.ddt
class FailureTest(AgentClientTestCase):

    def test_a_busy_agent_is_asked_again_until_it_is_free(self):
        self.agent.answer(BUSY, BUSY)

        result = self.client.sync(self.agent.endpoint())

        self.assertEqual(3, len(self.agent.paths('POST')))
        self.assertEqual('SUCCEEDED', result['command_status'])

    def test_a_busy_agent_is_asked_max_command_attempts_times(self):
        self.agent.answer(*[BUSY] * 5)

        exc = self.assertRaises(exception.AgentIsBusy, self.client.sync,
                                self.agent.endpoint())

        self.assertEqual(3, len(self.agent.paths('POST')))
        self.assertIn('executing command execute_deploy_step', str(exc))
        self.assertIn('attempt 3 of 3', str(exc))
        self.assertTrue(exc.transient)

    def test_the_waits_between_attempts_double(self):
        self.config(command_retry_interval=0.1, group='agent')
        self.agent.answer(BUSY, BUSY)

        started = time.monotonic()
        self.client.sync(self.agent.endpoint())

        self.assertGreaterEqual(time.monotonic() - started, 0.3)

    @ddt.data(UNAUTHORIZED, FORBIDDEN)
    def test_a_refused_token_is_not_sent_again(self, refusal):
        self.agent.answer(refusal)

        exc = self.assertRaises(exception.AgentTokenRefused, self.client.sync,
                                self.agent.endpoint())

        self.assertEqual(1, len(self.agent.requests))
        self.assertIn('HTTP %d' % refusal[0], str(exc))
        self.assertIn('not the one it was handed at lookup', str(exc))
        self.assertHidesToken(exc)

    def test_without_a_token_none_is_sent_and_the_refusal_says_so(self):
        exc = self.assertRaises(exception.AgentTokenRefused, self.client.sync,
                                self.agent.endpoint(token=None))

        self.assertEqual({'wait': 'true'}, self.agent.requests[0][2])
        self.assertIn('no agent token was sent', str(exc))

    def test_a_server_error_is_not_retried_and_names_status_and_fault(self):
        self.agent.answer(SERVER_ERROR)

        exc = self.assertRaises(exception.AgentAPIError, self.client.sync,
                                self.agent.endpoint())

        self.assertEqual(1, len(self.agent.requests))
        self.assertIn('HTTP 500', str(exc))
        self.assertIn('is not JSON serializable', str(exc))
        self.assertIn('standby.sync', str(exc))

    def test_an_unknown_command_id_is_an_api_error_naming_the_request(self):
        exc = self.assertRaises(exception.AgentAPIError,
                                self.client.get_command,
                                self.agent.endpoint(), 'no-such-id')

        self.assertIn('GET /v1/commands/no-such-id', str(exc))
        self.assertIn('HTTP 404', str(exc))

    def test_an_answer_that_is_not_json_names_the_status_not_the_token(self):
        self.agent.answer(NOT_JSON)

        exc = self.assertRaises(exception.AgentAPIError, self.client.sync,
                                self.agent.endpoint())

        self.assertIn('HTTP 200', str(exc))
        self.assertIn('not JSON', str(exc))
        self.assertIn('agent_token=***', str(exc))
        self.assertHidesToken(exc)

    @ddt.data((200, {'commands': 'all of them'}),
              (200, {'id': 'x', 'command_status': 'RUNNING'}),
              (200, ['not', 'an', 'object']))
    def test_an_answer_of_another_shape_is_an_api_error(self, answer):
        self.agent.answer(answer)

        exc = self.assertRaises(exception.AgentAPIError, self.client.sync,
                                self.agent.endpoint())

        self.assertIn('is not a command result', str(exc))

    def test_a_closed_port_is_tried_max_command_attempts_times(self):
        log = self.useFixture(fixtures.FakeLogger(
            name=agent_client.__name__, level=logging.WARNING))
        endpoint = agent_client.AgentEndpoint(
            url='http://127.0.0.1:%d' % closed_port(), token=TOKEN,
            node=NODE['uuid'])

        exc = self.assertRaises(exception.AgentConnectionFailed,
                                self.client.sync, endpoint)

        self.assertEqual(2, log.output.count('Trying again'))
        self.assertIn('Connection refused; attempt 3 of 3', str(exc))
        self.assertIn('the agent of node %s at %s' % (NODE['uuid'],
                                                      endpoint.url), str(exc))
        self.assertTrue(exc.transient)
        self.assertHidesToken(exc)
        self.assertHidesToken(log.output)

    def test_an_agent_that_does_not_answer_in_time_is_tried_again(self):
        self.config(command_timeout=0.2, max_command_attempts=2,
                    group='agent')
        self.agent.answer(HANG, HANG)

        started = time.monotonic()
        exc = self.assertRaises(exception.AgentConnectionFailed,
                                self.client.sync, self.agent.endpoint())

        self.assertLess(time.monotonic() - started, 2)
        # Each time, the agent is asked whether it runs the command anyway.
        self.assertEqual(['POST', 'GET', 'POST', 'GET'],
                         [verb for verb, _, _, _ in self.agent.requests])
        self.assertIn('no answer within 0.2 seconds; attempt 2 of 2',
                      str(exc))
        self.assertHidesToken(exc)

    def test_a_command_started_though_its_answer_was_lost_is_not_resent(self):
        self.config(command_timeout=0.2, group='agent')
        self.agent.answer(HANG)
        self.agent.on_hang = lambda body: self.agent.start(
            body['name'].partition('.')[2])

        result = self.client.execute_deploy_step(self.agent.endpoint(), STEP,
                                                 NODE, PORTS)

        self.assertEqual('execute_deploy_step', result['command_name'])
        self.assertEqual('RUNNING', result['command_status'])
        self.assertEqual(1, len(self.agent.paths('POST')))

    def test_a_finished_command_of_the_same_name_is_sent_again(self):
        self.config(command_timeout=0.2, group='agent')
        self.agent.start('sync', 'SUCCEEDED')
        self.agent.answer(HANG)

        self.client.sync(self.agent.endpoint())

        self.assertEqual(2, len(self.agent.paths('POST')))

    def test_no_log_line_carries_the_token(self):
        log = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        self.agent.answer(BUSY, NOT_JSON, UNAUTHORIZED)

        for call in (self.client.sync, self.client.power_off):
            self.assertRaises(exception.AgentError, call,
                              self.agent.endpoint())
        self.client.get_commands_status(self.agent.endpoint())

        self.assertIn('/v1/commands/', log.output)
        self.assertIn('agent_token=***', log.output)  # urllib3's lines
        self.assertHidesToken(log.output)


class EndpointTest(base.TestCase):

    def test_it_is_built_from_the_driver_internal_info_of_a_node(self):
        endpoint = agent_client.AgentEndpoint.from_driver_internal_info(
            'node-1', {'agent_url': 'https://10.0.0.5:9999/',
                       agent_token.TOKEN_KEY: TOKEN,
                       'agent_verify_ca': '/var/lib/certs/node-1.crt'})

        self.assertEqual(('https://10.0.0.5:9999', TOKEN,
                          '/var/lib/certs/node-1.crt', 'node-1'),
                         (endpoint.url, endpoint.token, endpoint.verify_ca,
                          endpoint.node))

    def test_tls_is_verified_when_the_node_says_nothing(self):
        endpoint = agent_client.AgentEndpoint.from_driver_internal_info(
            'node-1', {'agent_url': 'https://10.0.0.5:9999'})

        self.assertIs(True, endpoint.verify_ca)
        self.assertIsNone(endpoint.token)

    def test_a_node_whose_agent_has_not_heartbeated_has_none(self):
        exc = self.assertRaises(
            exception.AgentURLUnknown,
            agent_client.AgentEndpoint.from_driver_internal_info, 'node-1',
            {})
        self.assertIn('node-1', str(exc))

    def test_the_token_key_is_the_conductors(self):
        self.assertEqual(agent_token.TOKEN_KEY, agent_client.TOKEN_KEY)

    def test_its_repr_and_str_never_show_the_token(self):
        endpoint = agent_client.AgentEndpoint('http://10.0.0.5:9999', TOKEN)

        self.assertNotIn(TOKEN, repr(endpoint))
        self.assertEqual('the agent at http://10.0.0.5:9999', str(endpoint))

    def test_a_url_that_is_not_http_is_refused(self):
        for url in ('ftp://10.0.0.5', '10.0.0.5:9999', 'http://', 42):
            self.assertRaises(exception.InvalidParameterValue,
                              agent_client.AgentEndpoint, url)


class MaskURLTest(base.TestCase):

    def test_the_token_is_dropped_and_the_rest_kept(self):
        self.assertEqual(
            'https://10.0.0.5:9999/v1/commands/?wait=true',
            agent_client.mask_url('https://10.0.0.5:9999/v1/commands/'
                                  '?wait=true&agent_token=%s' % TOKEN))

    def test_a_url_without_a_token_is_unchanged(self):
        self.assertEqual('http://10.0.0.5:9999',
                         agent_client.mask_url('http://10.0.0.5:9999'))


class CommandErrorTest(base.TestCase):

    def test_the_details_of_an_ipa_error_are_its_text(self):
        self.assertEqual('disk on fire', agent_client.command_error(
            {'command_error': {'type': 'CommandExecutionError', 'code': 500,
                               'message': 'Command execution failed',
                               'details': 'disk on fire'}}))

    def test_a_result_without_error_has_none(self):
        self.assertIsNone(agent_client.command_error(
            {'command_error': None, 'command_status': 'SUCCEEDED'}))
