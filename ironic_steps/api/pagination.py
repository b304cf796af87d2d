"""Collection paging: limit, marker, sort and the ``next`` link.

The one pagination of every collection.  ``limit`` is capped at ``[api]
max_limit`` and is that cap when absent, so every page is bounded; the
marker is the UUID of the previous page's last item, which the database
layer turns into a keyset condition (stable and index-friendly); a full
page carries a ``next`` link that repeats the request's other parameters
with ``marker`` set to the page's last item.

Parameters are read strictly: ``limit`` is ASCII digits and nothing else
(Python's ``int()`` would also take ``" 1"``, ``+1``, ``1_0`` and other
scripts' digits), ``marker`` a whole UUID, in canonical lower case (or,
for a collection whose items another field names, e.g. conductors by
``hostname``, an existing item's value of that field).
"""

import dataclasses
import re
import urllib.parse

from ironic_steps.api import identifiers
from ironic_steps.common import exception
from ironic_steps.conf import CONF

PARAMS = ('limit', 'marker', 'sort_key', 'sort_dir')

_DIGITS = re.compile(r'\A[0-9]{1,20}\Z')


@dataclasses.dataclass(frozen=True)
class Page:
    limit: int
    marker: str | None
    sort_key: str
    sort_dir: str


def _limit(value):
    if value is None:
        return CONF.api.max_limit
    limit = int(value) if _DIGITS.match(value) else 0
    if limit <= 0:
        raise exception.InvalidParameterValue(
            err='limit must be a positive integer, got %r' % (value,))
    return min(limit, CONF.api.max_limit)


def parse(args, default_sort_key='id', key_field='uuid'):
    """The page a request's query ``args`` asks for.

    :param key_field: what identifies an item, and so a marker: ``uuid``
        (checked to be a UUID) or another field (e.g. ``hostname``).
    """
    marker = args.get('marker')
    if (marker is not None and key_field == 'uuid'
            and not identifiers.is_uuid(marker)):
        raise exception.InvalidParameterValue(
            err='marker must be the UUID of the last item of the previous '
                'page, got %r' % (marker,))
    sort_dir = args.get('sort_dir', 'asc')
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err="sort_dir must be 'asc' or 'desc', got %r" % (sort_dir,))
    if key_field == 'uuid':
        marker = identifiers.canonical_uuid(marker)
    return Page(limit=_limit(args.get('limit')),
                marker=marker,
                sort_key=args.get('sort_key', default_sort_key),
                sort_dir=sort_dir)


def marker_item(page, find, what, key_field='uuid'):
    """The item ``page.marker`` names, found by ``find(marker)``; or None.

    :param what: the kind of item, for the error message.
    :param key_field: what names an item, for the error message.
    :raises InvalidParameterValue: if no such item exists.
    """
    if page.marker is None:
        return None
    try:
        return find(page.marker)
    except exception.NotFound as exc:
        raise exception.InvalidParameterValue(
            err='marker %s is not the %s of any %s' % (
                page.marker, 'UUID' if key_field == 'uuid' else key_field,
                what)) from exc


def collection(name, bodies, collection_url, args, page, items,
               key_field='uuid'):
    """The body of a page: ``{name: bodies}`` and, unless it is the last
    page, a ``next`` link (see :func:`next_link`).

    :param items: the items the page read (``bodies`` may show fewer).
    """
    body = {name: bodies}
    next_url = next_link(collection_url, args, page, items, key_field)
    if next_url:
        body['next'] = next_url
    return body


def next_link(collection_url, args, page, items, key_field='uuid'):
    """The URL of the page after ``items``, or None if this one is last."""
    if len(items) < page.limit:
        return None
    query = [(k, v) for k, v in args.items(multi=True)
             if k not in ('limit', 'marker')]
    query += [('limit', page.limit),
              ('marker', getattr(items[-1], key_field))]
    return '%s?%s' % (collection_url, urllib.parse.urlencode(query))
