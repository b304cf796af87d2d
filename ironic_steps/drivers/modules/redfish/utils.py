"""Reaching a node's BMC over Redfish: its driver_info, sessions, errors.

Every redfish interface goes through here:

* :func:`parse_driver_info` checks ``driver_info`` and names the field
  that is wrong (``GET /v1/nodes/{node}/validate`` shows it); where the
  BMC may be, and which of its paths is a System, are
  :mod:`ironic_steps.common.bmc_addresses`' rules;
* :func:`get_system` returns the node's sushy System over a session that
  is kept and reused: a BMC allows few sessions, and logging in costs
  more than most requests.  At most ``[redfish] connection_cache_size``
  sessions are kept, the least recently used closed beyond it; every
  request has the connect and read timeouts of ``[redfish]``;
* :func:`bmc_call` turns what sushy raises into :class:`BMCError`, whose
  message is the BMC's own, with the password taken out should it ever
  appear.
"""

import collections
import contextlib
import os
import threading

from oslo_log import log
from oslo_utils import strutils
import sushy

from ironic_steps.common import bmc_addresses
from ironic_steps.common import exception
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)

REQUIRED_PROPERTIES = {
    'redfish_address': 'The URL of the BMC: http(s)://host[:port], or a '
                       'host name (https is assumed). Required.',
}
OPTIONAL_PROPERTIES = {
    'redfish_system_id': 'The Redfish path or id of the node\'s System, '
                         'e.g. /redfish/v1/Systems/1. Optional when the BMC '
                         'has a single System.',
    'redfish_username': 'User name on the BMC. Optional.',
    'redfish_password': 'Password on the BMC. Optional; never shown.',
    'redfish_verify_ca': 'Whether to verify the BMC\'s TLS certificate '
                         '(true or false), or the path of the CA bundle to '
                         'verify it with. Optional, default true.',
}
COMMON_PROPERTIES = {**REQUIRED_PROPERTIES, **OPTIONAL_PROPERTIES}


def _address(driver_info):
    address = driver_info.get('redfish_address')
    if not address:
        raise exception.MissingParameterValue(
            err='driver_info/redfish_address is missing: the URL of the '
                'node\'s BMC is needed')
    if not isinstance(address, str):
        raise exception.InvalidParameterValue(
            err='driver_info/redfish_address must be a string URL, got a %s'
                % type(address).__name__)
    url, host = bmc_addresses.parse_address(address)
    # Each time: a name may resolve elsewhere now, the networks may be new.
    bmc_addresses.check_host(host)
    return url


def _system_id(driver_info):
    system_id = driver_info.get('redfish_system_id')
    if system_id is None:
        return None
    if not isinstance(system_id, str):
        raise exception.InvalidParameterValue(
            err='driver_info/redfish_system_id must be a non-empty string, '
                'got %r' % (system_id,))
    return bmc_addresses.system_path(system_id)


def _verify_ca(driver_info):
    verify = driver_info.get('redfish_verify_ca', True)
    if isinstance(verify, bool):
        return verify
    if isinstance(verify, str):
        as_bool = strutils.bool_from_string(verify, default=None)
        if as_bool is not None:
            return as_bool
        if os.path.exists(verify):
            return verify
        raise exception.InvalidParameterValue(
            err='driver_info/redfish_verify_ca must be true, false or the '
                'path of a CA bundle; %r is neither a boolean nor an '
                'existing file' % (verify,))
    raise exception.InvalidParameterValue(
        err='driver_info/redfish_verify_ca must be a boolean or a path, got '
            'a %s' % type(verify).__name__)


def _credential(driver_info, field):
    value = driver_info.get(field)
    if value is not None and not isinstance(value, str):
        # Named by type only: never echo a credential.
        raise exception.InvalidParameterValue(
            err='driver_info/%s must be a string, got a %s'
                % (field, type(value).__name__))
    return value


def parse_driver_info(node):
    """The BMC parameters of ``node``, checked.

    :returns: dict with address, system_id, username, password, verify_ca.
    :raises MissingParameterValue: or InvalidParameterValue, naming the
        ``driver_info`` field.
    """
    info = node.driver_info or {}
    return {'address': _address(info), 'system_id': _system_id(info),
            'username': _credential(info, 'redfish_username'),
            'password': _credential(info, 'redfish_password'),
            'verify_ca': _verify_ca(info)}


class BMCInterface:
    """What every redfish interface shares: the node's BMC, from
    ``driver_info``, is all it needs to be valid."""

    def get_properties(self):
        return dict(COMMON_PROPERTIES)

    def validate(self, task):
        parse_driver_info(task.node)


