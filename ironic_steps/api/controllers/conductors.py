"""/v1/conductors (API 1.49): the conductors, alive or dead.

What a conductor shows is :mod:`conductor_view`'s, whether it is alive
and what it serves the conductor registry's; pages are sorted and followed
by the shared :mod:`pagination` (markers are hostnames).  Below 1.49 the
endpoints do not exist (404, as in Ironic).
"""

import flask

from ironic_steps.api import conductor_view
from ironic_steps.api import lanes
from ironic_steps.api import pagination
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.conductor import registry
from ironic_steps import objects

blueprint = flask.Blueprint('conductors', __name__,
                            url_prefix='/v1/conductors')

_VIEW = conductor_view.VIEW
_LIST_PARAMS = frozenset(pagination.PARAMS + ('fields', 'detail'))


@blueprint.before_request
def _check_version():
    versions.check_endpoint(flask.g.version, conductor_view.VERSION,
                            flask.request.path)
    policy.authorize('baremetal:conductor:get', flask.g.context)


def _compute():
    return conductor_view.computer(registry.live_conductors())


@blueprint.get('')
@lanes.reads_pages
def list_conductors():
    context, version = flask.g.context, flask.g.version
    args = flask.request.args
    query.check_known(args, _LIST_PARAMS)
    fields = _VIEW.list_fields_for(args, version, detail_path=False)
    page = pagination.parse(args, key_field='hostname')
    marker = pagination.marker_item(
        page, lambda hostname: objects.Conductor.get_by_hostname(
            context, hostname), 'conductor', key_field='hostname')
    conductors = objects.Conductor.list(
        context, limit=page.limit, marker=marker, sort_key=page.sort_key,
        sort_dir=page.sort_dir)
    base = responses.public_url()
    return responses.json_response(pagination.collection(
        'conductors', _VIEW.bodies(conductors, version, fields, base,
                                   _compute()),
        base + '/v1/conductors', args, page, conductors,
        key_field='hostname'))


@blueprint.get('/<hostname>')
def show(hostname):
    context, version = flask.g.context, flask.g.version
    query.check_known(flask.request.args, ('fields',))
    fields = _VIEW.parse_fields(flask.request.args.get('fields'), version)
    conductor = objects.Conductor.get_by_hostname(context, hostname)
    return responses.json_response(
        _VIEW.body(conductor, version, fields, compute=_compute()))
