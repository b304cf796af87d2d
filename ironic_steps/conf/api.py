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
                                       '[api] http_basic_auth_user_file.'),
                        ('keystone', 'Keystone tokens, checked by '
                                     'keystonemiddleware\'s auth_token '
                                     'middleware as configured in '
                                     '[keystone_authtoken].')],
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
    cfg.BoolOpt('enable_ssl_api',
                default=False,
                help='Serve the API over HTTPS (Ironic\'s name), with '
                     'cert_file and key_file; the service refuses to start '
                     'if they cannot be used. For the API\'s own server '
                     '(ironic-steps, ironic-steps-api); under a WSGI server, '
                     'or behind a proxy that terminates TLS, leave it off '
                     'and set public_endpoint to the https URL clients use.'),
    cfg.StrOpt('cert_file',
               deprecated_group='ssl',
               help='The API\'s TLS certificate, PEM, followed by its '
                    'chain (with enable_ssl_api). Read from [ssl] cert_file '
                    'too, oslo.service\'s name that older Ironic releases '
                    'read.'),
    cfg.StrOpt('key_file',
               deprecated_group='ssl',
               help='The private key of cert_file, PEM (with '
                    'enable_ssl_api); readable by the service\'s user only. '
                    'Read from [ssl] key_file too.'),
    cfg.BoolOpt('allow_noauth_off_loopback',
                default=False,
                help='Let the API start with auth_strategy = noauth on an '
                     'address other than a loopback one. Without '
                     'authentication every caller is an administrator, so '
                     'by default the service refuses to start that way; '
                     'with this option it starts, and warns at every '
                     'start.'),
    cfg.IntOpt('api_workers',
               min=1,
               help='Threads that run API requests. Default: 1 in the '
                    'all-in-one service, else 4. The server reads every '
                    'request whole on its own I/O thread before a request '
                    'thread runs it, so a slow or silent client never '
                    'holds a request thread. With one, requests run on the '
                    'I/O thread itself, the fastest for the all-in-one '
                    'service, whose requests never wait (a call that finds '
                    'its node locked answers 409 at once, and clients '
                    'retry). ironic-steps-api waits for conductors over the '
                    'message bus, and more threads serve other requests '
                    'meanwhile.'),
    cfg.IntOpt('client_timeout',
               default=10, min=1,
               help='Seconds a client has to send one whole request once '
                    'it has started it (else it is answered 408 and the '
                    'connection closed), to read one response, and that an '
                    'idle keep-alive connection stays open.'),
    cfg.IntOpt('max_connections',
               min=1,
               help='Most client connections the API keeps open. Past it, '
                    'a new client makes room by having the longest-idle '
                    'connection (one with no request under way) answered '
                    '503 and closed; if every connection has a request '
                    'under way, the new client is answered 503 itself. '
                    'Either way the client gets an answer with '
                    'Retry-After, never a reset. Default: half the '
                    'process\'s file descriptor limit (ulimit -n), leaving '
                    'the rest for the database, the message bus and logs.'),
    cfg.IntOpt('backlog',
               min=1,
               help='Connections the kernel queues for the API before it '
                    'accepts them (listen backlog). Default: the kernel\'s '
                    'own limit, net.core.somaxconn (4096 on Linux 5.4 and '
                    'later), which also caps any larger value. On Linux a '
                    'full queue makes new clients wait for retransmissions '
                    '(seconds each), and resets those still waiting after '
                    'about a minute.'),
    cfg.IntOpt('retry_after_seconds',
               default=5, min=0,
               help='Seconds the API tells clients to wait (Retry-After '
                    'header) before retrying a request answered 503 '
                    'because the database or the message broker is '
                    'unreachable, or because the server is at [api] '
                    'max_connections.'),
    cfg.IntOpt('max_json_body_size',
               default=1024, min=4,
               help='Largest request body, in KiB; a larger one is '
                    'answered 413 before it is read. The default is '
                    'Ironic\'s.'),
    cfg.IntOpt('max_json_body_depth',
               default=25, min=8,
               help='Deepest nesting of JSON objects and arrays a request '
                    'body may have (the body itself is level 1); deeper '
                    'ones are answered 400. The default is Ironic\'s.'),
    cfg.IntOpt('max_limit',
               default=1000, min=1,
               help='Most items one collection request returns; larger '
                    '"limit" values are lowered to this.'),
    cfg.StrOpt('http_basic_auth_user_file',
               default='/etc/ironic-steps/htpasswd',
               help='htpasswd file (bcrypt entries) used when '
                    'auth_strategy is http_basic.'),
    cfg.IntOpt('http_basic_cache_seconds',
               default=300, min=0,
               help='With auth_strategy = http_basic: seconds a user name '
                    'and password the file vouched for are taken as good '
                    'without checking them with bcrypt again (a change '
                    'of the file applies at once); 0 checks every '
                    'request.'),
    cfg.IntOpt('http_basic_max_failures',
               default=10, min=0,
               help='With auth_strategy = http_basic: failed logins from '
                    'one address within http_basic_failure_window seconds '
                    'after which it is answered 429 (with Retry-After) '
                    'without checking its passwords; 0 never limits.'),
    cfg.IntOpt('http_basic_failure_window',
               default=60, min=1,
               help='With auth_strategy = http_basic: the seconds over '
                    'which http_basic_max_failures counts.'),
    cfg.ListOpt('reader_users',
                default=[],
                help='With auth_strategy = http_basic: users of the '
                     'htpasswd file who may only read (they get the '
                     '"reader" role). Every other user of the file gets the '
                     '"admin" role and may change nodes.'),
    cfg.StrOpt('http_basic_roles_file',
               help='With auth_strategy = http_basic: a YAML file giving '
                    'users of the htpasswd file their roles and, for a '
                    'project-scoped user, a project: "<user>: {roles: '
                    '[member], project: <project id>}". A user with a '
                    'project sees and changes only the nodes that project '
                    'owns or leases, as a Keystone project-scoped token '
                    'would; one without is a system user (all nodes). '
                    'Users the file does not name keep the role '
                    'reader_users gives them. Read at start.'),
    cfg.IntOpt('ramdisk_heartbeat_timeout',
               default=300, min=1,
               help='Seconds within which an agent must heartbeat, as a '
                    'lookup tells it (Ironic\'s name). The agent '
                    'heartbeats after 30 to 60 per cent of it, and when a '
                    'command it runs ends if its last heartbeat is 5 s '
                    'old.'),
    cfg.StrOpt('public_endpoint',
               help='Public URL of this API, used in links; by default the '
                    'URL the request came in on.'),
    cfg.ListOpt('disallow_deploy_steps',
                default=['vendor.send_raw'], mutable=True,
                help='Deploy steps (interface.step) no deploy may run '
                     '(Ironic\'s name). A deploy whose caller or deploy '
                     'template asks for one is refused (400, naming it); '
                     'a driver\'s step that would run by default is left '
                     'out of the plan (a preview says why). Applied from '
                     'release 0.9 on (not while pinned to an older one).'),
    cfg.ListOpt('disallow_clean_steps',
                default=['vendor.send_raw'], mutable=True,
                help='Clean steps (interface.step) no cleaning may run '
                     '(Ironic\'s name): manual cleaning asking for one is '
                     'refused (400, naming it); automated cleaning leaves '
                     'it out. Applied from release 0.9 on.'),
    cfg.ListOpt('disallow_service_steps',
                default=['vendor.send_raw'], mutable=True,
                help='Service steps (interface.step) no servicing may run '
                     '(Ironic\'s name): a service request asking for one is '
                     'refused (400, naming it).'),
]


def register_opts(conf):
    conf.register_opts(default_opts)
    conf.register_opts(opts, group='api')
