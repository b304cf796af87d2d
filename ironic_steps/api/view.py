"""What a resource looks like in the API: the machinery every view shares.

A resource's view is a declaration (:class:`View`): its public fields in
body order, the microversion each appeared in, the subset a plain list
shows, what an unset field shows, which fields are times, which hold
secrets, which are computed rather than stored, what a field showed
below a version where it showed something else, and the links to the
item's sub-resources.  From it the view answers the questions every
resource's controller asks:

* which fields exist at a version (:meth:`View.visible_fields`), refusing
  names that do not (:meth:`View.check_fields`, :meth:`View.parse_fields`);
* which fields a list request shows (``?fields``, ``?detail``, the
  ``/detail`` path: :meth:`View.list_fields_for`);
* the JSON body of one item at a version, from an object or from a
  read-only row of its columns (:meth:`View.body`, :meth:`View.bodies`);
* which fields may hold secrets (:meth:`View.is_masked`): they are shown
  masked, and the schema and the JSON patch never let a request read them
  any other way (see :mod:`masking`).

A field below its version does not exist: it is absent from bodies, and
naming it (``?fields=``, a create body, a PATCH path) is answered 406 as
Ironic does.  So is a field the pinned release's object lacks, during a
rolling upgrade.  Which fields a request may *write* is :mod:`schema`'s
business.

Bodies are built from a display plan, worked out once per (fields,
version): for each field whether it is computed, what it shows when unset
and the conversion it needs.  Showing a page of items then costs a lookup
and a call per field, and a row's values are read by name in one go
(twice as fast as an attribute per field on a SQLAlchemy row).
"""

import functools

from ironic_steps.api import errors
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions as v
from ironic_steps.common import exception
from ironic_steps.common import masking
from ironic_steps.conf import CONF

#: ``?detail=true`` on a list (``/detail`` paths exist for every version).
DETAIL_QUERY_VERSION = (1, v.MINOR_43_ENABLE_DETAIL_QUERY)


def _time(raw):
    # Rows hold times as stored, naive UTC (written as an aware UTC time
    # is, without a copy of each); objects aware ones.
    if raw.tzinfo is None:
        return raw.isoformat() + '+00:00'
    return raw.isoformat()


def _each(converts, raw):
    for convert in converts:
        raw = convert(raw)
    return raw


def _row_keys(item):
    """The column names of ``item`` if it is a row (None for an object)."""
    return item._fields if hasattr(item, '_fields') else None


#: Distinct (fields, version) plans kept; ``?fields`` is the request's.
_MAX_PLANS = 1024


