"""The conductor's client of ironic-python-agent (IPA), over its REST API.

It owns how a command reaches a node's agent and how the answer is read:
the request, its timeout, its retries, and turning every failure into an
exception of :mod:`ironic_steps.common.exception`.  It never reads or saves
a node and never imports the conductor or objects: a driver passes, per
call, an :class:`AgentEndpoint` (built from the node's
``driver_internal_info`` with :meth:`AgentEndpoint.from_driver_internal_info`)
and the node and its ports as plain dicts.  Which commands a flow sends, and
what it makes of their results, belongs to the deploy interfaces.

The protocol (IPA 13.0.0, API v1), as Ironic's agent client speaks it:

* ``POST {url}/v1/commands/?wait=true|false&agent_token=T`` with the body
  ``{"name": "<extension>.<command>", "params": {...}}`` runs a command;
  with ``wait=true`` the agent answers once it is done, else at once.
* ``GET {url}/v1/commands/?agent_token=T`` answers
  ``{"commands": [<command result>, ...]}``, oldest first;
  ``GET {url}/v1/commands/<id>?agent_token=T`` answers one.
* A *command result* is a dict: ``id``; ``command_name``, the short name
  (``execute_deploy_step``, not ``deploy.execute_deploy_step``);
  ``command_status``, one of :data:`RUNNING`, :data:`SUCCEEDED`,
  :data:`FAILED`, :data:`VERSION_MISMATCH`; ``command_error``, None or
  ``{"type", "code", "message", "details"}``; ``command_result``, None or
  what the command returns (see each method).
* An error is ``{"faultcode": "Client"|"Server", "faultstring": "..."}``:
  401 for a missing or wrong token (IPA 13 refuses every command without
  one), 409 ``Agent is busy: executing command X`` (an agent runs one
  command at a time), 400 for an unknown command or bad parameters, 404
  for an unknown extension or command id.

The *node dict* sent with step commands is the node's API fields with its
secrets masked, as Ironic sends ``node.as_dict(secure=True)``: IPA 13
requires ``uuid`` and reads ``properties`` (root device hints),
``instance_info``, ``driver_info``, ``driver_internal_info`` and
``target_raid_config``.  *Ports* are a list of port dicts (``address``,
``uuid``, ``pxe_enabled``, ``local_link_connection``, ...).

Retries: a request the agent could not be reached for, did not answer in
time, or refused as busy is sent again, at most ``[agent]
max_command_attempts`` times in all, the waits between growing from
``[agent] command_retry_interval``.  When a command was sent but no answer
came, the agent may have started it; if its last command is that one and
still running, it is taken as the answer instead of sending it twice.  A
refused token or any other error is never retried.  ``poll=True`` then reads
a running command's status until it is done (``[agent]
command_wait_attempts`` reads, ``command_wait_interval`` apart).

The agent token travels in the query string (IPA reads it nowhere else), so
no URL is shown without :func:`mask_url`, error text from the agent or the
HTTP library is scrubbed of it, and urllib3's request log lines are masked
by a filter on its logger.

Plumbing is libraries': requests (connections, TLS, timeouts), tenacity
(retries and backoff), jsonschema (the shape of an answer).  What is left
here is the part no library knows: IPA's protocol and its failures.
"""

import dataclasses
import logging
import re
import urllib.parse

import jsonschema
from oslo_log import log
import requests
import tenacity

from ironic_steps.common import exception
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)

#: Keys of ``driver_internal_info`` an endpoint is built from (the token's
#: is :data:`ironic_steps.conductor.agent_token.TOKEN_KEY`).
URL_KEY = 'agent_url'
TOKEN_KEY = 'agent_secret_token'
VERIFY_CA_KEY = 'agent_verify_ca'

#: A command's ``command_status``.  IPA reports a hardware manager version
#: that changed since the steps were listed with the cleaning word, for
#: deploy and service steps too.
RUNNING = 'RUNNING'
SUCCEEDED = 'SUCCEEDED'
FAILED = 'FAILED'
VERSION_MISMATCH = 'CLEAN_VERSION_MISMATCH'

#: The kinds of steps IPA 13 lists and runs: ``<kind>.get_<kind>_steps``,
#: ``<kind>.execute_<kind>_step``.
STEP_KINDS = ('clean', 'deploy', 'service')

_COMMANDS = '/v1/commands/'
_MASK = '***'
_TOKEN_PARAMETER = re.compile(r'(agent_token=)[^&\s\'")]*')
_EXCERPT = 200

