"""Config drives: what a ``configdrive`` may be, and the image an agent gets.

This module owns the ``configdrive`` value of Ironic's provision API
(``PUT /v1/nodes/{node}/states/provision``, target ``active`` or
``rebuild``), in its three accepted shapes:

1. **A dict** (Ironic API 1.56; ``vendor_data`` from 1.59) with only the
   keys ``meta_data`` (object), ``user_data`` (string, or an object or
   array written as JSON; null means none), ``network_data`` (object) and
   ``vendor_data`` (object).  The conductor builds the image from it.
2. **An image**: a string holding a gzipped ISO 9660 image, base64
   encoded (line breaks allowed, as ``base64`` wraps its output).  It is
   handed to the agent as it is.
3. **A URL**: an ``http://`` or ``https://`` string the agent downloads
   the image from.  It is handed to the agent as it is.

The interface, in the order a deploy uses it::

    check(value, max_bytes)                 # the API, before accepting it
    build(value, node_uuid, node_name=None) # the conductor, when it hands
                                            # the drive to the agent -> str
    is_url(value)                           # whether a string is shape 3

:func:`check` raises ``InvalidParameterValue`` (400) for anything else.
Pass it ``CONF.deploy.configdrive_max_bytes``: the largest image,
decompressed, that it accepts (the agent writes the image to a partition
of at most 64 MiB).  An image's size is read by decompressing it (no
further than the limit); a dict's is counted without building its image
(:func:`image_size`), with room for the ``uuid`` and ``name`` that
:func:`build` adds; a URL's cannot be known before the agent fetches it.

:func:`build` returns a string either way: a dict becomes an image
(shape 2); a string is returned unchanged.  It never changes its
argument, and refuses a malformed dict as :func:`check` does, but does
not check sizes: call :func:`check` first.

**Secrets.**  Config drives carry SSH keys and passwords.  No message
here ever holds any part of the value: messages name keys, JSON types and
which check failed.  A URL's scheme is named only if it is one the
standard library knows (``file``, ``ftp``, ...).

What this module does not do:

- decide whether a config drive was given: Ironic reads ``None``, ``''``
  and ``{}`` as "no config drive", so callers test ``if configdrive:``
  before calling :func:`check` or :func:`build` (which would refuse
  ``None`` and ``''``, and build a drive of defaults from ``{}``);
- gate API versions (the API layer does: strings always, dicts from
  1.56, ``vendor_data`` from 1.59), store the drive on the node, or fetch
  a URL (the agent does);
- check that a decompressed image is ISO 9660: Ironic does not either,
  and cloud-init also reads a VFAT drive labelled ``config-2``.

**The image**, as Ironic builds it (through openstacksdk): volume label
``config-2``, ISO 9660 with Rock Ridge (Linux, cloud-init) and Joliet
(Windows, cloudbase-init) names, holding ``meta_data.json`` always,
``user_data``, ``network_data.json`` and ``vendor_data2.json`` when their
keys are given and not empty, under both ``openstack/2012-08-10/`` and
``openstack/latest/``.  Unlike Ironic, each file's data is stored once and
linked from both directories, so the second directory costs no space.
``meta_data`` gets ``uuid`` (the node's) and ``name`` (the node's, if it
has one) when it does not set them.  Images are made with pycdlib, a
pure-Python library, rather than by running genisoimage as openstacksdk
does: no host binary to install, no temporary directory of secrets.
"""

import base64
import binascii
import gzip
import io
import json
import math
from urllib import parse
import zlib

import pycdlib

from ironic_steps.common import exception

LABEL = 'config-2'
URL_SCHEMES = ('http', 'https')
#: The file each dict key becomes, in the order they are written.
FILES = {
    'meta_data': 'meta_data.json',
    'user_data': 'user_data',
    'network_data': 'network_data.json',
    'vendor_data': 'vendor_data2.json',
}
#: Metadata versions that get a directory under ``openstack/``, as Ironic.
VERSIONS = ('2012-08-10', 'latest')

