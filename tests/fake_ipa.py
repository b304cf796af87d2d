"""A fake ironic-python-agent: IPA 13's command API on 127.0.0.1.

:class:`FakeIPA` is a fixture that serves, on a free loopback port, the
part of IPA's REST API the conductor's agent client speaks (see
``ironic_steps/drivers/modules/agent_client.py`` for the protocol): the
same paths and bodies, the token check (401 without the agent's token),
command results in IPA's shape (``id``, ``command_name``,
``command_status``, ``command_error``, ``command_result``).  It records
every request, so a test can read what the conductor sent.

What each command answers:

* ``<kind>.get_<kind>_steps`` (wait=true): the steps in :attr:`steps`, as
  IPA reports them: ``{"<kind>_steps": {<hardware manager>: [step, ...]},
  "hardware_manager_version": {...}}``; by default a part of IPA 13's
  GenericHardwareManager steps (:data:`DEPLOY_STEPS`, :data:`CLEAN_STEPS`);
* ``<kind>.execute_<kind>_step``: RUNNING with an id; each read of it
  (``GET /v1/commands/<id>``) then answers what the test scripted for the
  step (:meth:`script`, keyed ``interface.step``), else SUCCEEDED once it
  was read ``reads_until_done`` times; done, its result is IPA's
  ``{"<kind>_result": None, "<kind>_step": step}``;
* ``standby.get_partition_uuids``: :data:`PARTITIONS`; ``standby.sync``
  and any other command: None, or what :attr:`results` says for its short
  name.  A command sent with wait=true is answered once done.

The test can also queue raw answers for the next commands (:meth:`answer`:
busy, a refused token, a server error, a body that is not JSON, or
:data:`HANG`, no answer at all), and make the agent start afresh as a
rebooted machine's would (:meth:`restart`).

The agent learns its token the way IPA does: from the node's lookup (set
:attr:`token`; None refuses every command, as IPA 13 does), or, booted
from virtual media, from the config image beside its ISO
(:meth:`read_config_image`), before any lookup.

Plumbing is the standard library's (http.server); what is left here is
IPA's protocol, which no library fakes.
"""

import copy
import http.server
import io
import json
import threading
import urllib.parse
import uuid

import fixtures
import pycdlib

from ironic_steps.drivers.modules import agent_client

RUNNING = agent_client.RUNNING
SUCCEEDED = agent_client.SUCCEEDED
FAILED = agent_client.FAILED

#: The volume label of the config image IPA reads its parameters from.
CONFIG_LABEL = 'ir-vfd-dev'
UNAUTHORIZED = (401, {'faultcode': 'Client',
                      'faultstring': '401 Unauthorized: Token invalid.'})
#: A queued answer: no answer at all until the test ends.
HANG = 'hang'

GENERIC = 'GenericHardwareManager'
#: IPA 13's deploy steps of its generic hardware manager (abridged): all
#: off unless requested; ``write_image`` is shadowed by the ``direct``
#: deploy interface's own step.
DEPLOY_STEPS = [
    {'interface': 'deploy', 'step': 'erase_devices_metadata', 'priority': 0,
     'reboot_requested': False, 'argsinfo': None},
    {'interface': 'deploy', 'step': 'write_image', 'priority': 0,
     'reboot_requested': False,
     'argsinfo': {'image_info': {'description': 'Information about the '
                                                'image.', 'required': True},
                  'configdrive': {'description': 'A config drive.',
                                  'required': False}}},
    {'interface': 'deploy', 'step': 'inject_files', 'priority': 0,
     'reboot_requested': False,
     'argsinfo': {'files': {'description': 'Files to inject.',
                            'required': False}}},
]
#: IPA 13's clean steps of its generic hardware manager (abridged).
CLEAN_STEPS = [
    {'interface': 'deploy', 'step': 'erase_devices', 'priority': 10,
     'reboot_requested': False, 'abortable': True},
    {'interface': 'deploy', 'step': 'erase_devices_metadata',
     'priority': 99, 'reboot_requested': False, 'abortable': True},
    {'interface': 'deploy', 'step': 'erase_pstore', 'priority': 0,
     'reboot_requested': False, 'abortable': True},
]
#: What ``standby.get_partition_uuids`` answers after a whole-disk image.
PARTITIONS = {'root uuid': '0ae3f6b2-1d4c-4f1e-9a8b-2c3d4e5f6a7b',
              'efi system partition uuid': 'A1B2-C3D4',
              'partitions': {}}

#: [agent] options for a client of the fake agent, which answers at once:
#: no waits between attempts or reads, few of them, a short timeout.
QUICK_CLIENT = {'command_timeout': 2, 'max_command_attempts': 3,
                'command_retry_interval': 0, 'command_wait_interval': 0,
                'command_wait_attempts': 5}

