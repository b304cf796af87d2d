"""The machines of tools/demo's agent lab (``tools/demo --agent``).

Owns the hardware side of the lab: a small whole-disk image with a
marker file, served on 127.0.0.1 as an image store would; for each node a
loop disk and a :class:`tests.real_agent.machine.Machine`, which boots
the real ironic-python-agent, confined to that disk
(``tests/real_agent/sandbox.py``), whenever the node boots from the
network; and reading back what the agent wrote.  It never drives the
service: tools/demo.py does that with the ``openstack`` CLI.

The agent runs as root and could destroy the host: it is only ever
started through the sandbox, by a :class:`Machine`.  :class:`AgentLab` is
a fixture and tools/demo.py calls its ``cleanUp`` in a ``finally``: the
agents, the image server and the loop devices never outlive the demo.
"""

import base64
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile

import fixtures

from tests.real_agent import images
from tests.real_agent import machine
from tests.real_agent import sandbox

#: How the lab lists a disk's partitions (what it prints, and runs).
PARTX = ('partx', '--show', '--output', 'NR,START,END,SIZE,NAME')
#: What the image's ext4 file system holds in ``images.MARKER``.
MARKER_TEXT = 'Written by the real ironic-python-agent for the ironic-steps demo.'


def why_unavailable():
    """Why the agent lab cannot run here, or None."""
    return sandbox.why_unavailable()


def throwaway_ssh_key():
    """An OpenSSH ed25519 public key line nobody holds the private key of:
    32 random bytes in the key's wire format, for the config drive."""
    blob = b''.join(len(part).to_bytes(4, 'big') + part
                    for part in (b'ssh-ed25519', secrets.token_bytes(32)))
    return 'ssh-ed25519 %s demo@ironic-steps' % base64.b64encode(
        blob).decode()


class AgentLab(fixtures.Fixture):
    """The image server, a throwaway SSH key for the config drives
    (:attr:`ssh_key`) and one machine (a loop disk, an agent when it boots
    from the network) per node.

    :param endpoint: the service's API, which the agents look up and
        heartbeat to.
    :param log_dir: where each machine's agent logs are saved when the
        lab is cleaned up (they are in the sandboxes' directories until
        then, which go with the disks).
    """

    def __init__(self, endpoint, log_dir):
        super().__init__()
        self.endpoint = endpoint
        self.log_dir = log_dir
        self._loop_disks = {}    # node name -> its sandbox.LoopDisks

    def _setUp(self):
        self.work = self.useFixture(fixtures.TempDir()).path
        served = os.path.join(self.work, 'images')
        os.mkdir(served)
        path, self.checksum = images.build_whole_disk_image(
            served, MARKER_TEXT + '\n', size_mib=32)
        self.image_name = os.path.basename(path)
        self.server = self.useFixture(images.ImageServer(served))
        self.ssh_key = throwaway_ssh_key()
        shutil.rmtree(self.log_dir, ignore_errors=True)

    @property
    def image_url(self):
        return self.server.url(self.image_name)

    def add_disk(self, name):
        """A new loop disk for node ``name``: :returns: its Disk."""
        self._loop_disks[name] = self.useFixture(sandbox.LoopDisks())
        return self._loop_disks[name].disks[0]

    def disk(self, name):
        """Node ``name``'s Disk (from :meth:`add_disk`)."""
        return self._loop_disks[name].disks[0]

    def add_machine(self, name, node_uuid, mac):
        """The machine behind node ``name`` (with its disk from
        :meth:`add_disk`), watching the node from now on."""
        found = self.useFixture(machine.Machine(
            self.endpoint, node_uuid, mac, self._loop_disks[name]))
        # Cleanups run last first: the logs are saved before the agents
        # (and their directories) go.
        self.addCleanup(self._save_logs, name, found)

    def _save_logs(self, name, found):
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, '%s.log' % name), 'w') as log:
            log.write(found.logs())

    def config_drive(self, name):
        """The config drive to deploy node ``name`` with: its host name
        and the lab's throwaway SSH key."""
        return {'meta_data': {'hostname': '%s.demo.test' % name,
                              'public_keys': {'0': self.ssh_key}}}

    def show_written(self, name):
        """Print what the agent wrote to node ``name``'s disk: its
        partitions, the image's marker, the config drive's host name and
        SSH key (each compared with what was given)."""
        disk = self.disk(name)
        print('\nWhat the agent wrote to %s\'s disk (%s, serial %s):' % (
            name, disk.device, disk.serial))
        partx = PARTX + (disk.path,)
        print('$ ' + shlex.join(partx))
        print(subprocess.run(partx, capture_output=True,
                             text=True).stdout.rstrip()
              or '(no partition table)')
        scratch = tempfile.mkdtemp(dir=self.work)
        try:
            marker = images.read_file_from_ext4(disk.path, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        print('  %s in the ext4 partition: %s' % (
            images.MARKER, (marker or 'NOT FOUND').strip()))
        found = images.meta_data(disk.path) or {}
        given = self.config_drive(name)['meta_data']
        key = (found.get('public_keys') or {}).get('0')
        print('  config drive, host name: %s (%s)' % (
            found.get('hostname'), _compared(found.get('hostname'),
                                             given['hostname'])))
        print('  config drive, SSH key: %s (%s)' % (
            key, _compared(key, self.ssh_key)))

    def stop(self):
        """Stop the agents and the image server and detach the loop
        disks (``cleanUp``): a second Ctrl-C or a SIGTERM must not leave
        one behind, so both wait until it is done."""
        held = {signum: signal.signal(signum, signal.SIG_IGN)
                for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.cleanUp()
        finally:
            for signum, handler in held.items():
                signal.signal(signum, handler)
        print('Agents and image server stopped, loop disks detached (the '
              'agents\' logs: %s).' % self.log_dir)


def _compared(found, given):
    return 'as given' if found == given else 'NOT as given'
