"""Which API requests may run long: pages of records across the deployment.

The all-in-one server runs a request on its I/O thread, the cheapest place
for the short ones (a node, a state change: a millisecond or two).  A page
of a thousand ports takes tens of milliseconds; run there, it holds up
every request that arrives meanwhile.  So the server runs the requests
recognised here on a thread of their own (``long_requests`` of
:class:`ironic_steps.api.server.Server`): a node GET never queues behind a
page, and pages still run one at a time, as before.

Only lists that grow with the deployment are marked (``/v1/nodes``,
``/v1/ports``, a chassis' nodes, ...).  The records of one node or one
port group (``/v1/nodes/{node}/ports``) are as few as the machine has
NICs or disks: they stay short, and stay on the I/O thread.

::

    @blueprint.get('')
    @lanes.reads_pages
    def list_ports(): ...

    is_long = lanes.matcher(app)     # after every blueprint is registered
    is_long('GET', '/v1/nodes/n1/ports')   # True

The choice is made per request before any routing, so :func:`matcher`
turns the routes to marked views into one regular expression over the
path rather than asking Flask's router twice.
"""

import re

_MARK = '_ironic_steps_reads_pages'
_PLACEHOLDER = re.compile(r'<[^>]+>')


def reads_pages(view):
    """Mark ``view`` as serving a page of records (a list)."""
    setattr(view, _MARK, True)
    return view


def _pattern(rule):
    """The regular expression of a route's path (its variables any one
    segment), a trailing slash allowed as the application allows it."""
    parts = _PLACEHOLDER.split(rule.rstrip('/'))
    return '[^/]+'.join(re.escape(part) for part in parts) + '/?'


def matcher(app):
    """``is_long(method, path)`` for the routes of ``app`` whose view is
    marked with :func:`reads_pages`; None if there is none."""
    patterns = sorted({
        _pattern(rule.rule) for rule in app.url_map.iter_rules()
        if 'GET' in rule.methods
        and getattr(app.view_functions[rule.endpoint], _MARK, False)})
    if not patterns:
        return None
    paths = re.compile('(?:%s)' % '|'.join(patterns))

    def is_long(method, path):
        return method == 'GET' and paths.fullmatch(path) is not None

    return is_long