_SECTOR = 2048
# Measured with pycdlib 1.22: an image of the layout above with no file
# data is 37 sectors (the 16-sector system area, the volume descriptors,
# path tables and directories of the three names spaces); each file adds
# its data rounded up to whole sectors.  tests/unit/common/
# test_configdrive.py checks the count against real images.
_IMAGE_OVERHEAD = 37 * _SECTOR
# Room kept in meta_data.json for the ``uuid`` and ``name`` that build()
# may add: ', "uuid": "<36>", "name": "<255>"' is 316 bytes, node names
# being at most 255 ASCII characters.
_DEFAULTS_RESERVE = 512
_DECOMPRESS_CHUNK = 1024 * 1024
_JSON_TYPES = {dict: 'an object', list: 'an array', str: 'a string',
               int: 'a number', float: 'a number', bool: 'a boolean',
               type(None): 'null'}
_SHAPES = ('a configdrive is an object with keys %s, a base64-encoded '
           'gzipped ISO 9660 image or an http:// or https:// URL'
           % ', '.join(FILES))


def check(value: object, max_bytes: int) -> None:
    """Refuse ``value`` unless it is a config drive whose image is at most
    ``max_bytes`` (see the module docstring for how sizes are known).

    :raises InvalidParameterValue: naming the problem, never the content.
    """
    if isinstance(value, dict):
        sizes = {name: len(data) for name, data in _files(value).items()}
        sizes[FILES['meta_data']] += _DEFAULTS_RESERVE
        size = image_size(sizes.values())
        if size > max_bytes:
            raise _invalid('image built from the configdrive object '
                           'would be up to %d bytes, more than %s', size,
                           _limit(max_bytes))
    elif isinstance(value, str):
        _check_string(value, max_bytes)
    else:
        raise _invalid('configdrive is %s; %s', _json_type(value),
                       _SHAPES)


def build(value: dict | str, node_uuid: str,
          node_name: str | None = None) -> str:
    """The config drive to hand the node's agent: a dict made into a
    base64-encoded gzipped image, a string unchanged.

    :raises InvalidParameterValue: for a malformed dict, or a value that
        is neither a dict nor a string.
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        raise _invalid('configdrive is %s; %s', _json_type(value),
                       _SHAPES)
    defaults = {'uuid': node_uuid}
    if node_name:
        defaults['name'] = node_name
    image = _image(_files(value, defaults))
    return base64.b64encode(gzip.compress(image, mtime=0)).decode('ascii')


def is_url(value: object) -> bool:
    """Whether ``value`` is an http:// or https:// URL with a host."""
    return isinstance(value, str) and _url_problem(value) is None


def image_size(file_sizes) -> int:
    """Bytes of the image :func:`build` makes of files of these sizes."""
    sectors = sum(math.ceil(size / _SECTOR) for size in file_sizes)
    return _IMAGE_OVERHEAD + sectors * _SECTOR


def _files(drive, defaults=None):
    """The image's file names and contents for the dict ``drive``, with
    ``defaults`` filling what its meta_data does not set."""
    unknown = sorted(str(key) for key in drive if key not in FILES)
    if unknown:
        raise _invalid('configdrive object has unknown keys %s; it '
                       'may have %s', ', '.join(map(_key, unknown)),
                       ', '.join(FILES))
    meta_data = _get_object(drive, 'meta_data')
    files = {FILES['meta_data']: _json({**(defaults or {}), **meta_data},
                                       'meta_data')}
    user_data = _user_data(drive.get('user_data'))
    if user_data:
        files[FILES['user_data']] = user_data
    for key in ('network_data', 'vendor_data'):
        content = _get_object(drive, key)
        if content:
            files[FILES[key]] = _json(content, key)
    return files


def _get_object(drive, key):
    content = drive.get(key, {})
    if not isinstance(content, dict):
        raise _invalid("configdrive's %s is %s; it must be an object",
                       key, _json_type(content))
    return content


def _user_data(user_data):
    if user_data is None:
        return None
    if isinstance(user_data, (dict, list)):
        return _json(user_data, 'user_data')
    if not isinstance(user_data, str):
        raise _invalid("configdrive's user_data is %s; it must be a "
                       'string, an object or an array',
                       _json_type(user_data))
    try:
        return user_data.encode('utf-8')
    except UnicodeEncodeError:
        raise _invalid("configdrive's user_data is not valid UTF-8 "
                       'text') from None


