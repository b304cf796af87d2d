"""Any text logs safely: a lone surrogate does not break a log line, and
no line shows a secret."""

import io
import logging

import fixtures
import testtools

from ironic_steps.common import safe_log


class SafeLogTest(testtools.TestCase):

    def handler(self):
        stream = io.TextIOWrapper(io.BytesIO(), encoding='utf-8')
        handler = logging.StreamHandler(stream)
        logger = logging.getLogger('safe-log-test-%s' % self.id())
        logger.propagate = False
        logger.addHandler(handler)
        self.addCleanup(logger.removeHandler, handler)
        return logger, stream

    def written(self, stream):
        stream.flush()
        return stream.buffer.getvalue().decode('utf-8')

    def test_a_lone_surrogate_is_written_escaped_not_lost(self):
        logger, stream = self.handler()
        safe_log.install(logger)
        errors = self.useFixture(_StderrCapture())
        logger.warning('bad name %s from %s', 'node-\ud800', 'client')
        self.assertEqual('bad name node-\\ud800 from client\n',
                         self.written(stream))
        self.assertEqual('', errors.text)

    def test_without_it_the_line_would_be_lost(self):
        # What the filter is for: the handler fails on such a line.
        logger, stream = self.handler()
        errors = self.useFixture(_StderrCapture())
        logger.warning('bad name %s', 'node-\ud800')
        self.assertEqual('', self.written(stream))
        self.assertIn('Logging error', errors.text)

    def test_plain_text_is_untouched_and_installing_twice_is_once(self):
        logger, stream = self.handler()
        safe_log.install(logger)
        safe_log.install(logger)
        self.assertEqual(1, len(logger.handlers[0].filters))
        logger.warning('n\u00e9e %d', 5)
        self.assertEqual('n\u00e9e 5\n', self.written(stream))

    def test_a_secret_in_a_line_is_masked(self):
        logger, stream = self.handler()
        safe_log.install(logger)
        logger.warning('download of %s failed (%s)',
                       'https://swift.example/v1/o?temp_url_sig=c0ffee'
                       '&temp_url_expires=9', 'password=hunter2')
        written = self.written(stream)
        self.assertNotIn('c0ffee', written)
        self.assertNotIn('hunter2', written)
        self.assertIn('temp_url_sig=******&temp_url_expires=9', written)

    def test_a_secret_in_a_logged_exception_is_masked(self):
        logger, stream = self.handler()
        handler = logger.handlers[0]
        handler.setFormatter(logging.Formatter('%(message)s'))
        safe_log.install(logger)
        try:
            raise RuntimeError('cannot reach https://admin:hunter2@bmc/')
        except RuntimeError:
            logger.exception('the BMC failed')
        written = self.written(stream)
        self.assertNotIn('hunter2', written)
        self.assertIn('RuntimeError: cannot reach https://admin:******@bmc/',
                      written)
        self.assertIn('Traceback', written)


class _StderrCapture(fixtures.Fixture):
    """What logging prints on sys.stderr when a handler fails."""

    def _setUp(self):
        self.stream = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stream))

    @property
    def text(self):
        return self.stream.getvalue()
