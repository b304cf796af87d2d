"""/v1/heartbeat/{node}: an agent reports in, resuming a waiting flow.

Open to callers without credentials (agents have none; see the
``baremetal:node:ipa_heartbeat`` policy): the agent proves itself with the
agent token its lookup handed out (``agent_token``, 1.62), which the
conductor checks.  The conductor decides what the heartbeat means for the
node; the answer is 202 either way, or 400 for a wrong or missing token.

From 1.72 a heartbeat may carry ``agent_status`` (``start``, ``end`` or
``error``) and ``agent_status_message``, which Ironic's anaconda deploy
reads.  No deploy interface here acts on them: they are checked and, once
the conductor accepted the heartbeat's token, logged (an ``error`` as a
warning, with its message escaped and cut to 500 characters), so an
operator sees what the agent said and nobody else can write there.
"""

import ipaddress
import urllib.parse

import flask
from oslo_log import log

from ironic_steps.api import body
from ironic_steps.api import errors
from ironic_steps.api import node_ident
from ironic_steps.api import policy
from ironic_steps.api import responses
from ironic_steps.api import versions
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)

blueprint = flask.Blueprint('heartbeat', __name__,
                            url_prefix='/v1/heartbeat')

_ENDPOINT_VERSION = (1, versions.MINOR_22_LOOKUP_HEARTBEAT)
_AGENT_VERSION_VERSION = (1, versions.MINOR_36_AGENT_VERSION_HEARTBEAT)
_AGENT_TOKEN_VERSION = (1, versions.MINOR_62_AGENT_TOKEN)
_AGENT_VERIFY_CA_VERSION = (1, versions.MINOR_68_AGENT_VERIFY_CA)
_AGENT_STATUS_VERSION = (1, versions.MINOR_72_HEARTBEAT_STATUS)
#: What ``agent_status`` may say, as in Ironic.
AGENT_STATUSES = ('start', 'end', 'error')


def _string(data, key):
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise errors.InvalidField(field=key, reason='%r is not a string'
                                  % (value,))
    return value


def _check_callback_url(url, source):
    """The agent's URL must be http(s) on the address it heartbeats from
    (or in ``[agent] callback_networks``): the conductor sends it commands
    with the node's agent token."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ('http', 'https') or not parts.hostname or (
            port is not None and not 0 < port < 65536) or parts.query:
        raise errors.InvalidField(
            field='callback_url', reason='it must be an http or https URL '
            'with a host (and a port), such as http://10.0.0.5:9999')
    if CONF.agent.require_tls and parts.scheme != 'https':
        raise errors.InvalidField(
            field='callback_url', reason='it must be an https URL: [agent] '
            'require_tls is set')
    try:
        host = ipaddress.ip_address(parts.hostname)
    except ValueError:
        host = None
    allowed = [ipaddress.ip_network(network, strict=False)
               for network in CONF.agent.callback_networks]
    if host is None or not (
            (source and host == ipaddress.ip_address(source))
            or any(host in network for network in allowed)):
        raise errors.InvalidField(
            field='callback_url', reason='its host must be the address '
            'the heartbeat comes from (%s), or in [agent] '
            'callback_networks' % source)


#: The largest certificate an agent may send (a PEM chain of a few).
_MAX_CERTIFICATE = 16 * 1024


def _check_certificate(certificate):
    """What the conductor keeps as the agent's CA must look like one."""
    if (len(certificate) > _MAX_CERTIFICATE or not certificate.lstrip()
            .startswith('-----BEGIN CERTIFICATE-----')):
        raise errors.InvalidField(
            field='agent_verify_ca', reason='it must be a PEM certificate '
            '("-----BEGIN CERTIFICATE-----...") of at most %d bytes'
            % _MAX_CERTIFICATE)


@blueprint.post('/<ident>')
def heartbeat(ident):
    version = flask.g.version
    versions.check_endpoint(version, _ENDPOINT_VERSION, flask.request.path)
    policy.authorize('baremetal:node:ipa_heartbeat', flask.g.context)
    data = body.json_object(('callback_url', 'agent_version', 'agent_token',
                             'agent_verify_ca', 'agent_status',
                             'agent_status_message'), default={})
    callback_url = _string(data, 'callback_url')
    if callback_url is not None:
        _check_callback_url(callback_url, flask.request.remote_addr)
    values = {}
    for key, needed in (('agent_version', _AGENT_VERSION_VERSION),
                        ('agent_token', _AGENT_TOKEN_VERSION),
                        ('agent_verify_ca', _AGENT_VERIFY_CA_VERSION),
                        ('agent_status', _AGENT_STATUS_VERSION),
                        ('agent_status_message', _AGENT_STATUS_VERSION)):
        values[key] = _string(data, key)
        if values[key] is not None and version < needed:
            raise errors.FeatureNotInVersion(
                feature='%s in a heartbeat' % key,
                needed=versions.to_string(needed),
                version=versions.to_string(version))
    if values['agent_verify_ca'] is not None:
        _check_certificate(values['agent_verify_ca'])
    status = values.pop('agent_status')
    status_message = values.pop('agent_status_message')
    if status is not None and status not in AGENT_STATUSES:
        raise errors.InvalidField(
            field='agent_status', reason='%r is none of %s' % (
                status, ', '.join(AGENT_STATUSES)))
    # Agents heartbeat often, by UUID: the conductor finds the node.
    node_uuid = node_ident.get_uuid(flask.g.context, ident, version)
    flask.g.rpcapi.heartbeat(flask.g.context, node_uuid,
                             callback_url=callback_url, **values)
    # Only once the conductor took the heartbeat (its token checked): an
    # anonymous caller must not write warnings into the operator's log.
    if status is not None:
        _log_status(node_uuid, status, status_message)
    return responses.empty(202)


#: How much of an agent's status message the log keeps.
_MAX_LOGGED_MESSAGE = 500


def _log_status(node_uuid, status, message):
    # Escaped, so that the agent's text cannot forge log lines.
    shown = (message or '')[:_MAX_LOGGED_MESSAGE].encode(
        'unicode_escape').decode('ascii')
    LOG.log(log.WARNING if status == 'error' else log.INFO,
            'The agent of node %s reports status %s%s', node_uuid, status,
            ': %s' % shown if shown else '')
