"""Every error is answered in Ironic's format, with a readable message."""

import json
import logging
import os

import fixtures
from oslo_context import context as oslo_context

from ironic_steps.api import app
from ironic_steps.api import errors
from ironic_steps.common import outage
from ironic_steps.db.sqlalchemy import api as sqlalchemy_api
from tests.unit.api import base


class ErrorFormatTest(base.ApiTestCase):

    def test_the_message_is_a_json_string_inside_error_message(self):
        response = self.get('/v1/nodes/no-such-node')
        body = response.get_json()
        self.assertEqual(['error_message'], list(body))
        self.assertEqual({'faultstring': 'Node no-such-node could not be '
                                         'found.',
                          'faultcode': 'Client', 'debuginfo': None},
                         json.loads(body['error_message']))

    def test_an_unknown_path_is_404_naming_it(self):
        self.assertError(self.get('/v1/no-such-resource'), 404,
                         '/v1/no-such-resource')

    def test_a_wrong_method_is_405_naming_the_allowed_ones(self):
        response = self.delete('/v1/nodes')
        self.assertError(response, 405, 'DELETE', 'GET', 'POST')
        self.assertIn('POST', response.headers['Allow'])

    def test_an_unexpected_error_is_500_without_internals(self):
        def explode():
            raise RuntimeError('secret internals at 0xdeadbeef')
        self.app.add_url_rule('/v1/explode', view_func=explode)
        with self.assertLogs('ironic_steps.api.errors', 'ERROR') as logs:
            response = self.get('/v1/explode')
        message = self.assertError(response, 500, 'server log')
        self.assertNotIn('0xdeadbeef', message)
        self.assertIn('0xdeadbeef', logs.output[0])

    def test_error_bodies_quote_messages_safely(self):
        body = json.loads(errors.body(400, 'a "quoted" \\ message'))
        self.assertEqual('a "quoted" \\ message',
                         json.loads(body['error_message'])['faultstring'])


class RequestIdTest(base.ApiTestCase):
    """Every request has its own id, in its answer and in its log lines."""

    def test_each_answer_names_its_own_request_id(self):
        ids = [self.get(path).headers[app.REQUEST_ID_HEADER]
               for path in ('/v1/nodes', '/v1/nodes', '/v1/no-such-path')]
        self.assertEqual(3, len(set(ids)))
        for request_id in ids:
            self.assertRegex(request_id, r'^req-[0-9a-f-]{36}$')

    def test_the_running_request_is_the_current_context_for_logging(self):
        # oslo.log stamps each line with the current context's request id.
        for _ in range(2):
            response = self.get('/v1/nodes')
            self.assertEqual(response.headers[app.REQUEST_ID_HEADER],
                             oslo_context.get_current().request_id)


class RequestIdHeadersTest(base.ApiTestCase):
    """As Ironic 39 (API 1.107): both headers on every answer, at every
    version, refusals before the API included; a caller's id is only the
    global request id."""

    def test_both_headers_name_the_id_even_on_a_refused_version(self):
        for response in (self.get('/v1/nodes', version='1.1'),
                         self.get('/v1/nodes', version='9.99'),
                         self.get('/v1/nodes', version='one')):
            self.assertRegex(response.headers[app.REQUEST_ID_HEADER],
                             r'^req-[0-9a-f-]{36}$')
            self.assertEqual([response.headers[app.REQUEST_ID_HEADER]],
                             response.headers.getlist('OpenStack-Request-Id'))
            self.assertEqual(1, len(response.headers.getlist(
                app.REQUEST_ID_HEADER)))
        self.assertEqual(406, self.get('/v1/nodes',
                                       version='9.99').status_code)

    def test_a_callers_id_is_the_global_one_never_the_requests(self):
        caller = 'req-0f3d5c6e-8a1b-4c2d-9e7f-1a2b3c4d5e6f'
        response = self.get('/v1/nodes',
                            headers={app.REQUEST_ID_HEADER: caller})
        self.assertNotEqual(caller, response.headers[app.REQUEST_ID_HEADER])
        current = oslo_context.get_current()
        self.assertEqual((response.headers[app.REQUEST_ID_HEADER], caller),
                         (current.request_id, current.global_request_id))
        # One not in oslo's form is ignored
        self.get('/v1/nodes', headers={app.REQUEST_ID_HEADER: 'mine'})
        self.assertIsNone(oslo_context.get_current().global_request_id)


class UnreachableDatabaseTest(base.ApiTestCase):
    """Only a database that cannot be reached is a 503 (see
    tests/functional/test_api_outages.py, on a real PostgreSQL)."""

    def test_any_other_database_error_stays_a_500(self):
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        self.addCleanup(sqlalchemy_api.configure, connection=self.db.url)
        # A database without the schema: a real error, not an outage
        sqlalchemy_api.configure(connection='sqlite:///%s' % os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'empty.sqlite'))
        response = self.get('/v1/nodes')
        self.assertError(response, 500, 'server log')
        self.assertNotIn('Retry-After', response.headers)
        self.assertIn('no such table', self.logs.output)
        self.assertFalse(outage.DATABASE.ongoing)
