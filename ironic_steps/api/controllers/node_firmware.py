"""/v1/nodes/{node}/firmware: the node's firmware components (read only).

From API 1.86, as in Ironic (below it the path does not exist: 404,
and while the services are pinned to a release without it the maximum
version is below it).  The body is Ironic's, ``{"firmware": [...]}``, one
item per component, sorted by name: ``component``, ``initial_version``,
``current_version``, ``last_version_flashed``, ``created_at`` and
``updated_at`` (null until the component is read again), or those
``?fields`` names.  The components are what the node's firmware interface
last read from the hardware (see :mod:`ironic_steps.drivers.firmware`); a
node whose firmware was never read has none (``[]``).  Ironic shows
``vendor``, ``model`` and ``serial_number`` from 1.114 only; they are kept
but not served here yet.  Reading needs ``baremetal:node:firmware:get``.
"""

import flask

from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.api import view
from ironic_steps import objects

blueprint = node_ident.blueprint('node_firmware', 'firmware',
                                 versions.MINOR_86_FIRMWARE_INTERFACE)

_FIELDS = ('created_at', 'updated_at', 'component', 'initial_version',
           'current_version', 'last_version_flashed')
_VIEW = view.View(
    'firmware', _FIELDS,
    min_version=versions.at(versions.MINOR_86_FIRMWARE_INTERFACE),
    list_fields=_FIELDS, times=('created_at', 'updated_at'),
    key='component')


@blueprint.get('')
def list_components(ident):
    context = flask.g.context
    version = flask.g.version
    tenancy.authorize_ident('baremetal:node:firmware:get', context,
                            ident, flask.g.version)
    args = flask.request.args
    query.check_known(args, ('fields',))
    fields = _VIEW.parse_fields(args.get('fields'), version) or _FIELDS
    node = node_ident.get_row(context, ident, version)
    components = objects.FirmwareComponent.list_by_node(context, node.id)
    return responses.json_response({'firmware': [
        _VIEW.values(component, fields, version)
        for component in components]})