def _json(content, key):
    try:
        return json.dumps(content).encode('utf-8')
    except (TypeError, ValueError):
        raise _invalid("configdrive's %s holds a value JSON cannot "
                       'represent', key) from None


def _image(files):
    """An ISO 9660 image of ``files`` laid out as the module says."""
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=3, joliet=3, rock_ridge='1.09',
            vol_ident=LABEL, app_ident_str='ironic-steps')
    iso.add_directory('/OPENSTACK', rr_name='openstack',
                      joliet_path='/openstack')
    for version in VERSIONS:
        iso.add_directory(_iso_path(version), rr_name=version,
                          joliet_path='/openstack/' + version)
    first, *others = VERSIONS
    for name, data in files.items():
        target = _iso_path(first, name)
        iso.add_fp(io.BytesIO(data), len(data), target, rr_name=name,
                   joliet_path='/openstack/%s/%s' % (first, name))
        for version in others:
            iso.add_hard_link(iso_old_path=target,
                              iso_new_path=_iso_path(version, name),
                              rr_name=name)
            iso.add_hard_link(iso_old_path=target,
                              joliet_new_path='/openstack/%s/%s'
                              % (version, name))
    out = io.BytesIO()
    iso.write_fp(out)
    iso.close()
    return out.getvalue()


def _iso_path(version, name=None):
    """The strict ISO 9660 name of openstack/version[/name] (capitals,
    digits and underscores); readers use the Rock Ridge or Joliet one."""
    path = '/OPENSTACK/' + version.upper().replace('-', '_')
    if name is not None:
        path += '/%s;1' % name.upper()
    return path


def _check_string(value, max_bytes):
    if not value:
        raise _invalid('configdrive is an empty string; %s', _SHAPES)
    # Base64 never holds ':', so a string with one is meant as a URL.
    if ':' in value:
        problem = _url_problem(value)
        if problem:
            raise _invalid('%s', problem)
    elif _decompresses_beyond(value, max_bytes):
        raise _invalid('configdrive image decompresses to more than '
                       '%s', _limit(max_bytes))


def _url_problem(value):
    """Why the string ``value`` is not a URL the agent downloads, or
    None if it is one."""
    try:
        parts = parse.urlsplit(value)
        host = parts.hostname
    except ValueError:
        return 'configdrive URL cannot be parsed'
    if parts.scheme not in URL_SCHEMES:
        # Only a scheme the standard library knows is safe to name: any
        # other could be the start of a secret.
        known = parts.scheme in parse.uses_netloc and parts.scheme
        return ('configdrive URL has %s scheme; the agent downloads '
                'only http:// and https:// URLs'
                % ("the '%s'" % known if known else 'an unsupported'))
    if not host:
        return 'configdrive URL has no host'
    return None


def _decompresses_beyond(value, max_bytes):
    """Whether the base64 gzip ``value`` holds more than ``max_bytes``;
    reads no further than the first chunk past them."""
    # Errors are raised "from None": the decoders' messages quote bytes
    # of the value (gzip its first two), which may be a secret's.
    try:
        data = base64.b64decode(''.join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        raise _invalid('configdrive string is neither an http:// or '
                       'https:// URL nor base64 text') from None
    size = 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as image:
            while size <= max_bytes:
                chunk = image.read(_DECOMPRESS_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
    except (OSError, EOFError, zlib.error):
        raise _invalid('configdrive string is base64 but not complete '
                       'gzip data; an image must be gzipped, then '
                       'base64-encoded') from None
    if size == 0:
        raise _invalid('configdrive image is empty')
    return size > max_bytes


def _limit(max_bytes):
    return 'the %d allowed by [deploy] configdrive_max_bytes' % max_bytes


def _key(key):
    return repr(key if len(key) <= 32 else key[:32] + '...')


def _json_type(value):
    return _JSON_TYPES.get(type(value), 'a %s' % type(value).__name__)


def _invalid(template, *args):
    return exception.InvalidParameterValue(
        err='The %s.' % (template % args))