class View:
    """The public face of one kind of resource.

    :param resource: the collection name in URLs (``nodes``), for links.
    :param fields: every public field, in body order.
    :param since: field -> the (major, minor) version that added it;
        fields not listed exist from ``min_version``.
    :param min_version: the version the resource itself appeared in.
    :param list_fields: what a plain list shows without ``?fields``.
    :param empty: field -> a callable making what the field shows when
        unset (``dict`` for a JSON object, ``list`` for a list, ``bool``
        for a flag that reads false).
    :param times: fields holding datetimes (ISO 8601 in bodies).
    :param masked: fields whose secrets are masked (see :mod:`masking`).
    :param unknown_while_pinned: ``unknown_while_pinned()`` -> the fields
        (a frozenset) that do not exist while a rolling upgrade pins the
        services to a release without them, at any version; e.g. the
        object's :meth:`~objects.base.IronicStepsObject.
        fields_unknown_under_pin`.
    :param computed: fields that are not stored: their values come from
        the ``compute`` callable a body is built with (None without one).
    :param before: field -> ((version, convert), ...): below each
        ``version`` the field's stored value is shown as
        ``convert(value)``, as it was then (a node's ``inspect wait`` as
        ``inspecting`` below 1.39, and its ``available`` as null below
        1.2); the conversions below a request's version apply in turn.
    :param after: field -> ((version, convert), ...): the same from each
        ``version`` on, for what a later version stopped showing (a port's
        OVN VTEP switch keys from 1.105).
    :param links: sub-resource -> the version from which the whole item
        (not ``?fields``, not a plain list) links to it.
    :param key: the field that names an item in its URL (for a resource
        under another, e.g. a node's BIOS settings, the bodies are given
        the owner's path: see :meth:`body`).
    :param detail_query_since: the version from which a list takes
        ``?detail`` (1.43, or the resource's own first version where it
        took it from the start, as the volume records do).
    :param not_built: field -> the version of Ironic's that brought it,
        for fields Ironic has at versions this service does not serve
        yet: a client that sends one is answered 406 (as Ironic answers a
        field of a later version), never 400.
    """

    def __init__(self, resource, fields, since=None, min_version=None,
                 list_fields=(), empty=None, times=(), masked=(),
                 unknown_while_pinned=None, computed=(), before=None,
                 after=None, links=None, key='uuid',
                 detail_query_since=DETAIL_QUERY_VERSION, not_built=None):
        self.resource = resource
        self.detail_query_since = detail_query_since
        self.fields = tuple(fields)
        self.min_version = min_version or v.MIN_VERSION
        self._since = dict(since or {})
        self.list_fields = tuple(list_fields)
        self._empty = dict(empty or {})
        self._times = frozenset(times)
        self._masked = frozenset(masked)
        self._unknown_while_pinned = unknown_while_pinned or frozenset
        self.computed = frozenset(computed)
        self._before = dict(before or {})
        self._after = dict(after or {})
        self._links = dict(links or {})
        self._not_built = dict(not_built or {})
        self.key = key
        self._visible = {}
        self._plan = functools.lru_cache(maxsize=_MAX_PLANS)(self._make_plan)
        self._links_at = functools.lru_cache(maxsize=None)(self._make_links)

    def since(self, field):
        """The version that introduced ``field``."""
        return self._since.get(field, self.min_version)

    def is_masked(self, field):
        """Whether ``field`` may hold secrets, shown masked (see
        :mod:`masking`); its secrets are write-only."""
        return field in self._masked

    def visible_fields(self, version):
        """The fields an item has at ``version``, in body order."""
        key = (version, self._unknown_while_pinned())
        visible = self._visible.get(key)
        if visible is None:
            visible = tuple(f for f in self.fields
                            if self.since(f) <= version and f not in key[1])
            # Bounded by the number of versions and pins there are.
            self._visible[key] = visible
        return visible

    def columns(self, fields):
        """The stored fields of ``fields``: what a query must read."""
        return tuple(f for f in fields if f not in self.computed)

    def check_fields(self, fields, version):
        """Refuse field names that do not exist at ``version``.

        :raises UnknownFields: (400) for names that never exist.
        :raises FieldNotInVersion: (406) for names from a later version.
        :raises FieldNotInPinnedRelease: (406) for names the pinned release
            lacks.
        """
        unknown = sorted(set(fields) - set(self.fields))
        if unknown:
            self.refuse_unknown(unknown, version,
                                ', '.join(self.visible_fields(version)))
        pinned_out = [f for f in fields if f in self._unknown_while_pinned()]
        if pinned_out:
            raise errors.FieldNotInPinnedRelease(
                fields=', '.join(pinned_out), pinned=CONF.pin_release_version)
        later = [f for f in fields if self.since(f) > version]
        if later:
            raise errors.FieldNotInVersion(
                fields=', '.join(later),
                needed=v.to_string(max(self.since(f) for f in later)),
                version=v.to_string(version))

    def refuse_unknown(self, unknown, version, valid):
        """Refuse field names this resource does not have.

        :raises FieldNotInVersion: (406) for one of Ironic's fields from a
            version not served here yet.
        :raises UnknownFields: (400) otherwise.
        """
        later = [f for f in unknown if f in self._not_built]
        if later:
            raise errors.FieldNotInVersion(
                fields=', '.join(later),
                needed=v.to_string(max(self._not_built[f] for f in later)),
                version=v.to_string(version))
        raise errors.UnknownFields(fields=', '.join(unknown), valid=valid)

    def parse_fields(self, value, version):
        """``?fields=a,b`` -> ('a', 'b'), checked; None if not given.

        :raises FeatureNotInVersion: (406) before 1.8, as Ironic.
        """
        if value is None:
            return None
        v.require(version, v.MINOR_8_FETCHING_SUBSET_OF_FIELDS, '?fields')
        fields = tuple(f.strip() for f in value.split(',') if f.strip())
        if not fields:
            raise errors.UnknownFields(fields="''", valid=', '.join(
                self.visible_fields(version)))
        self.check_fields(fields, version)
        return fields

    def list_fields_for(self, args, version, detail_path):
        """The fields each item of a list shows, from the request's
        ``?fields`` and ``?detail`` and whether its path is ``/detail``;
        None for whole items (a detailed list).

        :raises InvalidParameterValue: for ``?detail`` on a ``/detail``
            path, or ``?fields`` with a detailed list.
        :raises FeatureNotInVersion: for ``?detail`` before
            ``detail_query_since``.
        """
        fields = self.parse_fields(args.get('fields'), version)
        detail = query.boolean(args, 'detail')
        if detail is not None:
            if detail_path:
                raise exception.InvalidParameterValue(
                    err='/v1/%s/detail is always detailed; drop ?detail'
                    % self.resource)
            if version < self.detail_query_since:
                raise errors.FeatureNotInVersion(
                    feature='?detail',
                    needed=v.to_string(self.detail_query_since),
                    version=v.to_string(version))
        else:
            detail = detail_path
        if detail and fields is not None:
            raise exception.InvalidParameterValue(
                err='?fields cannot be combined with a detailed list')
        if detail:
            return None
        return self.list_fields if fields is None else fields

    # --- bodies ---------------------------------------------------------

    def _converter(self, field, version):
        if field in self._times:
            return _time
        if field in self._masked:
            return masking.mask
        converts = [convert for needed, convert in self._before.get(
            field, ()) if version < needed]
        converts += [convert for since, convert in self._after.get(field, ())
                     if version >= since]
        if len(converts) > 1:
            return functools.partial(_each, converts)
        return converts[0] if converts else None

    def _make_plan(self, fields, version):
        """How to show each of ``fields`` at ``version``: (field,
        computed, what an unset value shows or None, converter or None)."""
        return tuple((field, field in self.computed, self._empty.get(field),
                      self._converter(field, version)) for field in fields)

    def _make_links(self, version):
        return tuple(name for name, needed in self._links.items()
                     if needed <= version)

    def values(self, item, fields, version, compute=None, keys=False):
        """``fields`` (already checked) of ``item``, an object or a row, as
        the API shows them at ``version``, without links.

        :param compute: ``compute(item, field)``: a computed field's value.
        :param keys: the column names of ``item`` if known (see
            :meth:`bodies`); False to find out.
        """
        if keys is False:
            keys = _row_keys(item)
        stored = None if keys is None else dict(zip(keys, item))
        shown = {}
        for field, computed, empty, convert in self._plan(fields, version):
            if computed:
                shown[field] = None if compute is None else compute(
                    item, field)
                continue
            raw = getattr(item, field) if stored is None else stored[field]
            if raw is None:
                # A new value each time: bodies may be changed by readers.
                shown[field] = None if empty is None else empty()
            elif convert is not None:
                shown[field] = convert(raw)
            else:
                shown[field] = raw
        return shown

    def body(self, item, version, fields=None, base_url=None, compute=None,
             keys=False, parent=None):
        """The body of ``item`` at ``version``: ``fields`` (already
        checked) and its links, or, without ``fields``, every field that
        exists at ``version``, its links and its sub-resources' links.

        :param base_url: the base of links (default: the request's).
        :param compute: ``compute(item, field)``: a computed field's value.
        :param keys: see :meth:`values`.
        :param parent: for a resource under another, the path of its owner
            under ``/v1`` (``nodes/<uuid>`` for a node's BIOS settings):
            its links are under it.
        """
        base_url = base_url or responses.public_url()
        body = self.values(item, fields or self.visible_fields(version),
                           version, compute, keys)
        own = self.resource + '/' + getattr(item, self.key)
        if parent is not None:
            own = parent + '/' + own
        body['links'] = responses.links(own, base=base_url)
        if fields is None:
            for name in self._links_at(version):
                body[name] = responses.links(own, name, base=base_url)
        return body

    def bodies(self, items, version, fields=None, base_url=None,
               compute=None, parent=None):
        """:meth:`body` of each of ``items``: rows of one query, or
        objects."""
        base_url = base_url or responses.public_url()
        keys = _row_keys(items[0]) if items else None
        return [self.body(item, version, fields, base_url, compute, keys,
                          parent)
                for item in items]
