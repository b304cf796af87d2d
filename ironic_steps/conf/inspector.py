"""[inspector] options: what an inspection records besides the inventory
(Ironic's group and names; only those ironic-steps reads)."""

from oslo_config import cfg

#: Which NICs of an inspected inventory become ports, as Ironic's
#: ``[inspector] add_ports`` choices.
ADD_PORTS = {
    'all': 'every NIC with a MAC address',
    'active': 'the NICs that had an IP address when inspected',
    'pxe': 'only the NIC the node booted from (every NIC when the '
           'inventory does not say which: an out-of-band inspection)',
    'disabled': 'none: ports are created by hand',
}

opts = [
    cfg.StrOpt('add_ports',
               default='pxe',
               choices=list(ADD_PORTS.items()),
               help='Which MAC addresses of an inspected inventory get a '
                    'port on the node (one it has already is kept). A MAC '
                    'address another node\'s port has is left alone.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='inspector')
