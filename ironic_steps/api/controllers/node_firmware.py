"""/v1/nodes/{node}/firmware: the node's firmware components (read only).

From API 1.86, as in Ironic (below it the path does not exist: 404,
and while the services are pinned to a release without it the maximum
version is below it).  The body is Ironic's, ``{"firmware": [...]}``, one
item per component, sorted by name: ``component``, ``initial_version``,
``current_version``, ``last_version_flashed``, ``created_at`` and
``updated_at`` (null until the component is read again), or those
``?fields`` names; from 1.114 also ``vendor``, ``model`` and
``serial_number`` (what identifies the component, where the hardware
says).  Below 1.114 a ``?fields`` naming those is refused with 400, as
Ironic 39 refuses it (not the 406 of a node field).  The components are
what the node's firmware interface last read from the hardware (see
:mod:`ironic_steps.drivers.firmware`); a node whose firmware was never
read has none (``[]``).  Reading needs ``baremetal:node:firmware:get``.
"""

import flask

from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.api import view
from ironic_steps.common import exception
from ironic_steps import objects

blueprint = node_ident.blueprint('node_firmware', 'firmware',
                                 versions.MINOR_86_FIRMWARE_INTERFACE)

_IDENTITY_FIELDS = ('vendor', 'model', 'serial_number')
_IDENTITY_VERSION = versions.at(versions.MINOR_114_FIRMWARE_IDENTITY)
_FIELDS = ('created_at', 'updated_at', 'component', 'initial_version',
           'current_version', 'last_version_flashed', *_IDENTITY_FIELDS)
_VIEW = view.View(
    'firmware', _FIELDS,
    since=dict.fromkeys(_IDENTITY_FIELDS, _IDENTITY_VERSION),
    min_version=versions.at(versions.MINOR_86_FIRMWARE_INTERFACE),
    list_fields=_FIELDS, times=('created_at', 'updated_at'),
    key='component')


def _check_identity_fields(fields, version):
    """:raises InvalidParameterValue: (400, Ironic's answer) for identity
    fields asked for below 1.114."""
    asked = sorted(set(fields or ()) & set(_IDENTITY_FIELDS))
    if asked and version < _IDENTITY_VERSION:
        raise exception.InvalidParameterValue(
            err='Fields %s are not allowed in this API version. They '
                'require at least API version %s.' % (
                    ', '.join(asked), versions.to_string(_IDENTITY_VERSION)))


@blueprint.get('')
def list_components(ident):
    context = flask.g.context
    version = flask.g.version
    tenancy.authorize_ident('baremetal:node:firmware:get', context,
                            ident, flask.g.version)
    args = flask.request.args
    query.check_known(args, ('fields',))
    asked = args.get('fields')
    _check_identity_fields(
        asked and [field.strip() for field in asked.split(',')], version)
    fields = (_VIEW.parse_fields(asked, version)
              or _VIEW.visible_fields(version))
    node = node_ident.get_row(context, ident, version)
    components = objects.FirmwareComponent.list_by_node(context, node.id)
    return responses.json_response({'firmware': [
        _VIEW.values(component, fields, version)
        for component in components]})