_STEP_COMMANDS = tuple('execute_%s_step' % kind
                       for kind in agent_client.STEP_KINDS)
_STEP_LISTS = tuple('get_%s_steps' % kind
                    for kind in agent_client.STEP_KINDS)
_OWN = object()


def failed(details, message='Command execution failed'):
    """A scripted read: the command FAILED, with IPA's error whose
    ``details`` are the text an operator reads."""
    return {'type': 'CommandExecutionError', 'code': 500,
            'message': message, 'details': details}


class FakeIPA(fixtures.Fixture):
    """IPA's command API on a free loopback port (see the module doc).

    ``requests`` holds ``(method, path, query, body)`` per request, query
    as a dict of single values; ``commands`` the command results by id.

    :param token: the agent token it accepts (see :attr:`token`).
    :param node: the node UUID :meth:`endpoint` names by default.
    """

    def __init__(self, token=None, node=None):
        super().__init__()
        #: The agent token the agent accepts; None: it refuses every
        #: command (it was not looked up yet).
        self.token = token
        self.node = node
        self.requests = []
        self.commands = {}
        #: A command's result by its short name, instead of the usual.
        self.results = {}
        #: Reads of a running, unscripted command until it is SUCCEEDED.
        self.reads_until_done = 1
        #: Called with the request body before a HANG answer hangs.
        self.on_hang = None
        #: The steps it reports: kind -> {hardware manager: [step, ...]}.
        self.steps = {'deploy': {GENERIC: copy.deepcopy(DEPLOY_STEPS)},
                      'clean': {GENERIC: copy.deepcopy(CLEAN_STEPS)},
                      'service': {GENERIC: []}}
        self.hardware_manager_version = {GENERIC: '1.2'}
        self._answers = []
        self._scripts = {}
        self._keys = {}
        self._reads = {}
        self._lock = threading.Lock()
        self._released = threading.Event()

    def _setUp(self):
        agent = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                agent._handle(self)

            def do_POST(self):
                agent._handle(self)

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, args=(0.01,),
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join, 5)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.addCleanup(self._released.set)
        #: Where it listens, as its heartbeat's ``callback_url`` says.
        self.url = 'http://127.0.0.1:%d' % server.server_address[1]

    # --- what the test tells it -------------------------------------------

    def answer(self, *answers):
        """Queue what the next commands (POST) get instead of the usual
        answer: ``(status, body)`` (a dict sent as JSON, bytes as they
        are) or :data:`HANG`."""
        self._answers.extend(answers)

    def script(self, key, *reads):
        """What each read of a running command answers, in turn; the last
        one repeats.  ``key`` is a step's ``interface.step`` (for the
        commands that execute steps) or a command's short name; a read is
        :data:`RUNNING`, :data:`SUCCEEDED` or :func:`failed`."""
        if not reads:
            raise ValueError('script(%r) needs at least one read' % key)
        with self._lock:
            self._scripts[key] = list(reads)

    def report(self, kind, steps, manager=GENERIC):
        """The ``kind`` steps it reports: ``steps`` of one hardware
        manager, and no other manager's."""
        self.steps[kind] = {manager: copy.deepcopy(list(steps))}

    def restart(self):
        """Start afresh, as the agent of a machine that booted again: no
        commands, no token until its next lookup."""
        with self._lock:
            self.commands.clear()
            self._keys.clear()
            self._reads.clear()
            self.token = None

    def start(self, name, status=RUNNING):
        """A command the agent runs (listed by GET /v1/commands/)."""
        command = {'id': str(uuid.uuid4()), 'command_name': name,
                   'command_status': status, 'command_error': None,
                   'command_result': None}
        self.commands[command['id']] = command
        return command

    def read_config_image(self, path):
        """Take the token the config image at ``path`` holds, as IPA reads
        it from the virtual medium labelled ``ir-vfd-dev``: the
        ``key=value`` lines of its ``parameters.txt``; those parameters.

        :raises ValueError: for an image IPA would not read.
        """
        iso = pycdlib.PyCdlib()
        iso.open(path)
        try:
            label = iso.pvd.volume_identifier.decode().strip(' \0')
            if label != CONFIG_LABEL:
                raise ValueError('the image at %s is labelled %r, not %r'
                                 % (path, label, CONFIG_LABEL))
            text = io.BytesIO()
            iso.get_file_from_iso_fp(text, rr_path='/parameters.txt')
        finally:
            iso.close()
        parameters = dict(line.split('=', 1) for line in
                          text.getvalue().decode().splitlines()
                          if '=' in line)
        self.token = parameters.get('ipa-agent-token')
        return parameters

    # --- what the test reads ----------------------------------------------

    def endpoint(self, token=_OWN, node=_OWN):
        """An agent client's endpoint for this agent (its own token and
        node unless told otherwise)."""
        return agent_client.AgentEndpoint(
            url=self.url, token=self.token if token is _OWN else token,
            node=self.node if node is _OWN else node)

    def paths(self, method):
        return [path for verb, path, _, _ in self.requests if verb == method]

    def sent(self, name=None):
        """The commands posted (full names, in order), or the params of
        each command named ``name``."""
        with self._lock:
            bodies = [body for verb, _, _, body in self.requests
                      if verb == 'POST' and body]
        if name is None:
            return [body['name'] for body in bodies]
        return [body['params'] for body in bodies if body['name'] == name]

    def steps_run(self, kind):
        """``interface.step`` of each step it was asked to execute."""
        return ['%(interface)s.%(step)s' % params['step']
                for params in self.sent('%s.execute_%s_step' % (kind, kind))]

    # --- the server -------------------------------------------------------

    def _handle(self, request):
        parts = urllib.parse.urlsplit(request.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        length = int(request.headers.get('Content-Length') or 0)
        body = json.loads(request.rfile.read(length)) if length else None
        with self._lock:
            self.requests.append((request.command, parts.path, query, body))
            scripted = (self._answers.pop(0)
                        if self._answers and request.command == 'POST'
                        else None)
        if scripted == HANG:
            if self.on_hang:
                self.on_hang(body)
            self._released.wait(10)
            return
        if scripted is None:
            with self._lock:
                scripted = self._usual(request.command, parts.path, query,
                                       body)
        status, answer = scripted
        data = answer if isinstance(answer, bytes) else json.dumps(
            answer).encode()
        try:
            request.send_response(status)
            request.send_header('Content-Type', 'application/json')
            request.send_header('Content-Length', str(len(data)))
            request.end_headers()
            request.wfile.write(data)
        except OSError:
            pass  # the client gave up waiting

    def _usual(self, verb, path, query, body):
        if not self.token or query.get('agent_token') != self.token:
            return UNAUTHORIZED
        if verb == 'POST':
            return 200, self._run(body, wait=query.get('wait') == 'true')
        if path == '/v1/commands/':
            return 200, {'commands': [self._shown(command) for command
                                      in self.commands.values()]}
        command = self.commands.get(path.rpartition('/')[2])
        if command is None:
            return 404, {'faultcode': 'Client',
                         'faultstring': 'Not found: Command Result with id '
                                        '%s not found.' % path}
        self._read(command)
        return 200, self._shown(command)

    def _run(self, body, wait):
        name = body['name'].partition('.')[2]
        command = self.start(name)
        params = body.get('params') or {}
        step = params.get('step') if name in _STEP_COMMANDS else None
        self._keys[command['id']] = (
            '%s.%s' % (step.get('interface'), step.get('step'))
            if isinstance(step, dict) else name)
        command['_params'] = params
        if wait:
            while command['command_status'] == RUNNING:
                self._read(command, until_done=True)
        return self._shown(command)

    def _read(self, command, until_done=False):
        if command['command_status'] != RUNNING:
            return
        script = self._scripts.get(self._keys.get(command['id']))
        if script:
            outcome = script.pop(0) if len(script) > 1 else script[0]
            if outcome == RUNNING and until_done and len(script) == 1:
                outcome = SUCCEEDED   # a command waited for ends
            self._end(command, outcome)
            return
        reads = self._reads[command['id']] = self._reads.get(
            command['id'], 0) + 1
        if until_done or reads >= self.reads_until_done:
            self._end(command, SUCCEEDED)

    def _end(self, command, outcome):
        if outcome == RUNNING:
            return
        if isinstance(outcome, dict):
            command['command_status'] = FAILED
            command['command_error'] = outcome
            return
        command['command_status'] = outcome
        command['command_result'] = self._result(command)

    def _result(self, command):
        name = command['command_name']
        if name in self.results:
            return self.results[name]
        params = command.get('_params') or {}
        if name in _STEP_LISTS:
            kind = name.split('_')[1]
            return {'%s_steps' % kind: copy.deepcopy(self.steps.get(kind,
                                                                    {})),
                    'hardware_manager_version': dict(
                        self.hardware_manager_version)}
        if name in _STEP_COMMANDS:
            kind = name.split('_')[1]
            return {'%s_result' % kind: None,
                    '%s_step' % kind: params.get('step')}
        if name == 'get_partition_uuids':
            return copy.deepcopy(PARTITIONS)
        return None

    @staticmethod
    def _shown(command):
        return {key: value for key, value in command.items()
                if not key.startswith('_')}
