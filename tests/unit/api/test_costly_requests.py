"""Password checks off the critical thread: with http_basic, a request that
will run bcrypt runs on the server's pool of costly requests, so that wrong
passwords sent in a loop hold up neither the I/O thread nor the lane.

The real API with http_basic (a real htpasswd file) is served by
:class:`server.Server` on 127.0.0.1; bcrypt's check is held at a gate (a
spy around the real one) so that "while a password is being checked" is
a fact, not a timing.
"""

import http.client
import threading

import bcrypt
import fixtures

from ironic_steps.api import auth
from tests.unit.api import base
from tests.unit.api import test_auth
from tests.unit.api import test_server


class CostlyRequestsTest(test_server.ServedMixin, base.ApiTestCase):

    lane = True

    def setUp(self):
        super().setUp()
        test_auth.use_http_basic(self)
        self.checking = threading.Event()
        self.check_may_end = threading.Event()
        real = bcrypt.checkpw

        def gated(password, hashed):
            if password.startswith(b'held'):
                self.checking.set()
                self.check_may_end.wait(20)
            return real(password, hashed)

        self.useFixture(fixtures.MonkeyPatch('bcrypt.checkpw', gated))
        self.costly = auth.costly_requests(self.app)

    def get(self, served, user=None, password=None, timeout=10):
        """The status of a GET /v1/nodes as ``user`` (None: without
        credentials)."""
        connection = http.client.HTTPConnection('127.0.0.1', served.port,
                                                timeout=timeout)
        self.addCleanup(connection.close)
        connection.request('GET', '/v1/nodes', headers=test_auth.basic(
            user, password) if user else {})
        response = connection.getresponse()
        response.read()
        return response.status

    def hold_a_wrong_password(self, served):
        """A wrong password whose bcrypt check is under way (held)."""
        thread = threading.Thread(target=self.get, daemon=True, args=(
            served, 'rita', 'held-guess', 30))
        thread.start()
        self.addCleanup(thread.join, 30)
        # Released before the server stops (cleanups run last first): a
        # server stopping waits for the requests it runs.
        self.addCleanup(self.check_may_end.set)
        self.assertTrue(self.checking.wait(10))

    def header(self, user, password):
        return {'authorization': test_auth.basic(
            user, password)['Authorization']}.get

    def test_only_credentials_not_remembered_as_good_are_costly(self):
        served = self.serve(self.app, costly_requests=self.costly)
        self.assertTrue(self.costly('GET', '/v1/nodes',
                                    self.header('alice', 'alice-pw')))
        self.assertEqual(200, self.get(served, 'alice', 'alice-pw'))
        # Remembered now: the next one is checked without bcrypt.
        self.assertFalse(self.costly('GET', '/v1/nodes',
                                     self.header('alice', 'alice-pw')))
        self.assertTrue(self.costly('GET', '/v1/nodes',
                                    self.header('alice', 'guess')))
        # No credentials, or not basic ones, or a public path: refused or
        # served at once, no bcrypt.
        for path, header in (('/v1/nodes', {}.get),
                             ('/v1/nodes', {'authorization': 'Bearer x'}.get),
                             ('/v1/nodes', {'authorization': 'Basic %%'}.get),
                             ('/v1/lookup', self.header('alice', 'guess'))):
            self.assertFalse(self.costly('GET', path, header), path)

    def test_an_admins_get_is_answered_while_a_wrong_password_is_checked(
            self):
        served = self.serve(self.app, costly_requests=self.costly)
        # Given an administrator whose credentials were checked once
        self.assertEqual(200, self.get(served, 'alice', 'alice-pw'))
        # When a wrong password is being checked
        self.hold_a_wrong_password(served)
        # Then the administrator's next GET (the lane's, a list) and a
        # request without credentials (the I/O thread's) are answered
        self.assertEqual(200, self.get(served, 'alice', 'alice-pw'))
        self.assertEqual(401, self.get(served))
        self.assertFalse(self.check_may_end.is_set())
        # and the wrong password is refused once its check ends
        self.check_may_end.set()

    def test_without_the_costly_pool_the_admin_waits_for_the_check(self):
        # What the pool is for: the same exchange with the check on the
        # lane, in front of the administrator's list.
        served = self.serve(self.app)
        self.assertEqual(200, self.get(served, 'alice', 'alice-pw'))
        self.hold_a_wrong_password(served)
        self.assertRaises(TimeoutError, self.get, served, 'alice',
                          'alice-pw', timeout=1)

    def test_noauth_has_no_costly_requests(self):
        self.config(auth_strategy='noauth')
        self.make_client()
        self.assertIsNone(auth.costly_requests(self.app))

    def test_pinned_to_0_13_checks_run_where_every_request_runs(self):
        self.config(pin_release_version='0.13')
        self.assertIsNone(auth.costly_requests(self.app))
