"""Runs the `openstack` console script in children forked from one process
that has imported it once.

A run of the real `openstack` command spends about two seconds of CPU
importing the client and every plugin's command modules before it does
anything; the functional tests run it hundreds of times. Here the imports
are done once, and each command runs in a fresh child forked from this
process: the child calls the console script's own entry point
(``openstackclient.shell.main``) with the command's argv and environment,
its stdout and stderr going to files, so what runs is the real client, as
an operator's shell would run it, minus the repeated imports.

One thing differs, the pause between two polls of a ``--wait``:
ironicclient sleeps 2 s (manage, provide, ...) or 10 s (deploy, clean,
service, ...) between them, made for real servers, which take minutes.
The fake hardware of the tests is done within a second, so each ``deploy
--wait`` slept 10 s for nothing. Here the pause is at most
:data:`POLL_INTERVAL`: the same requests, in the same order, sooner. (With
``IRONIC_STEPS_TEST_EXEC_OPENSTACK=1`` the tests run the executable as
installed, pauses included.)

Protocol: one JSON request per line on stdin, ``{"argv": [...], "env":
{...}, "stdout": PATH, "stderr": PATH, "timeout": SECONDS}``; one JSON
answer per line on stdout, ``{"returncode": N}`` (negative: killed by that
signal, as ``subprocess`` reports it). It exits when stdin closes.
"""

import importlib
import importlib.metadata
import json
import os
import signal
import sys

#: The console script (its name is the child's argv[0]).
OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


def _import_commands():
    """Import what a command run would import: the client, then the module
    of every command and plugin entry point it may load."""
    from openstackclient import shell
    for distribution in importlib.metadata.distributions():
        for entry_point in distribution.entry_points:
            if entry_point.group.startswith('openstack.'):
                try:
                    importlib.import_module(entry_point.module)
                except Exception:   # noqa: BLE001
                    pass   # the command run meets (and reports) it itself
    _map_modules_to_distributions()
    return shell


def _map_modules_to_distributions():
    """Build, once, the map from module to distribution that cliff builds
    for a command's help epilog ("provided by the ... plugin").

    cliff keeps the map for the life of the process, but each command of
    a test runs in a process of its own: building it read the metadata of
    every installed distribution, three quarters of a command's CPU (0.37
    of 0.5 s). Built here, every child inherits it, as it would have
    computed it (the installed distributions do not change under a test
    run)."""
    from cliff import command
    build = getattr(command, '_get_distributions_by_modules', None)
    if build is not None:   # a cliff without the map computes nothing
        build()


#: The longest pause between two polls of a command's ``--wait``, seconds.
POLL_INTERVAL = 0.1


def _quicker_waits():
    """Have every ``--wait`` poll at most :data:`POLL_INTERVAL` apart."""
    from ironicclient.common import utils
    poll = utils.poll

    def quicker_poll(timeout, poll_interval, poll_delay_function,
                     timeout_message):
        return poll(timeout, min(poll_interval, POLL_INTERVAL),
                    poll_delay_function, timeout_message)

    utils.poll = quicker_poll


def _run_child(shell, request):
    """In the forked child: become the command, then exit with its code."""
    signal.alarm(int(request['timeout']))   # a hung command dies
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    for fd, path in ((1, request['stdout']), (2, request['stderr'])):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    os.environ.clear()
    os.environ.update(request['env'])
    sys.argv = [OPENSTACK] + request['argv']
    try:
        code = shell.main()
    except SystemExit as exc:
        code = exc.code
    except BaseException:   # noqa: BLE001 - as the interpreter would
        import traceback
        traceback.print_exc()
        code = 1
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


def serve():
    shell = _import_commands()
    _quicker_waits()
    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_child(shell, request)
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps(
            {'returncode': os.waitstatus_to_exitcode(status)}) + '\n')
        answers.flush()


if __name__ == '__main__':
    serve()
