"""An outage is logged twice: when it starts, and when it ends."""

import threading

import fixtures
import testtools

from ironic_steps.common import outage
from tests import clock


class OutageTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())
        self.clock = clock.ManualClock()
        self.database = outage.Outage('the database', clock=self.clock)

    def test_many_failures_log_one_warning_naming_the_cause(self):
        with self.assertLogs(outage.LOG.logger, 'DEBUG') as logs:
            for _ in range(100):
                self.database.failed(ConnectionRefusedError('refused'))
        self.assertEqual(['WARNING'], [r.levelname for r in logs.records])
        self.assertIn('The database is unreachable: refused',
                      logs.records[0].getMessage())
        self.assertTrue(self.database.ongoing)

    def test_the_first_success_after_failures_logs_the_duration_once(self):
        self.database.failed(ConnectionRefusedError('refused'))
        self.clock.advance(12.34)
        self.database.failed(ConnectionRefusedError('refused'))
        with self.assertLogs(outage.LOG.logger, 'DEBUG') as logs:
            for _ in range(5):
                self.database.succeeded()
        self.assertEqual(['INFO'], [r.levelname for r in logs.records])
        self.assertIn('reachable again after 12.3 seconds',
                      logs.records[0].getMessage())
        self.assertFalse(self.database.ongoing)

    def test_a_new_outage_after_recovery_is_logged_again(self):
        self.database.failed(ConnectionRefusedError('first'))
        self.database.succeeded()
        with self.assertLogs(outage.LOG.logger, 'WARNING') as logs:
            self.database.failed(ConnectionRefusedError('second'))
        self.assertIn('second', logs.records[0].getMessage())

    def test_success_without_an_outage_logs_nothing(self):
        with self.assertNoLogs(outage.LOG.logger, 'DEBUG'):
            self.database.succeeded()

    def test_threads_failing_together_log_one_warning(self):
        barrier = threading.Barrier(20)

        def fail():
            barrier.wait()
            self.database.failed(ConnectionRefusedError('refused'))
        with self.assertLogs(outage.LOG.logger, 'WARNING') as logs:
            threads = [threading.Thread(target=fail) for _ in range(20)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        self.assertEqual(1, len(logs.records))

    def test_the_logged_cause_never_shows_a_password(self):
        with self.assertLogs(outage.LOG.logger, 'WARNING') as logs:
            self.database.failed(ConnectionError(
                'cannot reach postgresql+psycopg2://ironic:s3cr@t@db/x '
                'nor host=db password=hunter2\n[SQL: SELECT secret]'))
        message = logs.records[0].getMessage()
        self.assertNotIn('s3cr', message)
        self.assertNotIn('hunter2', message)
        self.assertNotIn('SELECT', message)
        self.assertIn('postgresql+psycopg2://ironic:***@db/x', message)