_COMMAND_RESULT = {
    'description': 'a command result',
    'type': 'object',
    'required': ['id', 'command_name', 'command_status'],
    'properties': {
        'id': {'type': 'string'},
        'command_name': {'type': 'string'},
        'command_status': {'type': 'string'},
    },
}
_COMMAND_LIST = {
    'description': 'a list of command results',
    'type': 'object',
    'required': ['commands'],
    'properties': {'commands': {'type': 'array', 'items': _COMMAND_RESULT}},
}

#: Compiled once: an answer is checked at every command and heartbeat.
_VALIDATORS = {schema['description']: jsonschema.Draft7Validator(schema)
               for schema in (_COMMAND_RESULT, _COMMAND_LIST)}


def mask_url(url: str) -> str:
    """``url`` without the ``agent_token`` of its query string."""
    parts = urllib.parse.urlsplit(url)
    query = [(key, value) for key, value
             in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
             if key != 'agent_token']
    return urllib.parse.urlunsplit(
        parts._replace(query=urllib.parse.urlencode(query)))


def _scrub(text, token=None) -> str:
    """``text`` (from the agent or the HTTP library) without the token."""
    text = _TOKEN_PARAMETER.sub(r'\g<1>' + _MASK, str(text))
    return text.replace(token, _MASK) if token else text


class _TokenMasker(logging.Filter):
    """Masks the token in urllib3's lines (``"POST /v1/commands/?..."``)."""

    def filter(self, record):
        try:
            message = record.getMessage()
        except Exception:
            return True
        if 'agent_token=' in message:
            record.msg, record.args = _scrub(message), None
        return True


_URLLIB3_LOG = logging.getLogger('urllib3.connectionpool')
if not any(isinstance(f, _TokenMasker) for f in _URLLIB3_LOG.filters):
    _URLLIB3_LOG.addFilter(_TokenMasker())


@dataclasses.dataclass(frozen=True)
class AgentEndpoint:
    """Where a node's agent listens, and what proves the conductor to it.

    :ivar url: the agent's callback URL, as its heartbeat gave it
        (``https://10.0.0.5:9999``).
    :ivar token: the node's agent token, or None (IPA 13 then refuses
        every command).  Never shown, not even by ``repr``.
    :ivar verify_ca: for https: True, False, or the path of the CA bundle
        the agent's certificate is checked with.
    :ivar node: the node's UUID, named in messages and logs.
    """

    url: str
    token: str | None = dataclasses.field(default=None, repr=False)
    verify_ca: bool | str = True
    node: str | None = None

    def __post_init__(self):
        parts = (urllib.parse.urlsplit(self.url)
                 if isinstance(self.url, str) else None)
        if (parts is None or parts.scheme not in ('http', 'https')
                or not parts.hostname):
            raise exception.InvalidParameterValue(
                err='The agent URL of node %s must be an http(s) URL; got %r'
                    % (self.node, mask_url(self.url)
                       if isinstance(self.url, str) else self.url))
        object.__setattr__(self, 'url', self.url.rstrip('/'))

    @classmethod
    def from_driver_internal_info(cls, node: str,
                                  info: dict | None) -> 'AgentEndpoint':
        """The endpoint of node ``node`` (a UUID), from its
        ``driver_internal_info``.

        :raises AgentURLUnknown: when the agent has not heartbeated yet.
        """
        info = info or {}
        if not info.get(URL_KEY):
            raise exception.AgentURLUnknown(node=node)
        verify_ca = info.get(VERIFY_CA_KEY)
        return cls(url=info[URL_KEY], token=info.get(TOKEN_KEY),
                   verify_ca=True if verify_ca is None else verify_ca,
                   node=node)

    def __str__(self):
        if self.node:
            return 'the agent of node %s at %s' % (self.node,
                                                   mask_url(self.url))
        return 'the agent at %s' % mask_url(self.url)


def command_error(result: dict) -> str | None:
    """The error text of a command result, None if it has none."""
    error = result.get('command_error')
    if isinstance(error, dict):
        return str(error.get('details') or error.get('message') or error)
    return None if error is None else str(error)


