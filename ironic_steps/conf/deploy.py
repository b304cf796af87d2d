"""[deploy] options: what a deploy hands the node's agent (its token on
virtual media, config drives), the priorities of the agent's own steps,
and where the files machines fetch over HTTP are written."""

from oslo_config import cfg

opts = [
    cfg.URIOpt('http_url',
               schemes=('http', 'https'),
               help='The URL of the web server that serves http_root '
                    '(Ironic\'s name), as a BMC fetches from it. When set, '
                    'a node that boots its agent from virtual media '
                    '(redfish-virtual-media) gets its agent token on a '
                    'second medium, a config image the conductor writes in '
                    'http_root, so that no lookup ever hands the token out. '
                    'Unset: the agent\'s first lookup gets it, as for '
                    'other boot interfaces. From release 0.14.'),
    cfg.StrOpt('http_root',
               default='/httpboot',
               help='The directory a web server serves to the machines and '
                    'their BMCs, at http_url (Ironic\'s name and default). '
                    'The conductor writes there the agents\' config images '
                    '(each under a name nobody can guess, removed when its '
                    'agent is done) and the ipxe boot interface\'s iPXE '
                    'scripts (boot.ipxe, <node uuid>/config and '
                    'pxelinux.cfg/<MAC> links, chained to by the machines\' '
                    'DHCP server).'),
    cfg.IntOpt('file_permission',
               default=0o600, min=0, max=0o777,
               help='Mode of the config images written in http_root '
                    '(Ironic\'s name; Ironic\'s default is 0644, ours '
                    '0600 (384) since each holds an agent token): give the '
                    'web server\'s group read access (0640, 416) when it '
                    'runs as another user.'),
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
]


def register_opts(conf):
    conf.register_opts(opts, group='deploy')
