"""Any text logs safely: a lone surrogate does not break a log line."""

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


class _StderrCapture(fixtures.Fixture):
    """What logging prints on sys.stderr when a handler fails."""

    def _setUp(self):
        self.stream = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stream))

    @property
    def text(self):
        return self.stream.getvalue()
