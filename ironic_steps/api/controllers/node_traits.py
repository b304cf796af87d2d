"""/v1/nodes/{node}/traits: list, replace, add and remove a node's traits.

From API 1.37, as in Ironic (below it the endpoints do not exist: 404),
and once no service is pinned to a release before traits (406 until
then).
Reads take the node's row with its traits in one query; every change goes
through the conductor (``add_node_traits`` / ``remove_node_traits``),
which makes it under the node's lock, in any provision state, as Ironic
does.  Each trait is checked here (see :mod:`common.traits`); the
conductor enforces the number a node may have.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import trait_lists
from ironic_steps.api import versions
from ironic_steps.common import traits as traits_rules
from ironic_steps import objects

blueprint = flask.Blueprint('node_traits', __name__,
                            url_prefix='/v1/nodes/<ident>/traits')

_VERSION = (1, versions.MINOR_37_NODE_TRAITS)
_HOW = ('PUT /v1/nodes/{node}/traits replaces all traits with the list in '
        'its body, {"traits": [...]}; PUT /v1/nodes/{node}/traits/{trait} '
        'adds one, without a body')


@blueprint.before_request
def _check_version():
    versions.check_endpoint(flask.g.version, _VERSION, flask.request.path)
    # Pinned to a release before traits (0.2 speaks 1.44 without them).
    objects.Node.check_in_pinned_release(
        'Node traits', field='traits')


@blueprint.get('')
def list_traits(ident):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:traits:list', context,
                            ident, flask.g.version)
    query.check_known(flask.request.args, ())
    node = node_ident.get_row(context, ident, flask.g.version,
                              with_traits=True)
    return responses.json_response({'traits': node.traits})


@blueprint.put('')
def set_traits(ident):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:traits:set', context,
                            ident, flask.g.version)
    traits = trait_lists.traits_of(body.json_body(default=None), _HOW)
    node = node_ident.get_row(context, ident, flask.g.version)
    flask.g.rpcapi.add_node_traits(context, node.uuid, traits, replace=True)
    return responses.empty(204)


@blueprint.put('/<trait>')
def add_trait(ident, trait):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:traits:set', context,
                            ident, flask.g.version)
    if body.json_body(default=None) not in (None, {}):
        raise errors.InvalidBody(reason='no body is taken when adding one '
                                 'trait; ' + _HOW)
    traits_rules.check(trait)
    node = node_ident.get_row(context, ident, flask.g.version)
    flask.g.rpcapi.add_node_traits(context, node.uuid, [trait])
    return responses.empty(204, headers={
        'Location': responses.url('nodes', ident, 'traits', trait)})


@blueprint.delete('')
def remove_all_traits(ident):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:traits:delete', context,
                            ident, flask.g.version)
    node = node_ident.get_row(context, ident, flask.g.version)
    flask.g.rpcapi.remove_node_traits(context, node.uuid)
    return responses.empty(204)


@blueprint.delete('/<trait>')
def remove_trait(ident, trait):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:traits:delete', context,
                            ident, flask.g.version)
    node = node_ident.get_row(context, ident, flask.g.version)
    flask.g.rpcapi.remove_node_traits(context, node.uuid, [trait])
    return responses.empty(204)
