"""/v1/conductors (API 1.49): the conductors, alive or dead.

A conductor shows its ``hostname``, ``conductor_group`` (always ``""``:
ironic-steps does not group conductors), ``alive`` (see
:mod:`ironic_steps.objects.conductor`) and, in detail, the ``drivers`` it
serves (every enabled hardware type while it is alive) and its times.
Below 1.49 the endpoints do not exist (404, as in Ironic).
"""

import datetime

import flask

from ironic_steps.api import errors
from ironic_steps.api import pagination
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.drivers import driver_factory
from ironic_steps import objects

blueprint = flask.Blueprint('conductors', __name__,
                            url_prefix='/v1/conductors')

FIELDS = ('hostname', 'conductor_group', 'alive', 'drivers', 'created_at',
          'updated_at')
#: What a plain list shows, as Ironic.
LIST_FIELDS = ('hostname', 'conductor_group', 'alive')
_LIST_PARAMS = frozenset(pagination.PARAMS + ('fields', 'detail'))


def _time(value):
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value.isoformat()


def _value(conductor, field, drivers):
    if field == 'conductor_group':
        return ''
    if field == 'alive':
        return conductor.alive
    if field == 'drivers':
        return list(drivers) if conductor.alive else []
    if field in ('created_at', 'updated_at'):
        return _time(getattr(conductor, field))
    return getattr(conductor, field)


def _body(conductor, fields, drivers, base):
    body = {field: _value(conductor, field, drivers) for field in fields}
    body['links'] = responses.links('conductors', conductor.hostname,
                                    base=base)
    return body


def _parse_fields(value, version):
    if value is None:
        return None
    versions.require(version, versions.MINOR_8_FETCHING_SUBSET_OF_FIELDS,
                     '?fields')
    fields = tuple(f.strip() for f in value.split(',') if f.strip())
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown or not fields:
        raise errors.UnknownFields(fields=', '.join(unknown) or "''",
                                   valid=', '.join(FIELDS))
    return fields


def _start(path):
    version = flask.g.version
    versions.require_endpoint(version, versions.MINOR_49_CONDUCTORS, path)
    policy.authorize('baremetal:conductor:get', flask.g.context)
    return version


@blueprint.get('')
def list_conductors():
    version = _start(flask.request.path)
    args = flask.request.args
    query.check_known(args, _LIST_PARAMS)
    fields = _parse_fields(args.get('fields'), version)
    detail = query.boolean(args, 'detail')
    if detail and fields is not None:
        raise exception.InvalidParameterValue(
            err='?fields cannot be combined with ?detail=true')
    fields = fields or (FIELDS if detail else LIST_FIELDS)
    page = pagination.parse(args, key_field='hostname')
    marker = None
    if page.marker is not None:
        try:
            marker = objects.Conductor.get_by_hostname(flask.g.context,
                                                       page.marker)
        except exception.ConductorNotFound as exc:
            raise exception.InvalidParameterValue(
                err='marker %s is not the hostname of any conductor'
                    % page.marker) from exc
    conductors = objects.Conductor.list(
        flask.g.context, limit=page.limit, marker=marker,
        sort_key=page.sort_key, sort_dir=page.sort_dir)
    base = responses.public_url()
    drivers = driver_factory.enabled_hardware_types()
    collection = {'conductors': [_body(c, fields, drivers, base)
                                 for c in conductors]}
    next_url = pagination.next_link(base + '/v1/conductors', args, page,
                                    conductors, key_field='hostname')
    if next_url:
        collection['next'] = next_url
    return responses.json_response(collection)


@blueprint.get('/<hostname>')
def show(hostname):
    version = _start(flask.request.path)
    args = flask.request.args
    query.check_known(args, ('fields',))
    fields = _parse_fields(args.get('fields'), version) or FIELDS
    conductor = objects.Conductor.get_by_hostname(flask.g.context, hostname)
    return responses.json_response(_body(
        conductor, fields, driver_factory.enabled_hardware_types(),
        responses.public_url()))