class AgentClient:
    """Sends commands to nodes' agents; one per thread (its connections
    are kept for reuse and a requests session is not thread-safe)."""

    def __init__(self):
        self._session = requests.Session()

    # --- the protocol -------------------------------------------------------

    def execute(self, endpoint: AgentEndpoint, method: str,
                params: dict | None = None, wait: bool = False,
                poll: bool = False) -> dict:
        """Run ``method`` (``"<extension>.<command>"``) on the agent.

        :param wait: the agent answers once the command is done (it must
            be done within ``[agent] command_timeout``).
        :param poll: the agent answers at once and the command's status is
            then read until it is done; for long commands.
        :returns: the command result (RUNNING unless ``wait`` or ``poll``).
        :raises AgentIsBusy, AgentConnectionFailed: after every attempt.
        :raises AgentTokenRefused, AgentAPIError: at once.
        :raises AgentCommandTimeout: when a polled command is still running.
        """
        extension, _, command = (method.partition('.')
                                 if isinstance(method, str) else ('', '', ''))
        if not extension or not command:
            raise exception.InvalidParameterValue(
                err='An agent command is named <extension>.<command>, such '
                    'as deploy.get_deploy_steps; got %r' % (method,))
        if wait and poll:
            raise exception.InvalidParameterValue(
                err='Agent command %s: wait and poll exclude each other; '
                    'poll for long commands, wait for short ones' % method)
        body = {'name': method, 'params': params or {}}
        query = {'wait': 'true' if wait else 'false'}
        result = self._with_retries(self._post, endpoint, method, query, body)
        if poll and result['command_status'] == RUNNING:
            result = self._wait_for(endpoint, method, result['id'])
        return result

    def get_command(self, endpoint: AgentEndpoint, command_id: str) -> dict:
        """The command result of ``command_id``."""
        path = _COMMANDS + urllib.parse.quote(command_id, safe='')
        return self._with_retries(self._get, endpoint, path, _COMMAND_RESULT)

    def get_commands_status(self, endpoint: AgentEndpoint) -> list:
        """Every command result the agent keeps, oldest first."""
        return self._with_retries(self._get, endpoint, _COMMANDS,
                                  _COMMAND_LIST)['commands']

    # --- steps --------------------------------------------------------------

    def get_steps(self, endpoint: AgentEndpoint, kind: str, node: dict,
                  ports: list) -> dict:
        """The ``kind`` steps the agent offers (one of :data:`STEP_KINDS`).

        Its ``command_result`` is ``{"<kind>_steps": {<hardware manager>:
        [<step>, ...]}, "hardware_manager_version": {<manager>:
        <version>}}``, a step being ``{"step", "priority", "interface",
        "reboot_requested"}`` and, for some, ``argsinfo`` and
        ``abortable``.
        """
        _check_step_kind(kind)
        return self.execute(endpoint, '%s.get_%s_steps' % (kind, kind),
                            {'node': _node(node), 'ports': list(ports)},
                            wait=True)

    def execute_step(self, endpoint: AgentEndpoint, kind: str, step: dict,
                     node: dict, ports: list,
                     hardware_manager_version: dict | None = None) -> dict:
        """Start ``step`` (``{"step", "interface", "priority", "args"}``).

        The agent answers RUNNING at once; the done result's
        ``command_result`` is ``{"<kind>_result": <what the step returned>,
        "<kind>_step": <step>}``.  ``hardware_manager_version``, as
        :meth:`get_steps` gave it, makes the agent refuse the step with
        :data:`VERSION_MISMATCH` if its hardware managers changed since.
        """
        _check_step_kind(kind)
        return self.execute(endpoint, '%s.execute_%s_step' % (kind, kind),
                            {'step': step, 'node': _node(node),
                             'ports': list(ports),
                             '%s_version' % kind: hardware_manager_version})

    def get_deploy_steps(self, endpoint, node, ports):
        return self.get_steps(endpoint, 'deploy', node, ports)

    def execute_deploy_step(self, endpoint, step, node, ports,
                            hardware_manager_version=None):
        return self.execute_step(endpoint, 'deploy', step, node, ports,
                                 hardware_manager_version)

    def get_clean_steps(self, endpoint, node, ports):
        return self.get_steps(endpoint, 'clean', node, ports)

    def execute_clean_step(self, endpoint, step, node, ports,
                           hardware_manager_version=None):
        return self.execute_step(endpoint, 'clean', step, node, ports,
                                 hardware_manager_version)

    # --- rescue -------------------------------------------------------------

    def finalize_rescue(self, endpoint: AgentEndpoint,
                        hashed_password: str) -> dict:
        """Give the rescue environment its user's password, as a crypt(3)
        hash (``rescue.finalize_rescue`` with ``hashed``: IPA 6 and
        later); the agent then steps aside for the user."""
        return self.execute(endpoint, 'rescue.finalize_rescue',
                            {'rescue_password': hashed_password,
                             'hashed': True}, wait=True)

    # --- the image and the machine ------------------------------------------

    def prepare_image(self, endpoint: AgentEndpoint, image_info: dict,
                      configdrive: str | None = None,
                      wait: bool = False) -> dict:
        """Write the image (``standby.prepare_image``), then the config drive.

        ``image_info`` needs ``id``, ``urls`` (a non-empty list) and either
        ``checksum`` or ``os_hash_algo`` and ``os_hash_value`` (else HTTP
        400); it may say ``disk_format``, ``image_type`` (``partition``
        or whole disk), ``stream_raw_images``, ``node_uuid``,
        ``deploy_boot_mode`` and, for partition images, ``root_mb``,
        ``swap_mb``, ``ephemeral_mb``, ``ephemeral_format``,
        ``preserve_ephemeral``.  ``configdrive`` is a URL or gzipped,
        base64 ISO content.  The done result's ``command_result`` is
        ``{"result": "prepare_image: image (<id>) written to device <dev>
        root_uuid=<uuid> ..."}``.
        """
        return self.execute(endpoint, 'standby.prepare_image',
                            {'image_info': image_info,
                             'configdrive': configdrive}, wait=wait)

    def sync(self, endpoint: AgentEndpoint) -> dict:
        """Flush the node's disk buffers; ``command_result`` is None."""
        return self.execute(endpoint, 'standby.sync', wait=True)

    def power_off(self, endpoint: AgentEndpoint) -> dict:
        """Shut the node down from within; answered RUNNING, then the
        agent is gone."""
        return self.execute(endpoint, 'standby.power_off')

    def lock_down(self, endpoint: AgentEndpoint) -> dict:
        """Flush the disks, then have the agent stop serving its API
        until the node boots again (``system.lockdown``): what ends a
        ramdisk whose node must not be powered off."""
        self.sync(endpoint)
        return self.execute(endpoint, 'system.lockdown', wait=True)

    def get_partition_uuids(self, endpoint: AgentEndpoint) -> dict:
        """What the last image written made: ``command_result`` is
        ``{"root uuid": ..., "efi system partition uuid": ...,
        "partitions": {...}}`` (keys with spaces, IPA's), or ``{}``."""
        return self.execute(endpoint, 'standby.get_partition_uuids',
                            wait=True)

    def install_bootloader(self, endpoint: AgentEndpoint, root_uuid: str,
                           target_boot_mode: str,
                           efi_system_part_uuid: str | None = None,
                           prep_boot_part_uuid: str | None = None) -> dict:
        """Install the boot loader of the written image, waiting for it
        (``image.install_bootloader``, polled); ``target_boot_mode`` is
        ``bios`` or ``uefi``."""
        return self.execute(endpoint, 'image.install_bootloader',
                            {'root_uuid': root_uuid,
                             'target_boot_mode': target_boot_mode,
                             'efi_system_part_uuid': efi_system_part_uuid,
                             'prep_boot_part_uuid': prep_boot_part_uuid},
                            poll=True)

    def collect_system_logs(self, endpoint: AgentEndpoint) -> dict:
        """The ramdisk's logs: ``command_result`` is ``{"system_logs":
        <base64 of a gzipped tar>}``."""
        return self.execute(endpoint, 'log.collect_system_logs', wait=True)

    # --- one request --------------------------------------------------------

    def _with_retries(self, send, endpoint, *args):
        attempts = CONF.agent.max_command_attempts
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(
                (exception.AgentIsBusy, exception.AgentConnectionFailed)),
            stop=tenacity.stop_after_attempt(attempts),
            wait=tenacity.wait_exponential(
                multiplier=CONF.agent.command_retry_interval),
            before_sleep=_log_retry, reraise=True)
        for attempt in retrying:
            with attempt:
                result = send(endpoint, *args,
                              attempt=(attempt.retry_state.attempt_number,
                                       attempts))
        return result

    def _post(self, endpoint, method, query, body, attempt):
        try:
            response = self._send(endpoint, 'POST', _COMMANDS, query, body)
        except requests.RequestException as exc:
            running = self._still_running(endpoint, method)
            if running is None:
                raise _unreachable(endpoint, method, exc, attempt) from exc
            LOG.info('No answer from %s to %s, which it is running: taken '
                     'as the answer (command %s)', endpoint, method,
                     running['id'])
            return running
        return _read(endpoint, method, response, _COMMAND_RESULT, attempt)

    def _get(self, endpoint, path, schema, attempt):
        what = 'GET ' + path
        try:
            response = self._send(endpoint, 'GET', path)
        except requests.RequestException as exc:
            raise _unreachable(endpoint, what, exc, attempt) from exc
        return _read(endpoint, what, response, schema, attempt)

    def _send(self, endpoint, http_method, path, query=None, body=None):
        query = dict(query or {})
        if endpoint.token:
            query['agent_token'] = endpoint.token
        LOG.debug('%s %s%s to %s', http_method, path,
                  ' (%s)' % body['name'] if body else '', endpoint)
        return self._session.request(
            http_method, endpoint.url + path, params=query, json=body,
            verify=endpoint.verify_ca, timeout=CONF.agent.command_timeout,
            allow_redirects=False)

    def _still_running(self, endpoint, method):
        """The agent's last command, if it is ``method`` and running (one
        request: the agent may well be gone)."""
        try:
            commands = self._get(endpoint, _COMMANDS, _COMMAND_LIST,
                                 attempt=(1, 1))['commands']
        except exception.AgentError as exc:
            LOG.debug('Could not ask %s what it runs: %s', endpoint, exc)
            return None
        last = commands[-1] if commands else None
        if (last is not None and last['command_status'] == RUNNING
                and last['command_name'] == method.partition('.')[2]):
            return last
        return None

    def _wait_for(self, endpoint, method, command_id):
        checks = CONF.agent.command_wait_attempts
        interval = CONF.agent.command_wait_interval
        result = tenacity.Retrying(
            retry=tenacity.retry_if_result(
                lambda result: result['command_status'] == RUNNING),
            stop=tenacity.stop_after_attempt(checks),
            wait=tenacity.wait_fixed(interval),
            retry_error_callback=lambda state: state.outcome.result(),
        )(self.get_command, endpoint, command_id)
        if result['command_status'] == RUNNING:
            raise exception.AgentCommandTimeout(
                agent=str(endpoint), command=method, command_id=command_id,
                checks=checks, interval=interval)
        return result


