"""[redfish] options: how the conductor talks to BMCs over Redfish."""

import ipaddress

from oslo_config import cfg
from oslo_config import types


def _network(text):
    """An IP network (``10.0.0.0/24``, ``fd00::/64``, one address)."""
    return str(ipaddress.ip_network(text.strip(), strict=False))


class _Network(types.String):
    """An IP network, normalised; a bad one stops the start, named."""

    def __call__(self, value):
        value = super().__call__(value)
        try:
            return _network(value)
        except ValueError as exc:
            raise ValueError('%r is not an IP network: %s'
                             % (value, exc)) from exc


opts = [
    cfg.FloatOpt('connect_timeout',
                 default=10.0, min=0.1,
                 help='Seconds to wait for a BMC to accept a connection.'),
    cfg.FloatOpt('read_timeout',
                 default=60.0, min=0.1,
                 help='Seconds to wait for a BMC to answer a request.'),
    cfg.IntOpt('server_side_retries',
               default=3, min=0,
               help='How many times a request a BMC answered with a server '
                    'error (5xx) is sent again.'),
    cfg.FloatOpt('server_side_retries_delay',
                 default=3.0, min=0,
                 help='Seconds between those tries.'),
    cfg.IntOpt('connection_cache_size',
               default=100, min=1,
               help='Most BMC sessions kept open for reuse; the least '
                    'recently used is closed beyond it.'),
    cfg.FloatOpt('power_state_change_timeout',
                 default=60.0, min=0,
                 help='Seconds to wait for a BMC to report the power state a '
                      'power action asked for, when the caller gives no '
                      'timeout.'),
    cfg.FloatOpt('power_state_poll_interval',
                 default=1.0, min=0.01,
                 help='Seconds between two reads of the power state while '
                      'waiting for it to change.'),
    cfg.IntOpt('firmware_update_timeout',
               default=3600, min=1,
               help='Seconds a firmware update (all its images) may take '
                    'before the update_firmware step fails. Other redfish '
                    'steps that wait for the BMC (BIOS, RAID) use '
                    '[conductor] step_poll_timeout.'),
    cfg.ListOpt('allowed_bmc_networks',
                item_type=_Network(type_name='IP network'), default=[],
                help='The IP networks BMCs may be on (e.g. '
                     '10.20.0.0/16,fd00:20::/48). Empty: any. When set, a '
                     'node whose redfish_address is an IP address outside '
                     'them is refused by the API (400), and a host name is '
                     'resolved by the conductor before each use of the BMC, '
                     'every address it resolves to having to be inside '
                     'them: so whoever may change nodes cannot make the '
                     'conductor send BMC credentials and requests to '
                     'another network.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='redfish')
