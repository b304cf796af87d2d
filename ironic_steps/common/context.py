"""The request context passed to every conductor and object call."""

from oslo_context import context


class RequestContext(context.RequestContext):
    """Who is asking; an admin context for the service's own work."""


def get_admin_context():
    return RequestContext(is_admin=True, overwrite=False)
