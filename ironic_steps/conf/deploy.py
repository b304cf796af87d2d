"""[deploy] options: what a deploy hands the node's agent."""

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
]


def register_opts(conf):
    conf.register_opts(opts, group='deploy')
