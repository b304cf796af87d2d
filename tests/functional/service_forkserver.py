"""Runs the ``ironic-steps*`` console scripts in children forked from one
process that has imported the service once.

Each service process of a functional test spends one and a half to two
seconds of CPU importing the service (oslo.*, SQLAlchemy, Flask, the
drivers) before it does anything, and a test starts three to six of them;
on a machine running the suite on every core that CPU is the test's
time.  Here the imports are done once per test process, and each service
runs in a fresh child forked from this process: the child calls the
console script's own entry point (``ironic_steps.cmd.conductor:main``,
...) with the script's path as ``argv[0]``, its environment and working
directory the test's, stdin and stdout ``/dev/null`` and stderr a file,
and ends as the script does, through ``sys.exit`` and the interpreter's
own shutdown.  What runs is the real service, a process of its own,
minus the repeated imports; nothing it does at start (configuration,
logging, database, broker, threads) is done before the fork.

Protocol: one JSON request per line on stdin, one JSON line per answer or
event on stdout:

- ``{"start": SCRIPT, "argv": [...], "env": {...}, "cwd": DIR,
  "stderr": PATH, "id": KEY}``: answered ``{"started": PID, "id": KEY}``;
- ``{"signal": N, "id": KEY}``: sends signal N to that child, if it has
  not ended (then its PID cannot have been reused: this process has not
  reaped it); answered ``{"signalled": KEY}``;
- ``{"ended": KEY, "returncode": N}`` is written when a child ends
  (negative: killed by that signal, as ``subprocess`` reports it).

When stdin closes (the test process is gone), the children still running
are killed, by their PIDs, and this process exits.

The test side is :data:`FORK_SERVER` (:meth:`ForkServer.start` gives a
:class:`ForkedProcess`, which answers as much of ``subprocess.Popen`` as
the fixtures use).  With ``IRONIC_STEPS_TEST_EXEC_SERVICES=1`` in the
environment, the fixtures run the executables instead.
"""

import importlib
import importlib.metadata
import itertools
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading

#: Modules a service imports only once it starts, not at import of its
#: entry point: imported here too, so that no child imports them again.
STARTED_SERVICE_MODULES = (
    'ironic_steps.api.app', 'ironic_steps.api.auth', 'ironic_steps.api.body',
    'ironic_steps.api.lanes', 'ironic_steps.api.server',
    'ironic_steps.api.read_only', 'ironic_steps.common.rpc',
    'oslo_messaging._drivers.impl_rabbit', 'kombu.transport.pyamqp',
    'psycopg2', 'pymysql', 'sqlalchemy.dialects.postgresql.psycopg2',
    'sqlalchemy.dialects.mysql.pymysql')


def _import_services():
    """{console script name: its entry point, imported}; the drivers and
    the modules of :data:`STARTED_SERVICE_MODULES` imported too."""
    distribution = importlib.metadata.distribution('ironic-steps')
    scripts = {entry_point.name: entry_point.load()
               for entry_point in distribution.entry_points
               if entry_point.group == 'console_scripts'}
    modules = list(STARTED_SERVICE_MODULES)
    for found in importlib.metadata.distributions():
        modules.extend(entry_point.module for entry_point in
                       found.entry_points
                       if entry_point.group.startswith('ironic_steps.'))
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception:   # noqa: BLE001
            pass   # the service meets (and reports) it itself
    return scripts


