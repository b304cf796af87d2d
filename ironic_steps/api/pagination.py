"""Collection paging: limit, marker, sort and the ``next`` link.

``limit`` is capped at ``[api] max_limit`` and is that cap when absent, so
every page is bounded; a full page carries a ``next`` link that repeats the
request's other parameters with ``marker`` set to the page's last item.
"""

import dataclasses
import urllib.parse

from oslo_utils import uuidutils

from ironic_steps.common import exception
from ironic_steps.conf import CONF

PARAMS = ('limit', 'marker', 'sort_key', 'sort_dir')


@dataclasses.dataclass(frozen=True)
class Page:
    limit: int
    marker: str | None
    sort_key: str
    sort_dir: str


def _limit(value):
    if value is None:
        return CONF.api.max_limit
    try:
        limit = int(value)
    except ValueError:
        limit = 0
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
            and not uuidutils.is_uuid_like(marker)):
        raise exception.InvalidParameterValue(
            err='marker must be the UUID of the last item of the previous '
                'page, got %r' % (marker,))
    sort_dir = args.get('sort_dir', 'asc')
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err="sort_dir must be 'asc' or 'desc', got %r" % (sort_dir,))
    return Page(limit=_limit(args.get('limit')), marker=marker,
                sort_key=args.get('sort_key', default_sort_key),
                sort_dir=sort_dir)


def next_link(collection_url, args, page, items, key_field='uuid'):
    """The URL of the page after ``items``, or None if this one is last."""
    if len(items) < page.limit:
        return None
    query = [(k, v) for k, v in args.items(multi=True)
             if k not in ('limit', 'marker')]
    query += [('limit', page.limit),
              ('marker', getattr(items[-1], key_field))]
    return '%s?%s' % (collection_url, urllib.parse.urlencode(query))
