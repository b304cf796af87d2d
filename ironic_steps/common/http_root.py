"""Files the service publishes for machines to fetch over HTTP.

``[deploy] http_root`` is a directory a web server (not this service)
serves to the machines being booted, as Ironic's ``http_root``.  This
module owns writing there: a file is written whole or not at all (a
temporary file renamed into place, so the web server never serves half a
script), a link is swapped in the same way, and removing what is not
there is not an error (a clean-up may run twice).  Paths are relative to
the root and may not leave it.

What is written, and why, is its callers' business (the ``ipxe`` boot
interface's scripts, :mod:`ironic_steps.drivers.modules.ipxe`; the
agents' config images, :mod:`ironic_steps.drivers.modules.agent_config_media`).
"""

import os
import shutil
import tempfile

from ironic_steps.common import exception
from ironic_steps.conf import CONF


def path(relative: str) -> str:
    """The absolute path of ``relative`` under the root.

    :raises InvalidParameterValue: for a path that leaves the root.
    """
    root = os.path.abspath(CONF.deploy.http_root)
    full = os.path.abspath(os.path.join(root, relative))
    if os.path.commonpath([root, full]) != root or full == root:
        raise exception.InvalidParameterValue(
            err='%r is not a path under [deploy] http_root' % relative)
    return full


def _in_place(full, make):
    """Make ``full`` by ``make(temporary path)`` then a rename; its
    directory is created if need be.

    :raises InvalidParameterValue: naming the path and the cause, when the
        root cannot be written.
    """
    directory = os.path.dirname(full)
    try:
        os.makedirs(directory, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix='.tmp-')
        os.close(handle)
        try:
            make(temporary)
            os.replace(temporary, full)
        except BaseException:
            if os.path.lexists(temporary):
                os.unlink(temporary)
            raise
    except OSError as exc:
        raise exception.InvalidParameterValue(
            err='cannot write %s under [deploy] http_root: %s'
                % (full, exc.strerror or exc)) from exc


def publish(relative: str, content, mode: int = 0o644) -> str:
    """Write ``content`` (text or bytes) to ``relative``, with ``mode``
    (readable by the web server by default; a file holding a secret
    passes its own); its absolute path."""
    full = path(relative)
    data = content.encode('utf-8') if isinstance(content, str) else content

    def write(temporary):
        # mkstemp made it 0600: never readable by others before chmod.
        with open(temporary, 'wb') as handle:
            handle.write(data)
        os.chmod(temporary, mode)

    _in_place(full, write)
    return full


def link(relative: str, target: str) -> str:
    """Make ``relative`` a symbolic link to ``target`` (relative to the
    link's directory, so the root may move); its absolute path."""
    full = path(relative)

    def make_link(temporary):
        os.unlink(temporary)
        os.symlink(target, temporary)

    _in_place(full, make_link)
    return full


def remove(relative: str) -> None:
    """Remove the file, link or directory tree at ``relative``."""
    full = path(relative)
    if os.path.isdir(full) and not os.path.islink(full):
        shutil.rmtree(full)
    elif os.path.lexists(full):
        os.unlink(full)


def links_to(directory: str, target: str) -> list:
    """The names of the links in ``directory`` (relative) that point at
    ``target`` (as :func:`link` wrote it)."""
    full = path(directory)
    if not os.path.isdir(full):
        return []
    return sorted(name for name in os.listdir(full)
                  if os.path.islink(os.path.join(full, name))
                  and os.readlink(os.path.join(full, name)) == target)
