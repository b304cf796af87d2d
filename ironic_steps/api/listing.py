"""One page of a collection, as a list request asks for it.

The steps every plain collection's ``GET /v1/<collection>`` (and
``/detail``) takes, in order: refuse unknown query parameters, choose the
fields (``?fields``, ``?detail``, the ``/detail`` path, through the
resource's :class:`view.View`), read the page parameters and the marker
(:mod:`pagination`), fetch the page, and answer the bodies with the
``next`` link.  The controller keeps what differs: the policy rule, how a
marker is found and how a page is fetched.
"""

import flask

from ironic_steps.api import pagination
from ironic_steps.api import query
from ironic_steps.api import responses

_PARAMS = frozenset(pagination.PARAMS + ('fields', 'detail'))


def page_response(view, collection, what, detail_path, find, fetch,
                  filters=(), compute=None):
    """The response to a list request of ``collection``.

    :param view: the items' :class:`view.View`.
    :param what: an item's name in messages (``runbook``).
    :param find: ``find(uuid)`` -> the marker's item (raising its
        NotFound).
    :param fetch: ``fetch(page, marker)`` -> the page's items.
    :param filters: the query parameters ``fetch`` reads besides paging.
    :param compute: the view's computed fields (see :meth:`View.body`).
    """
    version, args = flask.g.version, flask.request.args
    query.check_known(args, _PARAMS.union(filters))
    fields = view.list_fields_for(args, version, detail_path)
    page = pagination.parse(args)
    marker = pagination.marker_item(page, find, what)
    items = fetch(page, marker)
    base = responses.public_url()
    return responses.json_response(pagination.collection(
        collection, view.bodies(items, version, fields, base, compute),
        base + flask.request.path, args, page, items))
