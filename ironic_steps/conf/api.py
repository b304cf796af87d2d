"""[api] options and [DEFAULT] auth_strategy: the REST API service."""

from oslo_config import cfg

default_opts = [
    cfg.StrOpt('auth_strategy',
               default='noauth',
               choices=[('noauth', 'No authentication: every caller is an '
                                   'administrator. Keep the API on a '
                                   'loopback address.'),
                        ('http_basic', 'HTTP basic authentication against '
                                       'the htpasswd file in '
                                       '[api] http_basic_auth_user_file.')],
               help='How API callers are authenticated.'),
]

opts = [
    cfg.HostAddressOpt('host_ip',
                       default='127.0.0.1',
                       help='Address the API listens on. The default '
                            'serves this machine only.'),
    cfg.PortOpt('port',
                default=6385,
                help='Port the API listens on.'),
    cfg.IntOpt('api_workers',
               min=1,
               help='Threads of the built-in WSGI server. Default: 1 in the '
                    'all-in-one service listening on a loopback address, '
                    'else 4. Requests are CPU-bound in one interpreter, '
                    'where more threads mostly contend for the GIL: on 2 '
                    'cores one thread answered about 1,400 node GETs a '
                    'second, four about 1,000. The all-in-one service never '
                    'lets a request wait (a call that finds its node locked '
                    'answers 409 at once, and clients retry), so one thread '
                    'serves everyone. But a thread serves one connection at '
                    'a time, and a client that sends its request very '
                    'slowly holds it for up to 10 seconds: where clients '
                    'are not all trusted, several threads keep the API '
                    'answering. ironic-steps-api waits for conductors over '
                    'the message bus, and more threads serve other requests '
                    'meanwhile.'),
    cfg.IntOpt('max_limit',
               default=1000, min=1,
               help='Most items one collection request returns; larger '
                    '"limit" values are lowered to this.'),
    cfg.StrOpt('http_basic_auth_user_file',
               default='/etc/ironic-steps/htpasswd',
               help='htpasswd file (bcrypt entries) used when '
                    'auth_strategy is http_basic.'),
    cfg.ListOpt('reader_users',
                default=[],
                help='With auth_strategy = http_basic: users of the '
                     'htpasswd file who may only read (they get the '
                     '"reader" role). Every other user of the file gets the '
                     '"admin" role and may change nodes.'),
    cfg.StrOpt('public_endpoint',
               help='Public URL of this API, used in links; by default the '
                    'URL the request came in on.'),
]


def register_opts(conf):
    conf.register_opts(default_opts)
    conf.register_opts(opts, group='api')
