"""A node's boot device, console and vendor passthru methods.

* ``/v1/nodes/{node}/management/boot_device``: ``GET`` the device the
  node boots from next (``{"boot_device", "persistent"}``), ``PUT`` one
  (``{"boot_device": "pxe", "persistent": false}``, 204), ``GET
  .../supported`` the devices its management interface takes.
* ``/v1/nodes/{node}/states/console``: ``GET`` whether its console is
  enabled (``console_info`` is null while it is not); ``PUT
  {"enabled": bool}`` starts or stops it (202).  The only console
  interface here is ``no-console``, whose validation refuses both (400,
  naming the interface), so ``console_enabled`` stays false.
* ``/v1/nodes/{node}/vendor_passthru/methods``: the passthru methods of
  the node's vendor interface (``{}`` when it has none).
* ``PUT /v1/nodes/{node}/management/inject_nmi`` (from 1.29, release
  0.13): the node's management interface sends the machine a
  non-maskable interrupt (204); a body, if any, is ``{}``.

All of them exist from the first microversion, as in Ironic, and go to
the node's conductor, which loads its driver; while the services are
pinned to a release before them (0.5) they answer 404, as unknown paths.
"""

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions

#: The version that brought injecting an NMI.
_INJECT_NMI = versions.at(versions.MINOR_29_INJECT_NMI)

blueprint = flask.Blueprint('node_management', __name__,
                            url_prefix='/v1/nodes/<ident>')

#: The release that serves these endpoints.
RELEASE = '0.6'


@blueprint.before_request
def _check_release():
    versions.hide_while_pinned_before(RELEASE)


def _node_uuid(ident):
    query.check_known(flask.request.args, ())
    return node_ident.get_uuid(flask.g.context, ident, flask.g.version)


def _flag(values, name):
    value = values.get(name, False)
    if not isinstance(value, bool):
        raise errors.InvalidField(field=name,
                                  reason='%r is not true or false' % (value,))
    return value


@blueprint.get('/management/boot_device')
def get_boot_device(ident):
    tenancy.authorize_ident('baremetal:node:get_boot_device', flask.g.context,
                            ident, flask.g.version)
    return responses.json_response(flask.g.rpcapi.get_boot_device(
        flask.g.context, _node_uuid(ident)))


@blueprint.put('/management/boot_device')
def set_boot_device(ident):
    tenancy.authorize_ident('baremetal:node:set_boot_device', flask.g.context,
                            ident, flask.g.version)
    values = body.json_object(('boot_device', 'persistent'))
    device = values.get('boot_device')
    if not isinstance(device, str) or not device:
        raise errors.InvalidField(
            field='boot_device', reason='a boot device name is needed, '
            'e.g. pxe or disk (GET .../boot_device/supported lists them)')
    flask.g.rpcapi.set_boot_device(flask.g.context, _node_uuid(ident),
                                   device, _flag(values, 'persistent'))
    return responses.empty(204)


@blueprint.put('/management/inject_nmi')
def inject_nmi(ident):
    versions.check_endpoint(flask.g.version, _INJECT_NMI,
                            flask.request.path)
    tenancy.authorize_ident('baremetal:node:inject_nmi', flask.g.context,
                            ident, flask.g.version)
    body.json_object((), default={})
    flask.g.rpcapi.inject_nmi(flask.g.context, _node_uuid(ident))
    return responses.empty(204)


@blueprint.get('/management/boot_device/supported')
def get_supported_boot_devices(ident):
    tenancy.authorize_ident('baremetal:node:get_boot_device', flask.g.context,
                            ident, flask.g.version)
    return responses.json_response({
        'supported_boot_devices':
            flask.g.rpcapi.get_supported_boot_devices(flask.g.context,
                                                      _node_uuid(ident))})


@blueprint.get('/states/console')
def get_console(ident):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:get_console', context,
                            ident, flask.g.version)
    query.check_known(flask.request.args, ())
    node = node_ident.get_row(context, ident, flask.g.version)
    # No console runs here: while one is off Ironic shows no info either.
    return responses.json_response({
        'console_enabled': bool(node.console_enabled),
        'console_info': None})


@blueprint.put('/states/console')
def set_console(ident):
    tenancy.authorize_ident('baremetal:node:set_console_state', flask.g.context,
                            ident, flask.g.version)
    values = body.json_object(('enabled',))
    if 'enabled' not in values:
        raise errors.InvalidField(field='enabled',
                                  reason='true or false is needed')
    node_uuid = _node_uuid(ident)
    flask.g.rpcapi.set_console_mode(flask.g.context, node_uuid,
                                    _flag(values, 'enabled'))
    return responses.empty(202, headers={
        'Location': responses.url('nodes', node_uuid, 'states', 'console')})


@blueprint.get('/vendor_passthru/methods')
def vendor_passthru_methods(ident):
    tenancy.authorize_ident('baremetal:node:vendor_passthru', flask.g.context,
                            ident, flask.g.version)
    return responses.json_response(
        flask.g.rpcapi.get_node_vendor_passthru_methods(flask.g.context,
                                                        _node_uuid(ident)))
