"""/v1/deploy_templates: create, list, show, update and delete templates.

From API 1.55, as in Ironic: below it GET is answered 404 and any other
method 405.  Templates are not node operations and nothing locks them, so
this controller reads and writes them through
:class:`objects.DeployTemplate` directly, without the conductor; each
write is one transaction.  A template is named by UUID (either case, looked
up in lower case) or by name (a trait, matched whole); anything else names
no template.  The
view, the schema, the JSON patch and the paging are the shared machinery
with the template's declarations (:mod:`template_view`,
:mod:`template_schema`).
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import identifiers
from ironic_steps.api import lanes
from ironic_steps.api import listing
from ironic_steps.api import patching
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import template_schema
from ironic_steps.api import template_view
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import traits
from ironic_steps import objects

blueprint = flask.Blueprint('deploy_templates', __name__,
                            url_prefix='/v1/deploy_templates')

_VIEW = template_view.VIEW


@blueprint.before_request
def _check_version():
    versions.check_endpoint(flask.g.version, template_view.VERSION,
                            flask.request.path, flask.request.method,
                            changes_405=True)


def _get(context, ident):
    """The template ``ident`` (a URL's) names.

    :raises DeployTemplateNotFound: also for what is neither a UUID nor a
        trait, which no template can be called.
    """
    if identifiers.is_uuid(ident):
        return objects.DeployTemplate.get_by_uuid(context, ident.lower())
    if traits.problem(ident) is not None:
        raise exception.DeployTemplateNotFound(template=ident)
    return objects.DeployTemplate.get_by_name(context, ident)


def _list(detail_path):
    context = flask.g.context
    policy.authorize('baremetal:deploy_template:get', context)
    return listing.page_response(
        _VIEW, 'deploy_templates', 'deploy template', detail_path,
        lambda uuid: objects.DeployTemplate.get_by_uuid(context, uuid),
        lambda page, marker: objects.DeployTemplate.list(
            context, limit=page.limit, marker=marker,
            sort_key=page.sort_key, sort_dir=page.sort_dir))


@blueprint.get('')
@lanes.reads_pages
def list_templates():
    return _list(detail_path=False)


@blueprint.get('/detail')
@lanes.reads_pages
def list_templates_detail():
    return _list(detail_path=True)


@blueprint.get('/<ident>')
def show(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:deploy_template:get', context)
    query.check_known(flask.request.args, ('fields',))
    fields = _VIEW.parse_fields(flask.request.args.get('fields'), version)
    template = _get(context, ident)
    return responses.json_response(_VIEW.body(template, version, fields))


@blueprint.post('')
def create():
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:deploy_template:create', context)
    values = template_schema.SCHEMA.check_create(
        body.json_body(), version, 'deploy template')
    policy.authorize_steps(context, values.get('steps') or ())
    if values.get('uuid') is None:
        values.pop('uuid', None)
    template = objects.DeployTemplate(context, **values)
    template.create()
    return responses.json_response(
        _VIEW.body(template, version), status=201,
        headers={'Location': responses.url('deploy_templates',
                                           template.uuid)})


@blueprint.patch('/<ident>')
def update(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:deploy_template:update', context)
    patch = body.json_body()
    template = _get(context, ident)
    if patching.apply_changes(template, patch, template_schema.SCHEMA,
                              version, template_schema.empty):
        # Its author is the one who says what it runs from now on.
        policy.authorize_steps(context, template.steps or ())
        template.save()
    return responses.json_response(_VIEW.body(template, version))


@blueprint.delete('/<ident>')
def delete(ident):
    context = flask.g.context
    policy.authorize('baremetal:deploy_template:delete', context)
    _get(context, ident).destroy()
    return responses.empty(204)
