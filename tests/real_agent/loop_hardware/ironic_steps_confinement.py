"""The proof that ironic-python-agent runs confined, before it writes.

Run by the sandbox before the agent starts (``python -m
ironic_steps_confinement``: one JSON line, exit 0 only when confined), and
again by the loop hardware manager when IPA loads it.  Needs nothing of
IPA's.  The environment it checks is described in
:mod:`ironic_steps_loop_hardware`.
"""

import json
import os
import shutil
import stat
import sys

#: Commands that must never reach the real machine from the agent.
REFUSED_COMMANDS = ('reboot', 'poweroff', 'halt', 'shutdown', 'hwclock',
                    'efibootmgr', 'grub-install', 'grub2-install')
#: Character devices a private /dev may hold besides the test's disks.
_ALLOWED_CHAR_DEVICES = frozenset(['null', 'zero', 'full', 'random',
                                   'urandom', 'tty'])


def environment():
    sandbox = os.environ.get('IRONIC_STEPS_AGENT_SANDBOX')
    disks = {}
    for entry in filter(None, os.environ.get(
            'IRONIC_STEPS_AGENT_DISKS', '').split(',')):
        name, _sep, serial = entry.partition('=')
        disks[name] = serial
    return (sandbox, disks, os.environ.get('IRONIC_STEPS_AGENT_MAC'),
            os.environ.get('IRONIC_STEPS_AGENT_STANDINS'))


def sys_name(device):
    return os.path.basename(device)


def _backing_file(device):
    path = '/sys/block/%s/loop/backing_file' % sys_name(device)
    try:
        with open(path) as backing:
            return backing.read().strip()
    except OSError:
        return None


def partitions(device):
    """The sysfs names of the partitions of ``device`` (loop0p1, ...)."""
    name = sys_name(device)
    try:
        entries = os.listdir('/sys/block/%s' % name)
    except OSError:
        return []
    return sorted(entry for entry in entries
                  if entry.startswith(name + 'p') and entry[len(name) + 1:]
                  .isdigit())


def _block_nodes_in_dev():
    found = []
    for root, _dirs, files in os.walk('/dev'):
        for filename in files:
            path = os.path.join(root, filename)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISBLK(mode):
                found.append(path)
    return found


def confinement_problems():
    """What is wrong with the sandbox this process runs in; [] if none."""
    sandbox, disks, mac, standins = environment()
    problems = []
    if not sandbox or not os.path.isdir(sandbox):
        problems.append('IRONIC_STEPS_AGENT_SANDBOX names no directory')
    if not disks:
        problems.append('IRONIC_STEPS_AGENT_DISKS names no disk')
    if not mac:
        problems.append('IRONIC_STEPS_AGENT_MAC is not set')
    allowed = set(disks)
    for disk in disks:
        allowed.update('/dev/' + part for part in partitions(disk))
        backing = _backing_file(disk)
        if (backing is None or sandbox is None or not os.path.realpath(
                backing).startswith(os.path.realpath(sandbox) + os.sep)):
            problems.append('%s is not backed by a file of the sandbox (%s)'
                            % (disk, backing))
    for node in _block_nodes_in_dev():
        if node not in allowed:
            problems.append('/dev holds a block device not the test\'s: %s'
                            % node)
    for entry in os.listdir('/dev'):
        path = os.path.join('/dev', entry)
        if (stat.S_ISCHR(os.lstat(path).st_mode)
                and entry not in _ALLOWED_CHAR_DEVICES):
            problems.append('/dev holds a character device not allowed: %s'
                            % path)
    # A kernel without SysRq has no trigger to cover.
    if (os.path.exists('/proc/sysrq-trigger')
            and os.stat('/proc/sysrq-trigger').st_rdev
            != os.stat('/dev/null').st_rdev):
        problems.append('/proc/sysrq-trigger is not covered')
    for command in REFUSED_COMMANDS:
        found = shutil.which(command)
        if (not standins or found is None
                or os.path.dirname(os.path.realpath(found))
                != os.path.realpath(standins)):
            problems.append('%s resolves to %s, not to a refusing stand-in'
                            % (command, found))
    try:
        with open('/proc/1/environ', 'rb') as environ:
            init_env = environ.read().split(b'\0')
    except OSError as exc:
        init_env = []
        problems.append('cannot read /proc/1/environ: %s' % exc)
    if ('IRONIC_STEPS_AGENT_SANDBOX=%s' % sandbox).encode() not in init_env:
        problems.append('PID 1 is not the sandbox\'s: not in a PID '
                        'namespace of the test')
    return problems


if __name__ == '__main__':
    found = confinement_problems()
    print(json.dumps({'confined': not found, 'problems': found}))
    sys.exit(1 if found else 0)
