"""Log lines that any text can pass through.

A request can carry text that no UTF-8 file can hold: an unpaired UTF-16
surrogate (``"\\ud800"`` in JSON) decodes to a Python string that cannot be
encoded.  Logged as it is, it makes the handler fail and print a
``--- Logging error ---`` traceback instead of the line.  :func:`install`
puts a filter on every handler of the root logger (the ones oslo.log
sets up) that writes such characters as ``\\udXXX`` escapes instead, so
the line is kept, readable, and the same on every handler.
"""

import logging
import re

_SURROGATE = re.compile('[\ud800-\udfff]')


class SurrogateEscaper(logging.Filter):
    """Rewrite a record whose message holds unpaired surrogates."""

    def filter(self, record):
        try:
            message = record.getMessage()
        except Exception:
            # A record that cannot be formatted: logging reports that
            # itself, better than this filter could.
            return True
        if not message.isascii() and _SURROGATE.search(message):
            record.msg = message.encode(
                'utf-8', 'backslashreplace').decode('utf-8')
            record.args = None
        return True


def install(logger=None):
    """Add the filter to every handler of ``logger`` (default: root)."""
    logger = logger or logging.getLogger()
    for handler in logger.handlers:
        if not any(isinstance(f, SurrogateEscaper) for f in handler.filters):
            handler.addFilter(SurrogateEscaper())
