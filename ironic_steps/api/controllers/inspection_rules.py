"""/v1/inspection_rules: create, list, show, update and delete inspection
rules.

From API 1.96, as in Ironic: below it GET is answered 404 and any other
method 405, and while the services are pinned to a release before 0.13
(whose conductors apply no rules) every request is answered 404.  Rules
are not node operations and nothing locks them, so this controller reads
and writes them through :class:`objects.InspectionRule` directly; each
write is one transaction.  A rule is named by its UUID (either case); as
in Ironic, anything else is refused 400.  The view, the schema, the JSON
patch and the paging are the shared machinery with the rule's
declarations (:mod:`inspection_rule_view`, :mod:`inspection_rule_schema`);
the conductor applies the rules as inspections end.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import identifiers
from ironic_steps.api import inspection_rule_schema
from ironic_steps.api import inspection_rule_view
from ironic_steps.api import lanes
from ironic_steps.api import listing
from ironic_steps.api import patching
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common.inspection_rules import rule_format
from ironic_steps import objects

blueprint = flask.Blueprint('inspection_rules', __name__,
                            url_prefix='/v1/inspection_rules')

_VIEW = inspection_rule_view.VIEW
_SCHEMA = inspection_rule_schema.SCHEMA


@blueprint.before_request
def _check_version():
    versions.check_endpoint(flask.g.version, inspection_rule_view.VERSION,
                            flask.request.path, flask.request.method,
                            changes_405=True)
    versions.hide_while_pinned_before(inspection_rule_view.RELEASE)


def _get(context, ident):
    """The rule ``ident`` (a URL's) names.

    :raises InvalidParameterValue: for what is not a UUID.
    :raises InspectionRuleNotFound:
    """
    if not identifiers.is_uuid(ident):
        raise exception.InvalidParameterValue(
            err='%r is not a UUID; inspection rules are named by their '
                'uuid' % ident)
    return objects.InspectionRule.get_by_uuid(context, ident.lower())


def _phase_filter(args):
    phase = args.get('phase')
    if phase is not None and phase not in rule_format.PHASES:
        raise exception.InvalidParameterValue(
            err='Unknown phase %r; inspection rules have: %s' % (
                phase, ', '.join(rule_format.PHASES)))
    return phase


def _list(detail_path):
    context = flask.g.context
    policy.authorize('baremetal:inspection_rule:get', context)
    phase = _phase_filter(flask.request.args)
    return listing.page_response(
        _VIEW, 'inspection_rules', 'inspection rule', detail_path,
        lambda uuid: _get(context, uuid),
        lambda page, marker: objects.InspectionRule.list(
            context, limit=page.limit, marker=marker,
            sort_key=page.sort_key, sort_dir=page.sort_dir, phase=phase),
        filters=('phase',), compute=inspection_rule_view.compute)


@blueprint.get('')
@lanes.reads_pages
def list_rules():
    return _list(detail_path=False)


@blueprint.get('/detail')
@lanes.reads_pages
def list_rules_detail():
    return _list(detail_path=True)


def _body(rule, fields=None):
    return _VIEW.body(rule, flask.g.version, fields,
                      compute=inspection_rule_view.compute)


@blueprint.get('/<ident>')
def show(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:inspection_rule:get', context)
    query.check_known(flask.request.args, ('fields',))
    fields = _VIEW.parse_fields(flask.request.args.get('fields'), version)
    return responses.json_response(_body(_get(context, ident), fields))


@blueprint.post('')
def create():
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:inspection_rule:create', context)
    values = _SCHEMA.check_create(body.json_body(), version,
                                  'inspection rule')
    if values.get('uuid') is None:
        values.pop('uuid', None)
    rule = objects.InspectionRule(context, **values)
    rule.create()
    return responses.json_response(
        _body(rule), status=201,
        headers={'Location': responses.url('inspection_rules', rule.uuid)})


def _refuse_reading_what_is_hidden(rule, patch):
    """A patch may not copy, move or test what a rule's view hides (a
    sensitive rule's conditions and actions, secrets in args): it would
    read it into a field that is shown.

    :raises InvalidBody:
    """
    for parts in patching.values_read(patching.parse(patch)):
        if (parts and parts[0] in inspection_rule_view.HIDDEN_WHEN_SENSITIVE
                and inspection_rule_view.shows_differently(rule, parts)):
            raise errors.InvalidBody(
                reason='/%s is hidden (a secret, or a sensitive rule\'s); '
                       'it can be set and removed, never read' % '/'.join(
                           parts))


@blueprint.patch('/<ident>')
def update(ident):
    context, version = flask.g.context, flask.g.version
    policy.authorize('baremetal:inspection_rule:update', context)
    patch = body.json_body()
    rule = _get(context, ident)
    _refuse_reading_what_is_hidden(rule, patch)
    was_sensitive = rule.sensitive
    if patching.apply_changes(rule, patch, _SCHEMA, version,
                              inspection_rule_schema.empty):
        if was_sensitive and not rule.sensitive:
            # As Ironic: what was hidden stays hidden.
            raise exception.InvalidParameterValue(
                err='Inspection rule %s is sensitive: the flag cannot be '
                    'unset' % rule.uuid)
        rule.save()
    return responses.json_response(_body(rule))


@blueprint.delete('/<ident>')
def delete(ident):
    context = flask.g.context
    policy.authorize('baremetal:inspection_rule:delete', context)
    _get(context, ident).destroy()
    return responses.empty(204)
