"""The paths anyone may call without credentials: Ironic's public routes.

Version discovery (``/``, ``/v1``) and what the agent calls, since it has
no credentials (it proves itself with its agent token): ``/v1/lookup``,
``/v1/heartbeat/{node}`` and ``/v1/continue_inspection`` — Ironic's
``acl_public_routes``.  Whichever ``auth_strategy`` authenticates callers
(:mod:`ironic_steps.api.auth`), these paths skip it; any other path needs
it, however it is spelt (``//v1/lookup`` is not public).
"""

import re

PATTERN = re.compile(
    r'^/(v1/?)?$|^/v1/heartbeat/[^/]+/?$|^/v1/lookup/?$'
    r'|^/v1/continue_inspection/?$')


def is_public(environ) -> bool:
    """Whether the request of WSGI ``environ`` needs no credentials."""
    return PATTERN.match(environ.get('PATH_INFO') or '/') is not None