def _check_step_kind(kind):
    if kind not in STEP_KINDS:
        raise exception.InvalidParameterValue(
            err='The agent has no %r steps; its kinds of steps are: %s'
                % (kind, ', '.join(STEP_KINDS)))


def _node(node):
    if not isinstance(node, dict) or not node.get('uuid'):
        raise exception.InvalidParameterValue(
            err='The node sent to an agent is the dict of its fields, uuid '
                'included; got a %s%s' % (
                    type(node).__name__,
                    ' without uuid' if isinstance(node, dict) else ''))
    return node


def _read(endpoint, what, response, schema, attempt):
    """The decoded answer, or the exception that says what was wrong."""
    status = response.status_code
    where = {'agent': str(endpoint), 'command': what}
    if status in (401, 403):
        raise exception.AgentTokenRefused(
            status=status, why='the token sent is not the one it was handed '
            'at lookup' if endpoint.token else 'no agent token was sent (the '
            'node has none)', **where)
    if status == 409:
        raise exception.AgentIsBusy(error=_fault(endpoint, response),
                                    attempt=attempt[0], attempts=attempt[1],
                                    **where)
    if not 200 <= status < 300:
        raise exception.AgentAPIError(status=status,
                                      error=_fault(endpoint, response),
                                      **where)
    try:
        answer = response.json()
    except ValueError:
        raise exception.AgentAPIError(
            status=status, error='the answer is not JSON: %r'
            % _scrub(response.text[:_EXCERPT], endpoint.token), **where)
    try:
        _VALIDATORS[schema['description']].validate(answer)
    except jsonschema.ValidationError as exc:
        raise exception.AgentAPIError(
            status=status, error='the answer is not %s: %s' % (
                schema['description'], _scrub(exc.message, endpoint.token)),
            **where) from None
    return answer


def _fault(endpoint, response):
    """The agent's faultstring, else the start of the body."""
    try:
        fault = response.json()['faultstring']
    except (ValueError, KeyError, TypeError):
        fault = response.text[:_EXCERPT].strip() or '(no message)'
    return _scrub(fault, endpoint.token)


def _unreachable(endpoint, what, exc, attempt):
    timeout = CONF.agent.command_timeout
    if isinstance(exc, requests.ConnectTimeout):
        reason = 'no connection within %s seconds' % timeout
    elif isinstance(exc, requests.Timeout):
        reason = 'no answer within %s seconds' % timeout
    else:
        reason = '%s: %s' % (type(exc).__name__, _root_cause(exc))
    return exception.AgentConnectionFailed(
        agent=str(endpoint), command=what,
        reason=_scrub(reason, endpoint.token), attempt=attempt[0],
        attempts=attempt[1])


def _root_cause(exc):
    """The socket's words (``Connection refused``) if there are any."""
    cause = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror
        cause = cause.__cause__ or cause.__context__
    return exc


def _log_retry(retry_state):
    LOG.warning('%s Trying again in %.1f seconds.',
                retry_state.outcome.exception(),
                retry_state.next_action.sleep)
