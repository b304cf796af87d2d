"""[deploy] options: what a deploy hands the node's agent, the
priorities of the agent's own steps, and where network-boot files are
written."""

from oslo_config import cfg

opts = [
    cfg.IntOpt('configdrive_max_bytes',
               default=64 * 1024 * 1024, min=1,
               help='Largest config drive image accepted by a deploy or '
                    'rebuild (PUT /v1/nodes/{node}/states/provision), in '
                    'bytes once decompressed: a gzipped image is '
                    'decompressed to measure it, an image built from a '
                    'configdrive object is counted before it is built; '
                    'the size behind a URL is not known before the agent '
                    'downloads it. The agent writes the image to a '
                    'partition of at most 64 MiB, the default.'),
    cfg.IntOpt('erase_devices_priority',
               min=0,
               help='Priority of the agent\'s deploy.erase_devices clean '
                    'step (overwrites every disk), in place of the '
                    'priority the agent reports (10 for '
                    'ironic-python-agent). 0 turns it off in automated '
                    'cleaning. Ironic\'s name; unset: the agent\'s.'),
    cfg.IntOpt('erase_devices_metadata_priority',
               min=0,
               help='Priority of the agent\'s deploy.erase_devices_metadata '
                    'clean step (wipes partition tables and signatures), '
                    'in place of the priority the agent reports (99 for '
                    'ironic-python-agent). Ironic\'s name; unset: the '
                    'agent\'s.'),
    cfg.StrOpt('http_root',
               default='/httpboot',
               help='The directory the ipxe boot interface writes its iPXE '
                    'scripts in (boot.ipxe, <node uuid>/config and '
                    'pxelinux.cfg/<MAC> links), which a web server must '
                    'serve to the machines at the URL their DHCP server '
                    'chains iPXE to. Ironic\'s name and default.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='deploy')
