"""HTTP basic credentials at a bounded cost (api/password_checks.py), with
the real bcrypt and a real htpasswd file; a spy counts bcrypt's checks."""

import os

import bcrypt
import fixtures
import webob.exc

from ironic_steps.api import password_checks
from ironic_steps.common import exception
from tests import base
from tests import clock


class PasswordCheckerTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.file = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'htpasswd')
        self.writes = 0
        self.write({'alice': b'alice-pw', 'bob': b'bob-pw'})
        self.clock = clock.ManualClock()
        self.checker = password_checks.PasswordChecker(self.file,
                                                       clock=self.clock)
        self.checks = []
        real = bcrypt.checkpw

        def spy(password, hashed):
            self.checks.append(hashed)
            return real(password, hashed)

        self.useFixture(fixtures.MonkeyPatch('bcrypt.checkpw', spy))
        self.config(http_basic_max_failures=3, http_basic_failure_window=60,
                    http_basic_cache_seconds=300, group='api')

    def write(self, users):
        with open(self.file, 'w') as out:
            for user, password in users.items():
                out.write('%s:%s\n' % (user, bcrypt.hashpw(
                    password, bcrypt.gensalt(4)).decode()))
        # A time of its own, however fast the writes come: the checker
        # reads the file again when it changed.
        self.writes += 1
        os.utime(self.file, ns=(self.writes, self.writes * 10 ** 9))

    def test_good_credentials_are_checked_once_within_the_cache_time(self):
        expected = {'HTTP_X_USER': 'alice', 'HTTP_X_USER_NAME': 'alice'}
        for _ in range(3):
            self.assertEqual(expected, self.checker.check(
                'alice', b'alice-pw', '192.0.2.1'))
        self.assertEqual(1, len(self.checks))
        self.clock.advance(301)
        self.checker.check('alice', b'alice-pw', '192.0.2.1')
        self.assertEqual(2, len(self.checks))

    def test_a_changed_password_applies_at_the_next_request(self):
        self.checker.check('alice', b'alice-pw', '192.0.2.1')
        self.write({'alice': b'new-pw'})
        self.assertRaises(webob.exc.HTTPUnauthorized, self.checker.check,
                          'alice', b'alice-pw', '192.0.2.1')
        self.checker.check('alice', b'new-pw', '192.0.2.1')

    def test_an_unknown_user_costs_a_bcrypt_check_as_a_known_one_does(self):
        self.assertRaises(webob.exc.HTTPUnauthorized, self.checker.check,
                          'mallory', b'guess', '192.0.2.9')
        self.assertRaises(webob.exc.HTTPUnauthorized, self.checker.check,
                          'alice', b'guess', '192.0.2.9')
        self.assertEqual(2, len(self.checks))
        # The stand-in has the file's cost, so it takes as long.
        self.assertEqual(self.checks[1][:7], self.checks[0][:7])

    def test_an_address_that_keeps_failing_is_refused_without_bcrypt(self):
        good = self.checker.check('alice', b'alice-pw', '192.0.2.9')
        for _ in range(3):
            self.assertRaises(webob.exc.HTTPUnauthorized, self.checker.check,
                              'bob', b'guess', '192.0.2.9')
        checked = len(self.checks)
        self.clock.advance(10)
        exc = self.assertRaises(exception.TooManyFailedLogins,
                                self.checker.check, 'bob', b'bob-pw',
                                '192.0.2.9')
        self.assertEqual(50, exc.kwargs['retry_after'])
        self.assertEqual(checked, len(self.checks))
        # Remembered good credentials still pass; other addresses too.
        self.assertEqual(good, self.checker.check('alice', b'alice-pw',
                                                  '192.0.2.9'))
        self.checker.check('bob', b'bob-pw', '192.0.2.10')
        # Once the oldest failure left the window, the address may try.
        self.clock.advance(51)
        self.checker.check('bob', b'bob-pw', '192.0.2.9')

    def test_limits_and_memory_can_be_turned_off(self):
        self.config(http_basic_max_failures=0, http_basic_cache_seconds=0,
                    group='api')
        for _ in range(5):
            self.assertRaises(webob.exc.HTTPUnauthorized, self.checker.check,
                              'bob', b'guess', '192.0.2.9')
        self.checker.check('bob', b'bob-pw', '192.0.2.9')
        self.checker.check('bob', b'bob-pw', '192.0.2.9')
        self.assertEqual(7, len(self.checks))
