"""Whole-disk images for the real agent to write, and reading them back.

:func:`build_whole_disk_image` makes a small qcow2 image the way a real
one is laid out: a GPT with one Linux partition holding an ext4 file
system with a marker file (made with ``mkfs.ext4 -d``, so nothing is
mounted).  :class:`ImageServer` serves files over HTTP on 127.0.0.1, as
an image store would.  :func:`partitions`, :func:`read_file_from_ext4`
and :func:`read_config_drive` read back what the agent wrote to a loop
disk's backing file.
"""

import functools
import hashlib
import http.server
import io
import json
import os
import subprocess
import threading
import time

import fixtures
import pycdlib

MARKER = 'ironic-steps-marker.txt'
_SECTOR = 512


def _run(*command):
    return subprocess.run(command, check=True, capture_output=True,
                          text=True).stdout


def build_whole_disk_image(directory, marker_text, size_mib=64,
                           disk_format='qcow2'):
    """A whole-disk image whose partition 1 holds :data:`MARKER`.

    :returns: (path, sha256 hex digest of the file).
    """
    tree = os.path.join(directory, 'tree')
    os.makedirs(tree, exist_ok=True)
    with open(os.path.join(tree, MARKER), 'w') as marker:
        marker.write(marker_text)
    raw = os.path.join(directory, 'disk.raw')
    with open(raw, 'wb') as disk:
        disk.truncate(size_mib * 1024 * 1024)
    _run('sgdisk', '--clear', '--new=1:2048:0', '--typecode=1:8300',
         '--change-name=1:root', raw)
    start, sectors = partitions(raw)[0]
    filesystem = os.path.join(directory, 'root.ext4')
    with open(filesystem, 'wb') as part:
        part.truncate(sectors * _SECTOR)
    _run('mkfs.ext4', '-q', '-F', '-L', 'root', '-d', tree, filesystem)
    with open(filesystem, 'rb') as part, open(raw, 'r+b') as disk:
        disk.seek(start * _SECTOR)
        disk.write(part.read())
    if disk_format == 'raw':
        path = raw
    else:
        path = os.path.join(directory, 'disk.%s' % disk_format)
        _run('qemu-img', 'convert', '-f', 'raw', '-O', disk_format, raw,
             path)
    digest = hashlib.sha256()
    with open(path, 'rb') as image:
        for chunk in iter(lambda: image.read(1 << 20), b''):
            digest.update(chunk)
    return path, digest.hexdigest()


def partitions(path):
    """[(start sector, sectors)] of the partitions of a disk image; []
    for a disk with no partition table."""
    found = subprocess.run(['partx', '--show', '--bytes', '--noheadings',
                            '--output', 'START,SECTORS', path],
                           capture_output=True, text=True)
    return [tuple(int(field) for field in line.split())
            for line in found.stdout.splitlines() if line.strip()]


def _partition_bytes(path, start, sectors):
    with open(path, 'rb') as disk:
        disk.seek(start * _SECTOR)
        return disk.read(sectors * _SECTOR)


def read_file_from_ext4(path, directory, name=MARKER):
    """The file ``name`` of the first ext4 partition of disk ``path``, or
    None (debugfs reads it without mounting)."""
    for index, (start, sectors) in enumerate(partitions(path)):
        part = os.path.join(directory, 'part%d' % index)
        with open(part, 'wb') as out:
            out.write(_partition_bytes(path, start, sectors))
        found = subprocess.run(['debugfs', '-R', 'cat /%s' % name, part],
                               capture_output=True, text=True)
        if found.returncode == 0 and found.stdout:
            return found.stdout
    return None


def read_config_drive(path):
    """The ``openstack/latest`` files of the ``config-2`` ISO on one of
    the partitions of disk ``path``: {name: text}; None if there is
    none."""
    for start, sectors in partitions(path):
        data = _partition_bytes(path, start, sectors)
        if data[0x8001:0x8006] != b'CD001':
            continue
        iso = pycdlib.PyCdlib()
        iso.open_fp(io.BytesIO(data))
        try:
            if iso.pvd.volume_identifier.decode().strip() != 'config-2':
                continue
            found = {}
            for name in ('meta_data.json', 'user_data', 'network_data.json'):
                out = io.BytesIO()
                try:
                    iso.get_file_from_iso_fp(
                        out, rr_path='/openstack/latest/%s' % name)
                except pycdlib.pycdlibexception.PyCdlibInvalidInput:
                    continue
                found[name] = out.getvalue().decode()
            return found
        finally:
            iso.close()
    return None


def meta_data(path):
    drive = read_config_drive(path)
    return json.loads(drive['meta_data.json']) if drive else None


class ImageServer(fixtures.Fixture):
    """Serves one directory over HTTP on 127.0.0.1, in a thread.

    :param seconds_per_mib: how slowly to send (0: at once), so a test
        can catch the agent in the middle of a download.
    """

    def __init__(self, directory, seconds_per_mib=0):
        super().__init__()
        self.directory = directory
        self.seconds_per_mib = seconds_per_mib

    def _setUp(self):
        if self.seconds_per_mib:
            handler = functools.partial(_SlowHandler, directory=self.directory,
                                        pause=self.seconds_per_mib)
        else:
            handler = functools.partial(_QuietHandler,
                                        directory=self.directory)
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      handler)
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def url(self, name):
        return 'http://127.0.0.1:%d/%s' % (self.server.server_port, name)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):

    def log_message(self, format, *args):
        pass


class _SlowHandler(_QuietHandler):

    def __init__(self, *args, pause, **kwargs):
        self.pause = pause
        super().__init__(*args, **kwargs)

    def copyfile(self, source, outputfile):
        for chunk in iter(lambda: source.read(1 << 20), b''):
            outputfile.write(chunk)
            time.sleep(self.pause)
