"""The agent's token handed over on virtual media, before the agent boots.

An agent's first lookup hands its token out (:mod:`ironic_steps.conductor.
agent_token`): whoever reaches the API first gets it.  A node that boots
its agent from virtual media need not take that race: as Ironic does, the
conductor makes the token before the node boots, and the BMC presents it to
the agent on a second medium beside the deploy ISO.  The lookup then only
ever shows the token masked; the agent presents the one it read, and a
heartbeat with any other is refused before any lock or write.

**The config image**, as ironic-python-agent reads it: an ISO 9660 image
(pycdlib, as :mod:`ironic_steps.common.configdrive` makes them) labelled
``ir-vfd-dev``, holding ``parameters.txt``, one ``key=value`` per line:
``ipa-agent-token`` and ``ipa-api-url`` (:func:`parameters`; the agent
reads them as if given on its kernel command line).

**Where it is served**: written in ``[deploy] http_root`` under a name no
one can guess (the node's UUID and 128 random bits), mode ``[deploy]
file_permission``, for the BMC to fetch from ``[deploy] http_url`` (as
Ironic serves the images it builds).  It is removed when the agent's
ramdisk is cleaned up, and before the next one is written.

**When**: only with ``[deploy] http_url`` set, and from release 0.14 (while
pinned to an earlier release, no token is made ahead: the conductors of
that release hand it out at the first lookup).  Otherwise, or when the BMC
offers no second device, the agent's first lookup gets the token: the race
this closes stays open for that node (and for boot interfaces other than
virtual media), as in Ironic.

This module makes, writes and removes images and mints the token;
inserting the image is the boot interface's business.
"""

import glob
import io
import os
import secrets
from urllib import parse

from oslo_log import log
import pycdlib

from ironic_steps.common import http_root
from ironic_steps.conf import CONF
from ironic_steps.drivers.modules import agent_client
from ironic_steps import release_mappings

LOG = log.getLogger(__name__)

LABEL = 'ir-vfd-dev'
PARAMETERS_FILE = 'parameters.txt'
TOKEN_PARAMETER = 'ipa-agent-token'
API_URL_PARAMETER = 'ipa-api-url'

_ISO_PATH = '/PARAMETE.TXT;1'


def enabled() -> bool:
    """Whether tokens go to agents on virtual media (see the module)."""
    return bool(CONF.deploy.http_url) and not release_mappings.pinned_before(
        CONF, '0.14')


def api_url() -> str:
    """The API's URL as the agent reaches it to look up and heartbeat
    (``[conductor] api_url``), whatever hands it to the agent (this
    config image, an iPXE script's ``ipa-api-url``)."""
    if CONF.conductor.api_url:
        return CONF.conductor.api_url.rstrip('/')
    if CONF.api.public_endpoint:
        return CONF.api.public_endpoint.rstrip('/')
    scheme = 'https' if CONF.api.enable_ssl_api else 'http'
    host = CONF.api.host_ip
    host = '[%s]' % host if ':' in host else host
    return '%s://%s:%d' % (scheme, host, CONF.api.port)


def parameters(token: str) -> dict:
    """What ``parameters.txt`` tells the agent."""
    return {TOKEN_PARAMETER: token, API_URL_PARAMETER: api_url()}


def build(values: dict) -> bytes:
    """The config image holding ``values`` (see the module)."""
    text = ''.join('%s=%s\n' % item for item in values.items()).encode()
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=3, joliet=3, rock_ridge='1.09',
            vol_ident=LABEL, app_ident_str='ironic-steps')
    iso.add_fp(io.BytesIO(text), len(text), _ISO_PATH,
               rr_name=PARAMETERS_FILE, joliet_path='/' + PARAMETERS_FILE)
    out = io.BytesIO()
    iso.write_fp(out)
    iso.close()
    return out.getvalue()


def publish(node) -> str:
    """Make ``node``'s agent token, store it in its
    ``driver_internal_info`` (saved with the node) and write the config
    image holding it; the URL the BMC fetches the image from.

    Call only when :func:`enabled`.
    """
    withdraw(node)
    token = secrets.token_urlsafe(32)
    name = '%s-%s.iso' % (node.uuid, secrets.token_hex(16))
    # Written first: a root that cannot be written (400 naming it) leaves
    # the node without a token no agent could get.
    http_root.publish(name, build(parameters(token)),
                      mode=CONF.deploy.file_permission)
    _store_token(node, token)
    LOG.debug('Node %s: its agent token is on a config image in %s',
              node.uuid, CONF.deploy.http_root)
    return parse.urljoin(CONF.deploy.http_url.rstrip('/') + '/', name)


def mint_token(node) -> str:
    """Make ``node``'s agent token ahead of its agent's boot, for the
    agent to be handed out of band: stored in its
    ``driver_internal_info`` (saved with the node), so every lookup sees it
    masked."""
    token = secrets.token_urlsafe(32)
    _store_token(node, token)
    return token


def _store_token(node, token):
    node.driver_internal_info = dict(node.driver_internal_info or {},
                                     **{agent_client.TOKEN_KEY: token})


def forget_token(node) -> None:
    """Drop the token :func:`publish` made (its image not inserted): the
    agent's first lookup hands one out instead."""
    withdraw(node)
    info = dict(node.driver_internal_info or {})
    info.pop(agent_client.TOKEN_KEY, None)
    node.driver_internal_info = info


def withdraw(node) -> None:
    """Remove ``node``'s config images from ``http_root``, if any."""
    for found in glob.glob(os.path.join(
            glob.escape(CONF.deploy.http_root), '%s-*.iso' % node.uuid)):
        http_root.remove(os.path.basename(found))
