"""/v1/nodes/{node}/bios: the BIOS settings cached for a node (read only).

From API 1.40, as in Ironic (below it the endpoints do not exist: 404),
and once no service is pinned to a release without the cache (406 until
then).  The settings are what the node's BIOS interface last read from
the hardware (see :mod:`ironic_steps.drivers.bios`); they change only
through BIOS steps, never through the API.  Reading needs
``baremetal:node:bios:get``.  What a setting shows is :mod:`bios_view`'s.

From 1.74 the list takes ``?detail`` and ``?fields`` (below it they are
refused with 406, as a field of a later version is everywhere in this
API; Ironic answers 400); any other query parameter, and any on one
setting, is refused with 400, as Ironic does.
"""

import flask

from ironic_steps.api import bios_view
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import bios_registry
from ironic_steps.common import exception
from ironic_steps.common import masking
from ironic_steps import objects

blueprint = flask.Blueprint('node_bios', __name__,
                            url_prefix='/v1/nodes/<ident>/bios')

_VIEW = bios_view.VIEW


@blueprint.before_request
def _check_version():
    versions.check_endpoint(flask.g.version, bios_view.VERSION,
                            flask.request.path)
    # Pinned to a release before the cache (0.3 speaks 1.69 without it).
    objects.BIOSSetting.check_in_pinned_release('BIOS settings')


def _node(ident):
    context = flask.g.context
    tenancy.authorize_ident('baremetal:node:bios:get', context,
                            ident, flask.g.version)
    return node_ident.get_row(context, ident, flask.g.version)


def _listed_fields(args, version):
    """The fields each setting of a list shows; None for every field
    (``?detail=true``).

    :raises FeatureNotInVersion: (406) for ``?detail`` or ``?fields``
        below 1.74.
    :raises InvalidParameterValue: (400) for another query parameter, or
        both ``?detail=true`` and ``?fields``.
    :raises UnknownFields: (400) naming fields that do not exist.
    """
    if version < bios_view.REGISTRY_VERSION:
        later = [name for name in ('detail', 'fields') if name in args]
        if later:
            raise errors.FeatureNotInVersion(
                feature=' and '.join('?' + name for name in later),
                needed=versions.to_string(bios_view.REGISTRY_VERSION),
                version=versions.to_string(version))
        query.check_known(args, ())
        return bios_view.LIST_FIELDS
    query.check_known(args, ('detail', 'fields'))
    fields = _VIEW.list_fields_for(args, version, detail_path=False)
    if fields is None:
        return None
    return bios_view.ALWAYS_LISTED + tuple(
        field for field in fields if field not in bios_view.ALWAYS_LISTED)


def _shown(setting):
    """``setting`` as it may be shown: the value of a password (a setting
    named like a secret, ``AdminPassword``, or one the BMC's registry says
    is a password) is masked (the object is never saved)."""
    if setting.value is not None and (
            masking.is_secret(setting.name)
            or setting.attribute_type == bios_registry.PASSWORD_TYPE):
        setting.value = masking.MASK
    return setting


@blueprint.get('')
def list_settings(ident):
    fields = _listed_fields(flask.request.args, flask.g.version)
    node = _node(ident)
    settings = [_shown(setting) for setting in
                objects.BIOSSetting.list_by_node(flask.g.context, node.id)]
    return responses.json_response({'bios': _VIEW.bodies(
        settings, flask.g.version, fields=fields,
        parent=bios_view.parent(node.uuid))})


@blueprint.get('/<setting_name>')
def show_setting(ident, setting_name):
    query.check_known(flask.request.args, ())
    node = _node(ident)
    try:
        setting = objects.BIOSSetting.get(flask.g.context, node.id,
                                          setting_name)
    except exception.BIOSSettingNotFound:
        # Named by UUID, as the node is everywhere else in the API.
        raise exception.BIOSSettingNotFound(
            node=node.uuid, name=setting_name) from None
    return responses.json_response({setting_name: _VIEW.body(
        _shown(setting), flask.g.version, parent=bios_view.parent(node.uuid))})
