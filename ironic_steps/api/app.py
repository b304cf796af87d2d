"""The WSGI application of the REST API (Ironic-compatible v1).

::

    application = create_app()

A request passes, outermost first: :class:`versions.VersionMiddleware`
(microversion, version headers on every answer), the ``.json`` suffix
below 1.91 (:mod:`json_suffix`), the authentication
middleware of ``[DEFAULT] auth_strategy`` (:mod:`auth`), then Flask, which
puts the version, the request context and the conductor RPC client in
``flask.g`` and routes to one blueprint per resource (:mod:`controllers`).
Controllers change nodes only through ``flask.g.rpcapi``; deploy
templates, which are not node operations, through their object.  Errors anywhere
are answered in Ironic's JSON error format (:mod:`errors`).
"""

import flask
from werkzeug import routing

from ironic_steps.api import auth
from ironic_steps.api.controllers import allocations
from ironic_steps.api.controllers import conductors
from ironic_steps.api.controllers import continue_inspection
from ironic_steps.api.controllers import deploy_templates
from ironic_steps.api.controllers import drivers
from ironic_steps.api.controllers import heartbeat
from ironic_steps.api.controllers import inspection_rules
from ironic_steps.api.controllers import lookup
from ironic_steps.api.controllers import node_bios
from ironic_steps.api.controllers import node_children
from ironic_steps.api.controllers import node_firmware
from ironic_steps.api.controllers import node_history
from ironic_steps.api.controllers import node_inventory
from ironic_steps.api.controllers import node_maintenance
from ironic_steps.api.controllers import node_management
from ironic_steps.api.controllers import node_resources
from ironic_steps.api.controllers import node_states
from ironic_steps.api.controllers import node_traits
from ironic_steps.api.controllers import node_vmedia
from ironic_steps.api.controllers import node_x_steps
from ironic_steps.api.controllers import nodes
from ironic_steps.api.controllers import root
from ironic_steps.api.controllers import runbook_traits
from ironic_steps.api.controllers import runbooks
from ironic_steps.api.controllers import shards
from ironic_steps.api.controllers import step_history
from ironic_steps.api import errors
from ironic_steps.api import json_suffix
from ironic_steps.api import query
from ironic_steps.api import request_ids
from ironic_steps.api import versions
from ironic_steps.common import x_steps
from ironic_steps.conductor import rpcapi

_RPCAPI = 'ironic_steps.rpcapi'
REQUEST_ID_HEADER = request_ids.HEADER
_BLUEPRINTS = (root.blueprint, nodes.blueprint, node_states.blueprint,
               node_maintenance.blueprint, node_traits.blueprint,
               node_bios.blueprint, heartbeat.blueprint, lookup.blueprint,
               drivers.blueprint, conductors.blueprint,
               deploy_templates.blueprint, node_resources.blueprint,
               allocations.blueprint, allocations.node_blueprint,
               node_management.blueprint, step_history.blueprint,
               node_history.blueprint, node_inventory.blueprint,
               node_children.blueprint, node_firmware.blueprint,
               shards.blueprint, continue_inspection.blueprint,
               runbooks.blueprint, runbook_traits.blueprint,
               node_vmedia.blueprint, inspection_rules.blueprint)


class _Route(routing.Rule):
    """A route whose URL builder is made the first time it builds a URL.

    werkzeug compiles two functions per route to build its URLs
    (``url_for``) as each route is added: five sixths of making the app
    (50 ms for 131 routes, once per service, and once per API test), for
    an API that never builds a URL from a route.  Matching is unchanged.
    """

    def _compile_builder(self, append_unknown=True):
        compiled = []

        def build(route, *args, **kwargs):
            if not compiled:
                compiled.append(super(_Route, route)._compile_builder(
                    append_unknown))
            return compiled[0](route, *args, **kwargs)
        return build


def _prepare_request():
    # The objects behind Flask's proxies, each looked up once: a look-up
    # through a proxy costs a node GET 1 %.
    request = flask.request._get_current_object()
    state = flask.g._get_current_object()
    environ = request.environ
    state.version = versions.of(environ)
    state.context = auth.request_context(environ)
    state.rpcapi = flask.current_app.extensions[_RPCAPI]
    query.check_no_nul(request.args, request.view_args)


def create_app():
    """A WSGI application (a Flask app) serving the v1 API."""
    # No static folder: Flask would route /static/<path> to one.
    app = flask.Flask('ironic_steps.api', static_folder=None)
    app.url_rule_class = _Route
    app.url_map.strict_slashes = False
    # Built here, not at import: it reads the transport and the pin.
    app.extensions[_RPCAPI] = rpcapi.ConductorAPI()
    for blueprint in _BLUEPRINTS:
        app.register_blueprint(blueprint)
    if x_steps.enabled():
        # Pinned to a release before it, the extension's paths are not
        # routed: 404, as for any path Ironic does not have.
        app.register_blueprint(node_x_steps.blueprint)
    errors.register(app)
    app.before_request(_prepare_request)
    # The request id first: every answer names it, refusals included.
    authenticated = auth.wrap(app.wsgi_app)
    auth.remember_costly_requests(app, authenticated)
    app.wsgi_app = request_ids.RequestIds(versions.VersionMiddleware(
        json_suffix.JsonSuffixMiddleware(authenticated)))
    return app
