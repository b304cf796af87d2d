"""[DEFAULT] options: identity of this service and where it keeps state."""

import os
import socket

from oslo_config import cfg

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
                default=['fake-hardware'],
                help='Hardware types nodes may use. Each is looked up by '
                     'name among the ironic_steps.hardware.types entry '
                     'points, so an installed out-of-tree package can add '
                     'its own.'),
]


def register_opts(conf):
    conf.register_opts(opts)
