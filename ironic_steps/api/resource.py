"""The REST face of a simple resource: list, show, create, patch, delete.

A resource around a node (chassis, ports, portgroups, volume connectors
and targets) is a :class:`Resource` declaration: its :class:`view.View`
and :class:`schema.Schema`, its object class, the prefix of its policy
rules, the query filters its lists take, the parents whose URLs list it
(``/v1/nodes/{node}/ports``), and the hooks where its own rules live
(what a body's references resolve to, what its node's state allows).
:meth:`Resource.register` then serves, on a blueprint:

* ``GET /v1/<path>`` and ``/v1/<path>/detail``, and the same under each
  parent: one page through :mod:`pagination`, fields through the view
  (``?fields``, ``?detail``, microversions, the pin);
* ``GET /v1/<path>/<ident>``, ``POST /v1/<path>``,
  ``PATCH /v1/<path>/<ident>`` (one JSON patch path: :mod:`patching`),
  ``DELETE /v1/<path>/<ident>``.

Every endpoint is 404 below the resource's microversion and while the
services are pinned to a release before the one that brought it, as if
it did not exist; nothing is written then either (the objects refuse).
Writes go through the object, one transaction each, not through the
conductor: nothing runs on these records, and the node states they
depend on are checked here, as Ironic's API does.
"""

import dataclasses
import typing

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import json_suffix
from ironic_steps.api import lanes
from ironic_steps.api import pagination
from ironic_steps.api import patching
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.conf import CONF
from ironic_steps import release_mappings


@dataclasses.dataclass(frozen=True)
class Filter:
    """A list's query parameter: the version it appeared in, the field it
    filters on and how its value is read (``parse(context, value,
    version)``; None: no filter)."""
    field: str
    since: tuple = versions.MIN_VERSION
    parse: typing.Callable = None


@dataclasses.dataclass(frozen=True)
class Parent:
    """``/v1/<path>/<ident>/<resource>`` lists the resource's records of
    one parent: ``resolve(context, ident, version)`` -> the value of
    ``field`` they have (e.g. a node's UUID for ``node_uuid``)."""
    path: str
    field: str
    resolve: typing.Callable
    since: tuple = versions.MIN_VERSION


def node_uuid(context, ident, version):
    """The UUID of the node ``ident`` (UUID or name) names, one the
    caller may see.

    :raises NodeNotFound:
    """
    return tenancy.node_row('baremetal:node:get', context, ident,
                            version).uuid


