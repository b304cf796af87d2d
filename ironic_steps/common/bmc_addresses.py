"""Which BMC a node may point at, and where on it.

A node's ``driver_info`` says where its BMC is (``redfish_address``) and
which System of it the node is (``redfish_system_id``).  Whoever may
change a node may thus make the conductor send the BMC's credentials, and
its requests, wherever these say.  The rules:

* an address is an ``http(s)`` URL of a host, or a host name (``https``
  is then assumed), with no credentials in it: they belong in
  ``redfish_username`` and ``redfish_password``, which are write-only,
  where a URL is shown (:func:`parse_address`);
* with ``[redfish] allowed_bmc_networks`` set, the host must be in one of
  those networks: an IP address is checked as it is, a host name by every
  address it resolves to (:func:`check_host`);
* a System is an id or a path under ``/redfish/v1/Systems/``: not a URL
  of another host, not a path that climbs out with ``..``, spelt plainly
  or percent-encoded (:func:`system_path`).

The API checks a ``driver_info`` when it is written
(:func:`check_driver_info`: 400, naming the field), without resolving
names (a DNS lookup would hold the API's thread); the redfish driver
checks again each time it reads the node's BMC parameters, names
resolved, so a rule added later, or a name that now resolves elsewhere,
applies to every node.  Clearing the password of a BMC whose address
changes is the JSON patch's business
(:func:`ironic_steps.api.node_patch.forget_moved_credentials`).
"""

import ipaddress
import posixpath
import socket
import urllib.parse

from ironic_steps.common import exception
from ironic_steps.conf import CONF

ADDRESS = 'redfish_address'
SYSTEM_ID = 'redfish_system_id'
SYSTEMS_PREFIX = '/redfish/v1/Systems/'
#: What no System path holds: a query, a fragment, a backslash (read as
#: a slash by some servers), a percent-encoded dot or slash.
_NOT_IN_A_PATH = ('?', '#', '\\', '%2e', '%2f', '%5c')


def _invalid(field, reason):
    return exception.InvalidParameterValue(
        err='driver_info/%s %s' % (field, reason))


def parse_address(address):
    """(the BMC's URL, its host) from a ``redfish_address`` string.

    :raises InvalidParameterValue: not an http(s) URL of a host, or one
        carrying credentials (never quoted).
    """
    if '://' not in address:
        address = 'https://' + address
    # Quoted unless it may hold a password.
    not_a_url = _invalid(ADDRESS, '%s is not an http(s) URL of a BMC' % (
        repr(address) if '@' not in address else 'the value'))
    try:
        parsed = urllib.parse.urlsplit(address)
    except ValueError:
        raise not_a_url from None
    if '@' in parsed.netloc:
        raise _invalid(ADDRESS, 'must not carry credentials (user:password@'
                       'host); give them in redfish_username and '
                       'redfish_password, which are never shown')
    try:
        host = parsed.hostname
        if parsed.port is None and parsed.netloc.endswith(':'):
            host = None   # "host:" and no port
    except ValueError:   # a port that is no number
        host = None
    if parsed.scheme not in ('http', 'https') or not host:
        raise not_a_url
    return address.rstrip('/'), host


def _allowed_networks():
    return [ipaddress.ip_network(network, strict=False)
            for network in CONF.redfish.allowed_bmc_networks]


def _outside(address, networks):
    ip = ipaddress.ip_address(address.partition('%')[0])
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not any(ip in network for network in networks)


def _literal_ip(host):
    try:
        ipaddress.ip_address(host.partition('%')[0])
    except ValueError:
        return False
    return True


def check_host(host, resolve=True):
    """Refuse a BMC host outside ``[redfish] allowed_bmc_networks`` (no
    list: every host is allowed).

    :param resolve: whether a host name is resolved and each of its
        addresses checked (the conductor); if not, only an IP address is
        checked (the API).
    :raises InvalidParameterValue: naming the host and the networks.
    """
    networks = _allowed_networks()
    if not networks:
        return
    if _literal_ip(host):
        addresses = [host]
    elif not resolve:
        return
    else:
        try:
            addresses = sorted({info[4][0] for info in socket.getaddrinfo(
                host, None, type=socket.SOCK_STREAM)})
        except OSError as exc:
            raise _invalid(ADDRESS, 'names %s, which does not resolve (%s), '
                           'so it cannot be checked against [redfish] '
                           'allowed_bmc_networks' % (host, exc)) from exc
    outside = [address for address in addresses
               if _outside(address, networks)]
    if outside:
        raise _invalid(ADDRESS, 'names %s (%s), outside the networks BMCs '
                       'may be on ([redfish] allowed_bmc_networks: %s)' % (
                           host, ', '.join(outside),
                           ', '.join(map(str, networks))))


def system_path(system_id):
    """The Redfish path of a ``redfish_system_id`` string: an id, or a
    path under :data:`SYSTEMS_PREFIX`.

    :raises InvalidParameterValue: for anything else.
    """
    refused = _invalid(SYSTEM_ID, 'must name a System of the BMC: an id, or '
                       'a path under %s; got %r' % (SYSTEMS_PREFIX,
                                                    system_id))
    if not system_id.strip('/'):
        raise _invalid(SYSTEM_ID, 'must be a non-empty string, got %r'
                       % (system_id,))
    lowered = system_id.lower()
    if '://' in system_id or system_id.startswith('//') or any(
            text in lowered for text in _NOT_IN_A_PATH):
        raise refused
    path = system_id if system_id.startswith('/') else (
        SYSTEMS_PREFIX + system_id)
    # ../ would climb out of the Systems (to a session, an account...).
    if not posixpath.normpath(path).startswith(SYSTEMS_PREFIX):
        raise refused
    return path


def check_driver_info(driver_info):
    """``driver_info`` as the API takes it: its BMC fields, where they are
    strings, follow the rules above (IP addresses checked against the
    allowed networks, names not resolved).  Missing or mistyped fields are
    the driver's to report (``validate``).

    :raises InvalidParameterValue: (400) naming the field.
    """
    if not driver_info:
        return driver_info
    address = driver_info.get(ADDRESS)
    if isinstance(address, str) and address:
        _url, host = parse_address(address)
        check_host(host, resolve=False)
    system_id = driver_info.get(SYSTEM_ID)
    if isinstance(system_id, str):
        system_path(system_id)
    return driver_info
