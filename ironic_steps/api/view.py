"""What a resource looks like in the API: the machinery every view shares.

A resource's view is a declaration (:class:`View`): its public fields in
body order, the microversion each appeared in, the subset a plain list
shows, what an unset field shows, which fields are times and which hold
secrets.  From it the view answers the questions every resource's
controller asks:

* which fields exist at a version (:meth:`View.visible_fields`), refusing
  names that do not (:meth:`View.check_fields`, :meth:`View.parse_fields`);
* which fields a list request shows (``?fields``, ``?detail``, the
  ``/detail`` path: :meth:`View.list_fields_for`);
* the JSON body of one item, from an object or from a read-only row of
  its columns (:meth:`View.to_dict`);
* which fields may hold secrets (:meth:`View.is_masked`): they are shown
  masked, and the schema and the JSON patch never let a request read them
  any other way (see :mod:`masking`).

A field below its version does not exist: it is absent from bodies, and
naming it (``?fields=``, a create body, a PATCH path) is answered 406 as
Ironic does.  Which fields a request may *write* is :mod:`schema`'s
business.
"""

import datetime

from ironic_steps.api import errors
from ironic_steps.api import masking
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions as v
from ironic_steps.common import exception
from ironic_steps.conf import CONF

#: ``?detail=true`` on a list (``/detail`` paths exist for every version).
DETAIL_QUERY_VERSION = (1, v.MINOR_43_ENABLE_DETAIL_QUERY)


class View:
    """The public face of one kind of resource.

    :param resource: the collection name in URLs (``nodes``), for links.
    :param fields: every public field, in body order.
    :param since: field -> the (major, minor) version that added it;
        fields not listed exist from ``min_version``.
    :param min_version: the version the resource itself appeared in.
    :param list_fields: what a plain list shows without ``?fields``.
    :param empty: field -> a callable making what the field shows when
        unset (``dict`` for a JSON object, ``list`` for a list).
    :param times: fields holding datetimes (ISO 8601 in bodies).
    :param masked: fields whose secrets are masked (see :mod:`masking`).
    :param unknown_while_pinned: ``unknown_while_pinned()`` -> the fields
        (a frozenset) that do not exist while a rolling upgrade pins the
        services to a release without them, at any version; e.g. the
        object's :meth:`~objects.base.IronicStepsObject.
        fields_unknown_under_pin`.
    """

    def __init__(self, resource, fields, since=None, min_version=None,
                 list_fields=(), empty=None, times=(), masked=(),
                 unknown_while_pinned=None):
        self.resource = resource
        self.fields = tuple(fields)
        self.min_version = min_version or v.MIN_VERSION
        self._since = dict(since or {})
        self.list_fields = tuple(list_fields)
        self._empty = dict(empty or {})
        self._times = frozenset(times)
        self._masked = frozenset(masked)
        self._unknown_while_pinned = unknown_while_pinned or frozenset
        self._visible = {}

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

    def check_fields(self, fields, version):
        """Refuse field names that do not exist at ``version``.

        :raises UnknownFields: (400) for names that never exist.
        :raises FieldNotInVersion: (406) for names from a later version.
        :raises FieldNotInPinnedRelease: (406) for names the pinned release
            lacks.
        """
        unknown = sorted(set(fields) - set(self.fields))
        if unknown:
            raise errors.UnknownFields(
                fields=', '.join(unknown),
                valid=', '.join(self.visible_fields(version)))
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

    def parse_fields(self, value, version):
        """``?fields=a,b`` -> ('a', 'b'), checked; None if not given."""
        if value is None:
            return None
        fields = tuple(f.strip() for f in value.split(',') if f.strip())
        if not fields:
            raise errors.UnknownFields(fields="''", valid=', '.join(
                self.visible_fields(version)))
        self.check_fields(fields, version)
        return fields

    def list_fields_for(self, args, version, detail_path):
        """The fields each item of a list shows, from the request's
        ``?fields`` and ``?detail`` and whether its path is ``/detail``.

        :raises InvalidParameterValue: for ``?detail`` on a ``/detail``
            path, or ``?fields`` with a detailed list.
        :raises FeatureNotInVersion: for ``?detail`` before 1.43.
        """
        fields = self.parse_fields(args.get('fields'), version)
        detail = query.boolean(args, 'detail')
        if detail is not None:
            if detail_path:
                raise exception.InvalidParameterValue(
                    err='/v1/%s/detail is always detailed; drop ?detail'
                    % self.resource)
            if version < DETAIL_QUERY_VERSION:
                raise errors.FeatureNotInVersion(
                    feature='?detail',
                    needed=v.to_string(DETAIL_QUERY_VERSION),
                    version=v.to_string(version))
        else:
            detail = detail_path
        if detail and fields is not None:
            raise exception.InvalidParameterValue(
                err='?fields cannot be combined with a detailed list')
        if detail:
            return self.visible_fields(version)
        return self.list_fields if fields is None else fields

    def value(self, item, field):
        """One field of ``item`` (an object or a row) as the API shows it."""
        raw = getattr(item, field)
        if raw is None:
            empty = self._empty.get(field)
            return None if empty is None else empty()
        if field in self._times:
            # Rows hold times as stored, naive UTC; objects aware ones.
            if raw.tzinfo is None:
                raw = raw.replace(tzinfo=datetime.timezone.utc)
            return raw.isoformat()
        if field in self._masked:
            return masking.mask(raw)
        return raw

    def to_dict(self, item, fields, base_url=None):
        """The body of ``item`` with ``fields`` (already checked), linked."""
        value = self.value
        body = {field: value(item, field) for field in fields}
        body['links'] = responses.links(self.resource, item.uuid,
                                        base=base_url)
        return body
