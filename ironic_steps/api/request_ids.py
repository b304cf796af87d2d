"""Each API request's id: made once, named in every answer, logged.

Owns the request id as Ironic 39 serves it (oslo.middleware's RequestId
middleware, with Ironic's compatibility header).  :class:`RequestIds` is
the outermost middleware: before anything else runs it gives the request
an id (``req-<uuid>``), keeps it in the environ where oslo.context looks
for it (``openstack.request_id``), and makes a context holding it the
thread's current one, so that whatever is logged for the request (the
version check, authentication, the API, the conductor call) carries it.
Every answer, refusals included, names it in ``X-OpenStack-Request-Id``
and in ``OpenStack-Request-Id``, which Ironic has always sent.

A caller's own ``X-OpenStack-Request-Id`` is never the request's id; in
oslo's form (``req-<uuid>``) it is the request's *global* request id, the
one a chain of services shares (``openstack.global_request_id``).

Who the caller is, and the request's full context, is :mod:`auth`'s; it
takes the ids from here (:func:`context_ids`).
"""

import re

from oslo_middleware import request_id as oslo_request_id

from ironic_steps.common import context

#: The answer's headers that name the request's id: oslo's, and the one
#: Ironic sent before it (``openstack-request-id``).
HEADER = 'X-OpenStack-Request-Id'
COMPAT_HEADER = 'OpenStack-Request-Id'
#: Where oslo.context's ``from_environ`` finds them.
ENVIRON_KEY = oslo_request_id.ENV_REQUEST_ID
GLOBAL_ENVIRON_KEY = oslo_request_id.GLOBAL_REQ_ID

_INBOUND = 'HTTP_X_OPENSTACK_REQUEST_ID'
_GLOBAL_FORMAT = re.compile(oslo_request_id.ID_FORMAT)
_STAMPED = frozenset([HEADER.lower(), COMPAT_HEADER.lower()])


def context_ids(environ):
    """The ``request_id`` and ``global_request_id`` of the request's
    context (keyword arguments of RequestContext; none for an environ
    :class:`RequestIds` did not see, whose context makes its own id)."""
    return {name: environ[key] for name, key in (
        ('request_id', ENVIRON_KEY), ('global_request_id',
                                      GLOBAL_ENVIRON_KEY))
        if environ.get(key)}


class RequestIds:
    """WSGI middleware: see the module's docstring."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        inbound = environ.get(_INBOUND, '')
        if _GLOBAL_FORMAT.match(inbound):
            environ[GLOBAL_ENVIRON_KEY] = inbound
        else:
            environ.pop(GLOBAL_ENVIRON_KEY, None)
        environ.pop(ENVIRON_KEY, None)
        # A new context makes a new id, and is the thread's current one
        # until the request's own (auth.request_context) replaces it.
        current = context.RequestContext(
            overwrite=True,
            global_request_id=environ.get(GLOBAL_ENVIRON_KEY))
        environ[ENVIRON_KEY] = current.request_id
        stamp = [(HEADER, current.request_id),
                 (COMPAT_HEADER, current.request_id)]

        def start_with_id(status, headers, exc_info=None):
            headers = [(name, value) for name, value in headers
                       if name.lower() not in _STAMPED] + stamp
            return start_response(status, headers, exc_info)

        return self.application(environ, start_with_id)