class Resource:
    """One kind of record and how the API serves it.

    :param path: under ``/v1`` (``ports``, ``volume/connectors``).
    :param collection: the key of a list body (``ports``, ``connectors``).
    :param what: the record's name in messages (``port``).
    :param view: its :class:`view.View`.
    :param schema: its :class:`schema.Schema`.
    :param object_class: its :class:`objects.resource.StoredResource`.
    :param rule: its policy rules' prefix (``baremetal:port``).
    :param release: the release that brought it (hidden when pinned
        before it).
    :param by_name: whether a URL may name a record by its ``name``.
    :param filters: query parameter -> :class:`Filter`.
    :param parents: :class:`Parent` URLs that list it.
    :param empty: ``empty(field)``: what an unset or removed field is.
    :param prepare: ``prepare(context, values, item, version)`` -> the
        values to write, references resolved and rules checked, for a
        create (``item`` None) or a change of ``item``.
    :param before_delete: ``before_delete(context, item)``: refuses a
        delete the record's rules forbid.
    :param read_create_body: ``read_create_body(context, body, version)``
        -> the body the schema checks: for what a create body may say
        that is not a field (a port's ``node_ident``).
    :param exclusive: list query parameters -> the others they cannot be
        combined with (400).
    """

    def __init__(self, path, collection, what, view, schema, object_class,
                 rule, release='0.6', by_name=False, filters=None,
                 parents=(), empty=None, prepare=None, before_delete=None,
                 default_sort='id', read_create_body=None, exclusive=None):
        self.path = path
        self.collection = collection
        self.what = what
        self.view = view
        self.schema = schema
        self.object_class = object_class
        self.rule = rule
        self.release = release
        self.by_name = by_name
        self.filters = dict(filters or {})
        self.parents = tuple(parents)
        self.empty = empty or (lambda field: None)
        self._prepare = prepare or (lambda context, values, item, version:
                                    values)
        self._before_delete = before_delete or (lambda context, item: None)
        self._read_create_body = read_create_body or (
            lambda context, body, version: body)
        self._exclusive = dict(exclusive or {})
        self._list_params = frozenset(pagination.PARAMS + ('fields', 'detail')
                                      + tuple(self.filters))

    # --- gates ------------------------------------------------------------

    def check_exists(self, since=None):
        """404 below the resource's version, or while pinned before its
        release (as for any unknown path)."""
        if release_mappings.pinned_before(CONF, self.release):
            flask.abort(404)
        versions.check_endpoint(flask.g.version,
                                since or self.view.min_version,
                                flask.request.path, flask.request.method)

    def get(self, context, ident):
        """The record a URL's ``ident`` names: its UUID (either case) or,
        where records have names, its name (a ``.json`` the URL's
        suffix lost below 1.91 included, if need be: :mod:`json_suffix`).

        :raises ResourceNotFound:
        """
        if identifiers.is_uuid(ident):
            return self.object_class.get_by_uuid(context, ident.lower())
        if self.by_name and identifiers.is_name(ident):
            return json_suffix.with_suffix(
                lambda name: self.object_class.get_by(context, 'name', name),
                ident, exception.ResourceNotFound)
        raise exception.ResourceNotFound(what=self.what.capitalize(),
                                         ident=ident)

    def _record(self, action, context, ident):
        """The record ``ident`` names, which ``context`` may ``action``
        (``:get``, ...): see :func:`tenancy.record`."""
        return tenancy.record(self.rule + action, context,
                              lambda: self.get(context, ident), self.what)

    # --- reading ----------------------------------------------------------

    def _filters(self, context, args, version):
        found = {}
        for name, others in self._exclusive.items():
            given = [other for other in others if other in args]
            if name in args and given:
                raise exception.InvalidParameterValue(
                    err='Filtering %s by %s cannot be combined with %s' % (
                        self.collection, name, ', '.join(given)))
        for name, declared in self.filters.items():
            if name not in args:
                continue
            if version < declared.since:
                raise errors.FeatureNotInVersion(
                    feature='Filtering %s by %s' % (self.collection, name),
                    needed=versions.to_string(declared.since),
                    version=versions.to_string(version))
            value = args[name]
            if declared.parse is not None:
                value = declared.parse(context, value, version)
            if value is not None:
                found[declared.field] = value
        return found

    def list(self, detail_path, parent=None, parent_ident=None):
        """A page of records, of one parent's if given."""
        self.check_exists(parent.since if parent else None)
        context, version = flask.g.context, flask.g.version
        project = tenancy.list_project(self.rule.split(':', 1)[1], context)
        args = flask.request.args
        query.check_known(args, self._list_params)
        fields = self.view.list_fields_for(args, version, detail_path)
        filters = self._filters(context, args, version)
        if project is not None:
            filters['nodes.project'] = project
        if parent is not None:
            filters[parent.field] = parent.resolve(context, parent_ident,
                                                   version)
        page = pagination.parse(args)
        if page.sort_key in self.view.fields:
            self.view.check_fields([page.sort_key], version)
        marker = pagination.marker_item(
            page, lambda uuid: self.object_class.get_by_uuid(context, uuid),
            self.what)
        items = self.object_class.list_rows(
            context, filters=filters, limit=page.limit, marker=marker,
            sort_key=page.sort_key, sort_dir=page.sort_dir)
        base = responses.public_url()
        path = flask.request.path
        return responses.json_response(pagination.collection(
            self.collection, self.view.bodies(items, version, fields, base),
            base + path, args, page, items))

    def show(self, ident):
        self.check_exists()
        context, version = flask.g.context, flask.g.version
        query.check_known(flask.request.args, ('fields',))
        fields = self.view.parse_fields(flask.request.args.get('fields'),
                                        version)
        item = self._record(':get', context, ident)
        return responses.json_response(self.view.body(item, version, fields))

    # --- writing ----------------------------------------------------------

    def create(self):
        self.check_exists()
        context, version = flask.g.context, flask.g.version
        query.check_known(flask.request.args, ())
        values = self.schema.check_create(
            self._read_create_body(context, body.json_body(), version),
            version, self.what)
        if values.get('uuid') is None:
            values.pop('uuid', None)
        tenancy.authorize_record_node(self.rule + ':create', context, values)
        values = self._prepare(context, values, None, version)
        item = self.object_class(context, **values)
        item.create()
        return responses.json_response(
            self.view.body(item, version), status=201,
            headers={'Location': responses.url(self.path, item.uuid)})

    def update(self, ident):
        self.check_exists()
        context, version = flask.g.context, flask.g.version
        query.check_known(flask.request.args, ())
        patch = body.json_body()
        item = self._record(':update', context, ident)
        changes = patching.changes(item, patch, self.schema, version,
                                   self.empty)
        # Moved to another node: one the caller may change too.
        tenancy.authorize_record_node(self.rule + ':update', context,
                                      changes)
        if changes:
            changes = self._prepare(context, changes, item, version)
            for field, value in changes.items():
                setattr(item, field, value)
            item.save()
        return responses.json_response(self.view.body(item, version))

    def delete(self, ident):
        self.check_exists()
        context = flask.g.context
        query.check_known(flask.request.args, ())
        item = self._record(':delete', context, ident)
        self._before_delete(context, item)
        item.destroy()
        return responses.empty(204)

    # --- routes -----------------------------------------------------------

    def register(self, blueprint):
        """Serve this resource on ``blueprint`` (whose prefix is /v1)."""
        name = self.path.replace('/', '_')
        top = '/' + self.path
        blueprint.add_url_rule(
            top, name + '_list', methods=['GET'],
            view_func=lanes.reads_pages(lambda: self.list(False)))
        blueprint.add_url_rule(
            top + '/detail', name + '_detail', methods=['GET'],
            view_func=lanes.reads_pages(lambda: self.list(True)))
        blueprint.add_url_rule(top, name + '_create', methods=['POST'],
                               view_func=self.create)
        item = top + '/<ident>'
        blueprint.add_url_rule(item, name + '_show', methods=['GET'],
                               view_func=self.show)
        blueprint.add_url_rule(item, name + '_update', methods=['PATCH'],
                               view_func=self.update)
        blueprint.add_url_rule(item, name + '_delete', methods=['DELETE'],
                               view_func=self.delete)
        for parent in self.parents:
            self._register_parent(blueprint, name, parent)

    def _register_parent(self, blueprint, name, parent):
        under = '/%s/<parent_ident>/%s' % (parent.path, self.path)
        endpoint = '%s_of_%s' % (name, parent.path.replace('/', '_'))

        # Not on the lane: one node's (one group's) records are few.
        def listing(parent_ident, detail=False):
            return self.list(detail, parent, parent_ident)

        blueprint.add_url_rule(under, endpoint, methods=['GET'],
                               view_func=listing)
        blueprint.add_url_rule(under + '/detail', endpoint + '_detail',
                               methods=['GET'], view_func=listing,
                               defaults={'detail': True})