def _become_service(scripts, request, wakeup_fds):
    """In the forked child: become the console script; never returns."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in wakeup_fds:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(os.open(request['stderr'],
                    os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
    os.chdir(request['cwd'])
    os.environ.clear()
    os.environ.update(request['env'])
    script = request['start']
    sys.argv = [script] + request['argv']
    # As the console script does; the interpreter ends the process.
    sys.exit(scripts[os.path.basename(script)]())


def serve():
    scripts = _import_services()
    answers = sys.stdout
    children = {}   # {pid: key} of those not reaped yet
    wakeup_read, wakeup_write = os.pipe()
    os.set_blocking(wakeup_write, False)
    signal.set_wakeup_fd(wakeup_write)
    # A handler (not SIG_DFL) so that SIGCHLD reaches the wakeup pipe.
    signal.signal(signal.SIGCHLD, lambda *_: None)

    def answer(message):
        answers.write(json.dumps(message) + '\n')
        answers.flush()

    def reap():
        for pid in list(children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                answer({'ended': children.pop(pid),
                        'returncode': os.waitstatus_to_exitcode(status)})

    requests = sys.stdin.buffer
    pending = b''
    while True:
        try:
            readable, _, _ = select.select([requests, wakeup_read], [], [])
        except InterruptedError:
            continue
        if wakeup_read in readable:
            os.read(wakeup_read, 4096)
            reap()
        if requests not in readable:
            continue
        chunk = os.read(requests.fileno(), 65536)
        if not chunk:
            break
        pending += chunk
        while b'\n' in pending:
            line, pending = pending.split(b'\n', 1)
            request = json.loads(line)
            if 'start' in request:
                pid = os.fork()
                if pid == 0:
                    _become_service(scripts, request,
                                    (wakeup_read, wakeup_write))
                children[pid] = request['id']
                answer({'started': pid, 'id': request['id']})
            else:
                # Reaped children are not in the map: their PIDs may be
                # someone else's by now.
                reap()
                for pid, key in children.items():
                    if key == request['id']:
                        os.kill(pid, request['signal'])
                answer({'signalled': request['id']})
    for pid in children:
        os.kill(pid, signal.SIGKILL)


class ForkServer:
    """The test side: one fork server per test process, started on first
    use; it ends when the test process does (its stdin closes)."""

    def __init__(self):
        self._lock = threading.Lock()   # one request at a time
        self._ended = threading.Condition()
        self._process = None
        self._answers = None
        self._keys = itertools.count(1)
        #: {key: returncode} of the children that ended.
        self.returncodes = {}

    def start(self, argv, stderr_path):
        """Run console script ``argv[0]`` with ``argv[1:]`` in a child, as
        ``subprocess.Popen(argv)`` would with this process's environment
        and working directory, stderr going to ``stderr_path``."""
        key = next(self._keys)
        answer = self._request({
            'start': argv[0], 'argv': argv[1:], 'env': dict(os.environ),
            'cwd': os.getcwd(), 'stderr': stderr_path, 'id': key})
        return ForkedProcess(self, key, answer['started'])

    def send_signal(self, key, signum):
        self._request({'signal': signum, 'id': key})

    def wait(self, key, timeout):
        """The child's returncode once it ended; None after ``timeout``
        seconds (0: do not wait)."""
        with self._ended:
            self._ended.wait_for(lambda: key in self.returncodes, timeout)
            return self.returncodes.get(key)

    def _request(self, request):
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(
                    [sys.executable, __file__], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, text=True)
                self._answers = queue.Queue()
                threading.Thread(target=self._read, daemon=True, args=(
                    self._process, self._answers)).start()
            self._process.stdin.write(json.dumps(request) + '\n')
            self._process.stdin.flush()
            answer = self._answers.get(timeout=120)
        if answer is None:
            raise AssertionError('the service fork server died')
        return answer

    def _read(self, process, answers):
        for line in process.stdout:
            message = json.loads(line)
            if 'ended' in message:
                with self._ended:
                    self.returncodes[message['ended']] = message[
                        'returncode']
                    self._ended.notify_all()
            else:
                answers.put(message)
        answers.put(None)


class ForkedProcess:
    """A child of the fork server, as much of a ``subprocess.Popen`` as the
    fixtures use: ``pid``, ``returncode``, ``poll``, ``wait``,
    ``send_signal``, ``terminate``, ``kill``."""

    def __init__(self, server, key, pid):
        self._server = server
        self._key = key
        self.pid = pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            self.returncode = self._server.wait(self._key, 0)
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None:
            self.returncode = self._server.wait(self._key, timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(self.pid, timeout)
        return self.returncode

    def send_signal(self, signum):
        # By the fork server, which knows whether the PID is still ours.
        if self.poll() is None:
            self._server.send_signal(self._key, signum)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


FORK_SERVER = ForkServer()


if __name__ == '__main__':
    serve()
