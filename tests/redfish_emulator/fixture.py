"""``RedfishEmulator``: a real emulator process for one test, on loopback.

The redfish hardware type is proven over real HTTP against sushy-tools'
emulator, never against mocks.  This fixture starts
``python -m tests.redfish_emulator.server`` on 127.0.0.1 and a free port
with its own state directory, waits until it answers, and stops it (by the
PID it started) when the test ends.  ``restart()`` brings it back on the
same port and state, so BIOS settings, volumes, virtual media and tasks
survive it; injected faults do not.

It also offers what tests need beside the client under test: plain-HTTP
reads for assertions (``power_state``, ``bios_attributes``, ``volumes``,
...), fault injection (``fail_requests``, ``hang_requests``), and
``client()``, a sushy client with test-friendly retries.
"""

import base64
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import fixtures
import sushy

from tests.functional.fixtures import free_port
from tests.redfish_emulator import storage
from tests.redfish_emulator import systems

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class RedfishEmulator(fixtures.Fixture):
    """sushy-tools' Redfish emulator with our backend, as a process.

    :param systems: how many systems (ids: ``system_ids``, names:
        ``system_names``, ``node-1``...).
    :param username: with ``password``, require basic auth (401 otherwise).
    :param power_delay: seconds before a power change shows (0: at once),
        or ``'random'`` for sushy-tools' own 1-11 s.
    :param volume_seconds: how long a volume create/delete task runs.
    :param update_seconds: how long a SimpleUpdate task runs.
    :param drives: each system's drives as ``MEDIA:GB`` strings
        (default ``storage.DEFAULT_DRIVES``: 2 x SSD:480, 2 x HDD:960).
    :param bios_registry: whether the BIOS names its attribute registry
        (some BMCs have none).
    """

    def __init__(self, systems=2, username=None, password=None,
                 power_delay=0, volume_seconds=1, update_seconds=1,
                 drives=storage.DEFAULT_DRIVES, startup_timeout=30,
                 bios_registry=True):
        super().__init__()
        if (username is None) != (password is None):
            raise ValueError('username and password go together')
        self.system_count = systems
        self.username = username
        self.password = password
        self.power_delay = power_delay
        self.volume_seconds = volume_seconds
        self.update_seconds = update_seconds
        self.drives = tuple(drives)
        self.startup_timeout = startup_timeout
        self.bios_registry = bios_registry
        self.process = None

    def _setUp(self):
        self.state_dir = self.useFixture(fixtures.TempDir()).path
        self.log_file = os.path.join(self.state_dir, 'emulator.log')
        self.port = free_port()
        self.address = 'http://127.0.0.1:%d' % self.port
        self.system_ids = [systems.system_uuid(i)
                           for i in range(1, self.system_count + 1)]
        self.system_names = [systems.system_name(i)
                             for i in range(1, self.system_count + 1)]
        self.addCleanup(self.stop)
        self._start()

    # The process.

    def command(self):
        command = [sys.executable, '-m', 'tests.redfish_emulator.server',
                   '--port', str(self.port), '--state-dir', self.state_dir,
                   '--systems', str(self.system_count),
                   '--power-delay', str(self.power_delay),
                   '--volume-seconds', str(self.volume_seconds),
                   '--update-seconds', str(self.update_seconds)]
        for drive in self.drives:
            command += ['--drive', drive]
        if self.username is not None:
            command += ['--username', self.username,
                        '--password', self.password]
        if not self.bios_registry:
            command.append('--no-bios-registry')
        return command

    def _start(self):
        with open(self.log_file, 'ab') as log:
            self.process = subprocess.Popen(
                self.command(), cwd=_REPO, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError('the Redfish emulator exited with %s:\n%s'
                                   % (self.process.returncode,
                                      self.log()[-3000:]))
            try:
                with urllib.request.urlopen(self.address + '/redfish/v1/',
                                            timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        'the Redfish emulator did not answer in %d s:\n%s'
                        % (self.startup_timeout, self.log()[-3000:]))
                time.sleep(0.05)

    def stop(self):
        """SIGTERM the process this fixture started, by its PID."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def restart(self):
        """Stop, then start again on the same port and state directory."""
        self.stop()
        self._start()

    def log(self):
        try:
            with open(self.log_file, errors='replace') as log:
                return log.read()
        except FileNotFoundError:
            return ''

    # Clients.

    def client(self, **overrides):
        """A sushy client of this emulator, set up for tests: no retries of
        server errors, and short pauses before retrying a connection."""
        options = dict(username=self.username, password=self.password,
                       verify=False, server_side_retries=0,
                       server_side_retries_delay=0.1, read_timeout=30)
        options.update(overrides)
        return sushy.Sushy(self.address + '/redfish/v1/', **options)

    def request(self, method, path, body=None, timeout=30):
        """(status, JSON body or None) of a plain HTTP request."""
        headers = {'Content-Type': 'application/json'}
        if self.username is not None:
            token = base64.b64encode(('%s:%s' % (
                self.username, self.password)).encode()).decode()
            headers['Authorization'] = 'Basic ' + token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.address + path, data=data,
                                         method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                status, payload = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            status, payload = exc.code, exc.read()
        return status, json.loads(payload) if payload else None

    def get(self, path):
        status, body = self.request('GET', path)
        if status >= 300:
            raise AssertionError('GET %s answered %d: %s' % (path, status,
                                                             body))
        return body

    # Reads for assertions.

    def system(self, system_id):
        return self.get('/redfish/v1/Systems/%s' % system_id)

    def set_health(self, system_id, health):
        """Make the System report ``health`` (OK, Warning, Critical)."""
        status, body = self.request(
            'PATCH', '/redfish/v1/Systems/%s' % system_id,
            {'Oem': {'Emulator': {'Health': health}}})
        if status >= 300:
            raise AssertionError('Setting the health answered %d: %s'
                                 % (status, body))

    def power_state(self, system_id):
        return self.system(system_id)['PowerState']

    def boot_source(self, system_id):
        """{'target': ..., 'enabled': Once|Continuous|Disabled, 'mode': ...}"""
        boot = self.system(system_id)['Boot']
        return {'target': boot['BootSourceOverrideTarget'],
                'enabled': boot['BootSourceOverrideEnabled'],
                'mode': boot.get('BootSourceOverrideMode')}

    def boot_sources(self, system_id):
        """What each boot booted from, in order: the override's target
        ('Cd', 'Hdd', 'Pxe', ...), or 'None' for the firmware's own
        order."""
        return self.system(system_id)['Oem']['Emulator']['BootSources']

    def bios_version(self, system_id):
        return self.system(system_id)['BiosVersion']

    def bmc_version(self, system_id):
        """The FirmwareVersion the Manager of a system reports."""
        return self.get('/redfish/v1/Managers/%s' % system_id)[
            'FirmwareVersion']

    def bios_attributes(self, system_id):
        return self.get('/redfish/v1/Systems/%s/Bios'
                        % system_id)['Attributes']

    def bios_pending(self, system_id):
        return self.get('/redfish/v1/Systems/%s/Bios/Settings'
                        % system_id)['Attributes']

    def volumes(self, system_id, storage_id=storage.STORAGE_ID):
        """Every volume of a controller, as its Redfish body."""
        collection = self.get('/redfish/v1/Systems/%s/Storage/%s/Volumes'
                              % (system_id, storage_id))
        return [self.get(member['@odata.id'])
                for member in collection['Members']]

    def virtual_media(self, system_id, device='Cd'):
        return self.get('/redfish/v1/Systems/%s/VirtualMedia/%s'
                        % (system_id, device))

    def task(self, task_id):
        return self.get('/redfish/v1/TaskService/Tasks/%s' % task_id)

    # Request counts (see counters.py).

    def request_counts(self):
        """{'total': n, 'by_method': {...}, 'by_route': {...}} served so
        far under /redfish."""
        return self.get('/emulator/requests')

    def reset_request_counts(self):
        self.request('DELETE', '/emulator/requests')

    # Faults (see faults.py): target is a system id or name, or '*'.

    def fail_requests(self, target, status=500,
                      message='Injected BMC failure'):
        self._put_fault(target, {'status': status, 'message': message})

    def hang_requests(self, target, seconds, status=None, message=None):
        """Requests for ``target`` wait ``seconds`` before answering (with
        ``status`` and ``message`` if given, else normally)."""
        fault = {'hang': seconds}
        if status is not None:
            fault.update(status=status, message=message)
        self._put_fault(target, fault)

    def clear_faults(self, target=None):
        path = '/emulator/faults' + ('/%s' % target if target else '')
        self.request('DELETE', path)

    def _put_fault(self, target, fault):
        status, body = self.request('PUT', '/emulator/faults/%s' % target,
                                    fault)
        if status != 204:
            raise ValueError('fault refused (%d): %s' % (status, body))
