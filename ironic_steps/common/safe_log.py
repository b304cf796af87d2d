"""Log lines that any text can pass through, and that show no secret.

A request can carry text that no UTF-8 file can hold: an unpaired UTF-16
surrogate (``"\\ud800"`` in JSON) decodes to a Python string that cannot be
encoded.  Logged as it is, it makes the handler fail and print a
``--- Logging error ---`` traceback instead of the line.  And an error
can quote a secret: a signed image URL, ``password=...`` on a command
line.  :func:`install` puts a filter on every handler of the root logger
(the ones oslo.log sets up) that writes such characters as ``\\udXXX``
escapes instead, so the line is kept, readable, and the same on every
handler, and masks secrets as the API does (:func:`masking.mask_text`),
in the message and in the traceback of a logged exception.
"""

import logging
import re
import traceback

from ironic_steps.common import masking

_SURROGATE = re.compile('[\ud800-\udfff]')


def _escaped(message):
    if not message.isascii() and _SURROGATE.search(message):
        return message.encode('utf-8', 'backslashreplace').decode('utf-8')
    return message


class SafeLines(logging.Filter):
    """Rewrite a record whose message holds unpaired surrogates or a
    secret; keep a logged exception's traceback only masked."""

    def filter(self, record):
        try:
            message = record.getMessage()
        except Exception:
            # A record that cannot be formatted: logging reports that
            # itself, better than this filter could.
            return True
        safe = _escaped(masking.mask_text(message))
        if safe != message:
            record.msg = safe
            record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            self._mask_traceback(record)
        return True

    @staticmethod
    def _mask_traceback(record):
        text = ''.join(traceback.format_exception(*record.exc_info))
        masked = _escaped(masking.mask_text(text))
        if masked != text:
            # The formatter would write the traceback from exc_info again.
            record.exc_info = None
            record.exc_text = masked.rstrip('\n')


def install(logger=None):
    """Add the filter to every handler of ``logger`` (default: root)."""
    logger = logger or logging.getLogger()
    for handler in logger.handlers:
        if not any(isinstance(f, SafeLines) for f in handler.filters):
            handler.addFilter(SafeLines())
