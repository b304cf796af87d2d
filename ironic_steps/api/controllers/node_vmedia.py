"""/v1/nodes/{node}/vmedia: a node's virtual media, as in Ironic.

* ``POST`` (1.89) attaches an image as a device of the node's BMC:
  ``{"device_type": "cdrom", "image_url": "http://...",
  "image_download_source": "http"}`` (204); ``device_type`` is one of
  :data:`common.virtual_media.DEVICE_TYPES`, the URL's scheme one of
  :data:`~common.virtual_media.URL_SCHEMES`, ``image_download_source``
  (optional) ``http`` or ``local`` (``swift`` is refused: there is no
  object store here);
* ``DELETE`` (1.89) detaches what the devices hold, every device or those
  of ``?device_types=cdrom,floppy`` (204); the types may come in a JSON
  body instead, ``{"device_types": "cdrom,floppy"}`` (or a list), as
  openstacksdk sends them;
* ``GET`` (1.93) lists the node's devices: ``[{"media_types": [...],
  "inserted": bool, "image": url or null}]``.

Below 1.89 the path does not exist (404), and ``GET`` not below 1.93; nor
while the services are pinned to a release before 0.12, whose conductors
know no virtual media.  The node's conductor does the work through the
node's management interface (see :mod:`conductor.vmedia_endpoints`).
Policies as Ironic's: ``baremetal:node:vmedia:attach``, ``:detach``,
``:get``.
"""

from urllib import parse

import flask

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import query
from ironic_steps.api import responses
from ironic_steps.api import tenancy
from ironic_steps.api import versions
from ironic_steps.common import exception
from ironic_steps.common import masking
from ironic_steps.common import virtual_media

blueprint = node_ident.blueprint('node_vmedia', 'vmedia',
                                 versions.MINOR_89_ATTACH_DETACH_VMEDIA)

#: The release that brought these endpoints.
RELEASE = '0.12'
_ATTACH_FIELDS = ('device_type', 'image_url', 'image_download_source')
#: Download sources this service can honour (see the module docstring).
_DOWNLOAD_SOURCES = tuple(source for source in virtual_media.DOWNLOAD_SOURCES
                          if source != 'swift')


@blueprint.before_request
def _check_release():
    versions.hide_while_pinned_before(RELEASE)


def _node_uuid(ident, rule):
    tenancy.authorize_ident(rule, flask.g.context, ident, flask.g.version)
    return node_ident.get_uuid(flask.g.context, ident, flask.g.version)


def _choice(values, field, choices, default=None):
    value = values.get(field, default)
    if value not in choices:
        raise errors.InvalidField(field=field, reason='%r is not one of %s'
                                  % (value, ', '.join(choices)))
    return value


def _attachment(values):
    """(device type, image URL, download source) of an attach body.

    :raises InvalidBody: for a body that is not an object or has fields
        Ironic's has not.
    :raises InvalidField: naming the bad or missing field.
    """
    if not isinstance(values, dict):
        raise errors.InvalidBody(reason='expected a JSON object with '
                                 'device_type and image_url')
    unknown = sorted(set(values) - set(_ATTACH_FIELDS))
    if unknown:
        raise errors.InvalidBody(reason='unknown field(s) %s; an attachment '
                                 'has %s' % (', '.join(unknown),
                                             ', '.join(_ATTACH_FIELDS)))
    device_type = _choice(values, 'device_type', virtual_media.DEVICE_TYPES)
    image_url = values.get('image_url')
    if not isinstance(image_url, str):
        raise errors.InvalidField(field='image_url',
                                  reason='a URL (string) is required')
    scheme = parse.urlparse(image_url).scheme
    if scheme not in virtual_media.URL_SCHEMES:
        raise errors.InvalidField(
            field='image_url', reason='unsupported or missing URL scheme %r;'
            ' use one of %s' % (scheme, ', '.join(virtual_media.URL_SCHEMES)))
    source = _choice(values, 'image_download_source', _DOWNLOAD_SOURCES,
                     default=virtual_media.DEFAULT_DOWNLOAD_SOURCE)
    return device_type, image_url, source


def _device_types(args, values):
    """The device types to detach, from ``?device_types=a,b`` or a body's
    ``device_types`` (a comma-separated string or a list), checked; None
    when neither names any.

    :raises InvalidParameterValue: for unknown types, or types in both.
    """
    value = args.get('device_types')
    if values is not None:
        if not isinstance(values, dict) or set(values) - {'device_types'}:
            raise errors.InvalidBody(reason='a detach body may only have '
                                     'device_types')
        if value is not None:
            raise exception.InvalidParameterValue(
                err='Give device_types in the query or in the body, not in '
                    'both')
        value = values.get('device_types')
        if isinstance(value, list) and all(isinstance(t, str)
                                           for t in value):
            value = ','.join(value)
    if value is None:
        return None
    if not isinstance(value, str):
        raise errors.InvalidField(field='device_types', reason='expected '
                                  'a comma-separated string or a list')
    types = [t.strip() for t in value.split(',') if t.strip()]
    invalid = [t for t in types if t not in virtual_media.DEVICE_TYPES]
    if invalid or not types:
        raise exception.InvalidParameterValue(
            err='Invalid device type(s) %s (valid are %s)' % (
                ', '.join(invalid) or repr(value),
                ', '.join(virtual_media.DEVICE_TYPES)))
    return types


@blueprint.post('')
def attach(ident):
    query.check_known(flask.request.args, ())
    device_type, image_url, source = _attachment(body.json_body())
    node_uuid = _node_uuid(ident, 'baremetal:node:vmedia:attach')
    flask.g.rpcapi.attach_virtual_media(
        flask.g.context, node_uuid, device_type=device_type,
        image_url=image_url, image_download_source=source)
    return responses.empty(204)


@blueprint.delete('')
def detach(ident):
    query.check_known(flask.request.args, ('device_types',))
    device_types = _device_types(flask.request.args,
                                 body.json_body(default=None))
    node_uuid = _node_uuid(ident, 'baremetal:node:vmedia:detach')
    flask.g.rpcapi.detach_virtual_media(flask.g.context, node_uuid,
                                        device_types=device_types)
    return responses.empty(204)


@blueprint.get('')
def show(ident):
    versions.check_endpoint(flask.g.version,
                            versions.at(versions.MINOR_93_GET_VMEDIA),
                            flask.request.path)
    query.check_known(flask.request.args, ())
    node_uuid = _node_uuid(ident, 'baremetal:node:vmedia:get')
    # An image URL may carry credentials or a signature: shown masked, as
    # a node's URLs are (the image itself is write-only).
    return responses.json_response(masking.mask(
        flask.g.rpcapi.get_virtual_media(flask.g.context, node_uuid)))