def _session_key(params):
    return (params['address'], params['username'], params['password'],
            str(params['verify_ca']))


class _Sessions:
    """Open BMC sessions by the parameters that open them, bounded."""

    def __init__(self):
        self._lock = threading.Lock()
        self._clients = collections.OrderedDict()

    def get(self, params):
        key = _session_key(params)
        with self._lock:
            client = self._clients.pop(key, None)
            if client is not None:
                self._clients[key] = client
                return client
        client = sushy.Sushy(
            params['address'], username=params['username'],
            password=params['password'], verify=params['verify_ca'],
            connect_timeout=CONF.redfish.connect_timeout,
            read_timeout=CONF.redfish.read_timeout,
            server_side_retries=CONF.redfish.server_side_retries,
            server_side_retries_delay=CONF.redfish.server_side_retries_delay)
        with self._lock:
            self._clients[key] = client
            while len(self._clients) > CONF.redfish.connection_cache_size:
                _key, old = self._clients.popitem(last=False)
                _close(old)
        return client

    def forget(self, params):
        """Drop a session the BMC no longer honours (next call logs in)."""
        with self._lock:
            client = self._clients.pop(_session_key(params), None)
        if client is not None:
            _close(client)

    def clear(self):
        with self._lock:
            clients, self._clients = list(self._clients.values()), (
                collections.OrderedDict())
        for client in clients:
            _close(client)


def _close(client):
    with contextlib.suppress(Exception):
        client.close()


SESSIONS = _Sessions()


def _scrub(text, params):
    password = params.get('password')
    if password:
        text = text.replace(password, '***')
    return text


@contextlib.contextmanager
def bmc_call(node, operation, params=None):
    """Run BMC requests; sushy's errors become :class:`BMCError`.

    :param operation: what is being done, for the message ("power on").
    """
    params = params or parse_driver_info(node)
    try:
        yield
    except sushy.exceptions.AccessError as exc:
        SESSIONS.forget(params)
        raise exception.BMCError(
            node=node.uuid, operation=operation,
            error='the BMC refused the credentials (HTTP %s)'
                  % getattr(exc, 'status_code', '401')) from None
    except sushy.exceptions.SushyError as exc:
        unavailable = isinstance(exc, (sushy.exceptions.ConnectionError,
                                       sushy.exceptions.ServerSideError))
        if isinstance(exc, sushy.exceptions.ConnectionError):
            SESSIONS.forget(params)
        error = (exception.BMCUnavailable if unavailable
                 else exception.BMCError)
        raise error(node=node.uuid, operation=operation,
                    error=_scrub(_message(exc), params)) from None


def _message(exc):
    # sushy's messages of HTTP errors carry the BMC's own extended info;
    # keep the first, most useful part of very long ones.
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 500 else text[:497] + '...'


def get_client(node, params=None):
    return SESSIONS.get(params or parse_driver_info(node))


def get_system(node, operation='read the system'):
    """The node's sushy System.

    :raises BMCError: naming ``operation`` if the BMC cannot give it.
    """
    params = parse_driver_info(node)
    with bmc_call(node, operation, params):
        return get_client(node, params).get_system(params['system_id'])


#: Task states that end a BMC task without doing its work.
_TASK_FAILED = frozenset(['Exception', 'Killed', 'Cancelled', 'Interrupted'])


def _task_text(doc):
    state = doc.get('TaskState') or 'unknown state'
    percent = doc.get('PercentComplete')
    messages = '; '.join(message.get('Message', '')
                         for message in doc.get('Messages') or ()
                         if isinstance(message, dict) and message.get(
                             'Message'))
    return '%s task %s%s%s' % (
        doc.get('Name') or 'BMC', state,
        ' %s%%' % percent if percent is not None else '',
        ': %s' % messages if messages else '')


def check_task(node, monitor_uri, operation):
    """Ask a BMC about the task behind ``monitor_uri`` once.

    :returns: (finished, status text).
    :raises BMCError: with the task's own messages, if it ended without
        doing its work.
    """
    params = parse_driver_info(node)
    with bmc_call(node, operation, params):
        monitor = get_client(node, params).get_task_monitor(monitor_uri)
        response = monitor.response
        processing = monitor.is_processing
        try:
            doc = response.json() if response.content else {}
        except ValueError:
            doc = {}
    if not isinstance(doc, dict):
        doc = {}
    text = _scrub(_task_text(doc), params)
    if processing:
        return False, text
    if doc.get('TaskState') in _TASK_FAILED:
        raise exception.BMCError(node=node.uuid, operation=operation,
                                 error=text)
    return True, text
