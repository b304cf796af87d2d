"""Identifiers in requests: UUIDs and logical names, matched whole.

Patterns are anchored with ``\\A`` and ``\\Z``: ``$`` also matches before
a final newline, which let ``"<uuid>\\n"`` through as a UUID once.  A UUID
may come in either case but is always stored and looked up in its
canonical lower-case form, so ``ABC...`` and ``abc...`` name one thing.
"""

import re

#: Ironic's logical names: 1-255 RFC 3986 unreserved characters.
NAME_PATTERN = r'\A[A-Za-z0-9\-._~]{1,255}\Z'
#: What node names were before API 1.10, as Ironic still reads them at
#: those versions: host names (RFC 952/1123), lower case.
HOST_NAME_PATTERN = (r'\A[a-z0-9]([a-z0-9\-]{0,61}[a-z0-9])?'
                     r'(\.[a-z0-9\-_]{0,62}[a-z0-9])*\.?\Z')
#: A UUID in the 8-4-4-4-12 form, either case.
UUID_PATTERN = (r'\A[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
                r'[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z')

_NAME = re.compile(NAME_PATTERN)
_HOST_NAME = re.compile(HOST_NAME_PATTERN)
_UUID = re.compile(UUID_PATTERN)


def is_uuid(value):
    """Whether ``value`` is a string that is a UUID, whole."""
    return isinstance(value, str) and _UUID.match(value) is not None


def is_name(value):
    """Whether ``value`` is a string that is a valid logical name, whole."""
    return isinstance(value, str) and _NAME.match(value) is not None


def is_host_name(value):
    """Whether ``value`` is a string that is a host name, whole (and, as
    a name, at most 255 characters)."""
    return (isinstance(value, str) and len(value) <= 255
            and _HOST_NAME.match(value) is not None)


def canonical_uuid(value):
    """``value`` in lower case if it is a UUID; anything else unchanged."""
    return value.lower() if is_uuid(value) else value
