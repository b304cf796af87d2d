"""/v1/runbooks/{runbook}/traits: list, replace, add and remove the traits
that let a node run a runbook.

From API 1.112, as in Ironic (below it the endpoints do not exist: 404).
The rules mirror a node's traits (:mod:`.node_traits`): ``PUT`` with
``{"traits": [...]}`` replaces them all, ``PUT .../traits/{trait}``
without a body adds one, ``DELETE`` removes all or one; removing one the
runbook lacks is no matter, as in Ironic.  Each trait is checked here
(see :mod:`common.traits`); reading needs ``baremetal:runbook:get``,
changing ``baremetal:runbook:update`` and the runbook's ownership (see
:mod:`runbook_access`).
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import policy
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import runbook_access
from ironic_steps.api import runbook_view
from ironic_steps.api import trait_lists
from ironic_steps.api import versions
from ironic_steps.common import traits as traits_rules

blueprint = flask.Blueprint('runbook_traits', __name__,
                            url_prefix='/v1/runbooks/<ident>/traits')

_HOW = ('PUT /v1/runbooks/{runbook}/traits replaces all traits with the '
        'list in its body, {"traits": [...]}; PUT '
        '/v1/runbooks/{runbook}/traits/{trait} adds one, without a body')


@blueprint.before_request
def _check_version():
    versions.check_endpoint(flask.g.version, runbook_view.TRAITS_VERSION,
                            flask.request.path)


def _to_change(ident):
    context = flask.g.context
    policy.authorize('baremetal:runbook:update', context)
    return runbook_access.get_to_change(context, ident)


@blueprint.get('')
def list_traits(ident):
    context = flask.g.context
    policy.authorize('baremetal:runbook:get', context)
    query.check_known(flask.request.args, ())
    return responses.json_response(
        {'traits': runbook_access.get(context, ident).traits})


@blueprint.put('')
def set_traits(ident):
    traits = trait_lists.traits_of(body.json_body(default=None), _HOW)
    _to_change(ident).set_traits(traits)
    return responses.empty(204)


@blueprint.put('/<trait>')
def add_trait(ident, trait):
    if body.json_body(default=None) not in (None, {}):
        raise errors.InvalidBody(reason='no body is taken when adding one '
                                 'trait; ' + _HOW)
    traits_rules.check(trait)
    runbook = _to_change(ident)
    runbook.add_trait(trait)
    return responses.empty(204, headers={
        'Location': responses.url('runbooks', runbook.uuid, 'traits',
                                  trait)})


@blueprint.delete('')
def remove_all_traits(ident):
    _to_change(ident).remove_traits()
    return responses.empty(204)


@blueprint.delete('/<trait>')
def remove_trait(ident, trait):
    _to_change(ident).remove_traits([trait])
    return responses.empty(204)
