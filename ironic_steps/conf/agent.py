"""[agent] options: how the conductor talks to a node's deploy agent.

Names and defaults are Ironic's [agent] options, so an Ironic
configuration file keeps its meaning here.  The command options are read
by :mod:`ironic_steps.drivers.modules.agent_client`; the deploy options
are declared for the deploy interfaces that will use them.
"""

from oslo_config import cfg

opts = [
    cfg.FloatOpt('command_timeout',
                 default=60.0, min=0.01,
                 help='Seconds to wait for the agent to answer one request '
                      '(its connection included). A command asked to wait '
                      '(wait=true) must finish within it. A long timeout '
                      'holds a worker and the node\'s lock while an '
                      'unreachable agent is waited for.'),
    cfg.IntOpt('max_command_attempts',
               default=3, min=1,
               help='Most times one request to the agent is sent when the '
                    'agent cannot be reached, does not answer in time, or '
                    'answers that it is busy with another command (HTTP '
                    '409). A refused agent token is never sent again.'),
    cfg.FloatOpt('command_retry_interval',
                 default=1.0, min=0,
                 help='Seconds before the second of those attempts; each '
                      'later one waits twice as long as the one before.'),
    cfg.IntOpt('command_wait_attempts',
               default=100, min=1,
               help='Most times the status of a running agent command is '
                    'read while waiting for it to finish, before the wait '
                    'fails.'),
    cfg.FloatOpt('command_wait_interval',
                 default=6.0, min=0,
                 help='Seconds between two reads of the status of a running '
                      'agent command.'),
    # Declared for the deploy interfaces that will read them.
    cfg.ListOpt('callback_networks',
                default=[],
                help='Networks (CIDR, such as 10.20.0.0/16) an agent\'s '
                     'callback URL may point into. An agent\'s heartbeat '
                     'names the URL the conductor then sends commands to, '
                     'with the node\'s agent token; by default it must be '
                     'the address the heartbeat comes from, so a heartbeat '
                     'cannot send the conductor (and the token) to another '
                     'host. Set it when agents reach the API through a '
                     'proxy or NAT.'),
    cfg.StrOpt('image_download_source',
               default='http',
               choices=[('http', 'the agent downloads the image from the '
                                 'URL in instance_info/image_source')],
               help='Where the agent downloads the instance image from. '
                    'Ironic also has swift and local (the conductor caches '
                    'and serves the image); ironic-steps has neither, and '
                    'refuses to start with them rather than ignore them.'),
    cfg.BoolOpt('stream_raw_images',
                default=True,
                mutable=True,
                help='Whether the agent writes a raw image straight to the '
                     'disk as it downloads it, rather than first copying it '
                     'into memory (tmpfs).'),
    cfg.StrOpt('deploy_logs_collect',
               default='never',
               choices=[('never', 'the agent\'s logs stay on the node')],
               help='When the conductor collects the agent\'s logs from a '
                    'node it deploys. Ironic also has always and '
                    'on_failure; ironic-steps does not collect them yet, '
                    'and refuses to start with those rather than ignore '
                    'them (the agent\'s own error is in last_error).'),
    cfg.BoolOpt('require_tls',
                default=False,
                mutable=True,
                help='Whether an agent must give an https:// callback URL '
                     'in its heartbeat (Ironic\'s name and default); a '
                     'heartbeat with an http:// one is then refused.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='agent')
