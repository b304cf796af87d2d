"""[DEFAULT] options: identity of this service and where it keeps state."""

import os
import socket

from oslo_config import cfg

from ironic_steps import release_mappings

opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='localhost',
               help='Name of this conductor. It tags the node reservations '
                    'this service holds, so it must be unique among the '
                    'conductors sharing one database.'),
    cfg.StrOpt('state_path',
               default=os.path.join(os.path.expanduser('~'), '.local',
                                    'share', 'ironic-steps'),
               sample_default='~/.local/share/ironic-steps',
               help='Directory for state this service writes, such as the '
                    'embedded SQLite database.'),
    cfg.ListOpt('enabled_hardware_types',
                default=['fake-hardware', 'redfish'],
                help='Hardware types nodes may use. Each is looked up by '
                     'name among the ironic_steps.hardware.types entry '
                     'points, so an installed out-of-tree package can add '
                     'its own.'),
    cfg.ListOpt('enabled_firmware_interfaces',
                default=['fake', 'no-firmware', 'redfish'],
                help='Firmware interfaces nodes may use (Ironic\'s option; '
                     'its default enables only no-firmware). A node\'s '
                     'firmware_interface must be one of them; a node that '
                     'names none gets default_firmware_interface, or else '
                     'the first its hardware type supports that is '
                     'enabled.'),
    cfg.StrOpt('default_firmware_interface',
               help='The firmware interface a node gets when it names '
                    'none, if its hardware type supports it and it is in '
                    'enabled_firmware_interfaces. Unset: the first of its '
                    'hardware type\'s that is enabled (fake-hardware: '
                    'fake; redfish: redfish).'),
    cfg.StrOpt('rpc_transport',
               default='none',
               choices=[('none', 'The API and the conductor run in one '
                                 'process (ironic-steps) and call each other '
                                 'directly.'),
                        ('oslo', 'Separate ironic-steps-api and '
                                 'ironic-steps-conductor processes talk '
                                 'through oslo.messaging, e.g. RabbitMQ '
                                 'named by [DEFAULT] transport_url.')],
               help='How the API reaches the conductors.'),
    cfg.IntOpt('rpc_connect_retries',
               default=1, min=-1,
               help='With rpc_transport = oslo: how many times a call to a '
                    'conductor retries reaching the message broker before '
                    'it fails, the API then answering 503 with '
                    'Retry-After. Tries are [oslo_messaging_rabbit] '
                    'rabbit_retry_interval + kombu_reconnect_delay apart '
                    '(2 s by default; the interval grows by '
                    'rabbit_retry_backoff from the second retry on). -1 '
                    'retries until the broker is back, holding the API '
                    'request meanwhile (oslo.messaging\'s default).'),
    cfg.StrOpt('pin_release_version',
               choices=release_mappings.RELEASES,
               help='During a rolling upgrade, the release every running '
                    'service must still understand. A pinned service caps '
                    'the API microversion, the conductor RPC version and '
                    'the object versions it sends and saves at that '
                    "release's, and a conductor pinned to a release before "
                    'deploy steps deploys the legacy way. Unset it once '
                    'every service runs the new release.'),
]


def register_opts(conf):
    conf.register_opts(opts)
