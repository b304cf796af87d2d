"""Who may reach an API without authentication: this machine only.

With ``auth_strategy = noauth`` every caller administers every node, so an
API that authenticates nobody serves loopback only, unless the operator
says otherwise with ``[api] allow_noauth_off_loopback`` (warned about at
every start).  The services check the address they bind
(:func:`check_exposure`); an API under a WSGI server, which binds nothing
itself, checks each caller's address instead
(:class:`ironic_steps.api.wsgi.LoopbackOnly`).
"""

import ipaddress

from oslo_log import log

from ironic_steps.common import exception
from ironic_steps.conf import CONF

LOG = log.getLogger(__name__)


def is_loopback(host_ip):
    """Whether ``host_ip`` serves (or is) this machine only."""
    try:
        return (host_ip == 'localhost'
                or ipaddress.ip_address(host_ip).is_loopback)
    except ValueError:
        return False


def open_to_the_network():
    """Whether noauth may serve other machines; warns when it may."""
    if not CONF.api.allow_noauth_off_loopback:
        return False
    LOG.warning('The API serves other machines without authentication '
                '(auth_strategy = noauth, [api] allow_noauth_off_loopback '
                '= true): anyone who reaches it administers every node.')
    return True


def check_exposure(host_ip):
    """Refuse an unauthenticated API on a network address, unless told to.

    Called before the API binds its address.

    :raises UnauthenticatedOnNetwork:
    """
    if CONF.auth_strategy != 'noauth' or is_loopback(host_ip):
        return
    if not open_to_the_network():
        raise exception.UnauthenticatedOnNetwork(host=host_ip)
