"""/v1/runbooks: create, list, show, update and delete runbooks.

From API 1.92, as in Ironic: below it GET is answered 404 and any other
method 405.  Runbooks are not node operations and nothing locks them, so
this controller reads and writes them through :class:`objects.Runbook`
directly; each write is one transaction.  A runbook is named by UUID
(either case) or by name.  Who sees and changes which runbook is
:mod:`runbook_access`'s business; the view, the schema, the JSON patch
and the paging are the shared machinery with the runbook's declarations
(:mod:`runbook_view`, :mod:`runbook_schema`).  Its traits have their own
endpoints (:mod:`.runbook_traits`).
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import lanes
from ironic_steps.api import listing
from ironic_steps.api import patching
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import runbook_access
from ironic_steps.api import runbook_schema
from ironic_steps.api import runbook_view
from ironic_steps.api import versions
from ironic_steps import objects

blueprint = flask.Blueprint('runbooks', __name__, url_prefix='/v1/runbooks')

_VIEW = runbook_view.VIEW
#: Fields whose change needs a rule of its own besides the update rule.
_OWN_RULES = frozenset(['owner', 'public'])


@blueprint.before_request
def _check_version():
    versions.check_endpoint(flask.g.version, runbook_view.VERSION,
                            flask.request.path, flask.request.method,
                            changes_405=True)


def _list(detail_path):
    context = flask.g.context
    policy.authorize('baremetal:runbook:list', context)
    project = runbook_access.project_of(context)
    return listing.page_response(
        _VIEW, 'runbooks', 'runbook', detail_path,
        lambda uuid: runbook_access.get(context, uuid),
        lambda page, marker: objects.Runbook.list(
            context, limit=page.limit, marker=marker,
            sort_key=page.sort_key, sort_dir=page.sort_dir,
            project=project))


@blueprint.get('')
@lanes.reads_pages
def list_runbooks():
    return _list(detail_path=False)


@blueprint.get('/detail')
@lanes.reads_pages
def list_runbooks_detail():
    return _list(detail_path=True)


@blueprint.get('/<ident>')
def show(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:runbook:get', context)
    query.check_known(flask.request.args, ('fields',))
    fields = _VIEW.parse_fields(flask.request.args.get('fields'), version)
    runbook = runbook_access.get(context, ident)
    return responses.json_response(_VIEW.body(runbook, version, fields))


@blueprint.post('')
def create():
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:runbook:create', context)
    values = runbook_schema.SCHEMA.check_create(
        body.json_body(), version, 'runbook')
    policy.authorize_steps(context, values['steps'])
    runbook_access.check_new(context, values)
    if values.get('uuid') is None:
        values.pop('uuid', None)
    runbook = objects.Runbook(context, **values)
    runbook.create()
    return responses.json_response(
        _VIEW.body(runbook, version), status=201,
        headers={'Location': responses.url('runbooks', runbook.uuid)})


@blueprint.patch('/<ident>')
def update(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:runbook:update', context)
    patch = body.json_body()
    touched = patching.fields_touched(patching.parse(patch))
    for field in _OWN_RULES.intersection(touched):
        # As in Ironic: who owns a runbook and who sees it are an
        # administrator's to change.
        policy.authorize('baremetal:runbook:update:' + field, context)
    runbook = runbook_access.get_to_change(context, ident)
    if patching.apply_changes(runbook, patch, runbook_schema.SCHEMA,
                              version, runbook_schema.empty):
        runbook_access.check_changed(runbook, touched)
        if 'steps' in runbook.obj_what_changed():
            # Its author is the one who says what it runs from now on.
            policy.authorize_steps(context, runbook.steps)
        runbook.save()
    return responses.json_response(_VIEW.body(runbook, version))


@blueprint.delete('/<ident>')
def delete(ident):
    context = flask.g.context
    policy.authorize('baremetal:runbook:delete', context)
    runbook_access.get_to_change(context, ident).destroy()
    return responses.empty(204)
