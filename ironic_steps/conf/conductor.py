"""[conductor] options: workers, node locks and flows."""

from oslo_config import cfg

opts = [
    cfg.IntOpt('workers_pool_size',
               default=100, min=1,
               help='Most deploys, cleanings and other node operations '
                    'this conductor runs at once. When all are busy, new '
                    'requests are refused at once with "no free conductor '
                    'workers" rather than queued.'),
    cfg.IntOpt('node_locked_retry_attempts',
               default=1, min=1,
               help='How many times a request tries to lock a node that '
                    'another operation holds before answering NodeLocked '
                    '(409). With 1, the default in every deployment, the '
                    'request is answered at once and the client retries '
                    '(the openstack CLI and openstacksdk do). More makes '
                    'the thread that runs the request wait between tries '
                    '(Ironic tries 3 times): for the conductors of '
                    'ironic-steps-api only; the all-in-one service refuses '
                    'it, as its requests run on the thread that serves '
                    'every client (see [api] api_workers).'),
    cfg.FloatOpt('node_locked_retry_interval',
                 default=1.0, min=0,
                 help='Seconds between attempts to lock a busy node.'),
    cfg.BoolOpt('automated_clean',
                default=True,
                help='Run the automated clean steps (priority > 0) when a '
                     'node is provided or torn down. When false, nodes '
                     'become available without cleaning.'),
    cfg.URIOpt('api_url',
               schemes=('http', 'https'),
               help='The URL of the API as an agent reaches it (Ironic\'s '
                    'name), written for the agent on virtual media with its '
                    'token (see [deploy] http_url). Unset: [api] '
                    'public_endpoint, else the API\'s own host_ip and port.'),
    cfg.ListOpt('permitted_image_formats',
                default=['raw', 'gpt', 'qcow2', 'iso'],
                help='Image formats an agent may write (Ironic\'s name and '
                     'default; a lookup passes them on to the agent, which '
                     'refuses any other format it finds in an image).'),
    cfg.BoolOpt('disable_deep_image_inspection',
                default=False,
                help='Let the agent write an image without inspecting it '
                     'first (Ironic\'s name). Inspection refuses images '
                     'whose contents do not match their declared format, '
                     'a defence against malicious images: keep it on.'),
    cfg.IntOpt('deploy_callback_timeout',
               default=1800, min=0,
               help='Seconds a deploy step may wait in "wait call-back" '
                    'for its agent before the deploy is failed. 0 waits '
                    'forever.'),
    cfg.IntOpt('clean_callback_timeout',
               default=1800, min=0,
               help='Seconds a clean step may wait in "clean wait" for its '
                    'agent before the cleaning (automated or manual) is '
                    'failed. 0 waits forever.'),
    cfg.IntOpt('service_callback_timeout',
               default=1800, min=0,
               help='Seconds a service step may wait in "service wait" for '
                    'its agent before the servicing is failed. 0 waits '
                    'forever.'),
    cfg.IntOpt('rescue_callback_timeout',
               default=1800, min=0,
               help='Seconds a rescue may wait in "rescue wait" for the '
                    'agent of its rescue environment before it is failed. '
                    '0 waits forever.'),
    cfg.StrOpt('rescue_password_hash_algorithm',
               default='sha256', choices=['sha256', 'sha512'],
               help='How the rescue password is hashed (crypt(3)) before '
                    'the rescue environment\'s agent gets it; the agent '
                    'never sees it in clear.'),
    cfg.IntOpt('inspect_wait_timeout',
               default=1800, min=0,
               help='Seconds an inspection may wait in "inspect wait" for '
                    'the hardware to report before it is failed. 0 waits '
                    'forever.'),
    cfg.IntOpt('check_provision_state_interval',
               default=60, min=1,
               help='Seconds between checks for nodes whose wait for a '
                    'call-back has timed out.'),
    cfg.IntOpt('heartbeat_interval',
               default=5, min=1,
               help='Seconds between the heartbeats a conductor writes to '
                    'the database to show it is alive (on a thread of its '
                    'own), and between its looks for dead conductors.'),
    cfg.IntOpt('heartbeat_timeout',
               default=30, min=1,
               help='A conductor whose last heartbeat is older than this '
                    'many seconds is considered dead: it leaves the hash '
                    'ring, the flows it was running are failed where they '
                    'stood and its waiting nodes go on with their new '
                    'conductor, within heartbeat_timeout + '
                    'heartbeat_interval seconds of its last heartbeat. A '
                    'conductor judges others only once its own heartbeats '
                    'have gone through for this long (after a database '
                    'outage they all look dead).'),
    cfg.IntOpt('hash_ring_reset_interval',
               default=15, min=0,
               help='Seconds a client keeps its view of the live '
                    'conductors before reading it again.'),
    cfg.IntOpt('hash_partition_exponent',
               default=10, min=1, max=16,
               help='Each live conductor takes 2 to this power places on '
                    'the hash ring that spreads nodes over the conductors. '
                    'More places spread nodes more evenly: at 10, the '
                    'share of each of three conductors was within 6.4 '
                    'percent of a third in 40 sets of hostnames, and a '
                    'thousand nodes spread as evenly as random chance '
                    'allows; at 5 (tooz default, and the ring of releases '
                    'before 0.5) it was up to 33 percent off. Places cost '
                    'time when a ring is built, which happens only when a '
                    'conductor comes or goes: about 2 ms per conductor at '
                    '10, four times that at 12. Every API and conductor '
                    'service must use the same value, or they disagree on '
                    'which conductor handles a node; while pinned to a '
                    'release before 0.5, 5 is used whatever this says. '
                    'See benchmarks/README.md.'),
    cfg.IntOpt('max_conductor_wait_step_seconds',
               default=30, min=1, max=1800, mutable=True,
               help='The most seconds a reserved wait step may ask for '
                    '(Ironic\'s name). The node waits without its lock, '
                    'so this bounds how long a plan may idle, not a '
                    'conductor thread; a longer request is refused.'),
    cfg.FloatOpt('step_poll_interval',
                 default=10.0, min=0.05,
                 help='Seconds between two checks of one step that waits '
                      'for out-of-band work (a BIOS change, a RAID volume, '
                      'a firmware update on the BMC); the first check comes '
                      'this long after the step began to wait. The '
                      'conductor looks for due checks five times per '
                      'interval.'),
    cfg.IntOpt('step_poll_batch_size',
               default=20, min=1,
               help='Most checks of polled steps running at once on this '
                    'conductor (each on a worker, holding its node). Due '
                    'checks beyond it are taken in turn by the next looks.'),
    cfg.IntOpt('step_poll_timeout',
               default=1800, min=1,
               help='Seconds a polled step may wait for its out-of-band '
                    'work when its driver does not say; then it fails, '
                    'naming the step and the last status its BMC gave.'),
    cfg.IntOpt('sync_power_state_interval',
               default=60, min=0,
               help='Seconds between two checks that the recorded power '
                    'state of each node this conductor owns is what its '
                    'hardware reports; 0 disables them. Nodes in '
                    'maintenance, locked or in a flow are skipped.'),
    cfg.BoolOpt('enable_health_monitoring',
                default=True, mutable=True,
                help='Read each node\'s hardware health (OK, Warning, '
                     'Critical) from its management interface at each power '
                     'state check (one more BMC request per node and check) '
                     'and show it as the node\'s health (API 1.109), as '
                     'Ironic does. Interfaces that cannot tell are skipped.'),
    cfg.IntOpt('sync_power_state_workers',
               default=8, min=1,
               help='Most power state reads of one check running at '
                    'once (each may wait on a BMC).'),
    cfg.StrOpt('lock_backend',
               default='database', choices=[
                   ('database', 'the node lock is the node\'s reservation '
                                'column alone; a dead holder\'s locks are '
                                'freed by the conductors\' heartbeats'),
                   ('tooz', 'an exclusive lock in the lock service at '
                            'lock_backend_url, with a lease that dies with '
                            'its holder, then the reservation column')],
               help='Where node locks are taken (new in 0.6). Every '
                    'conductor must use the same backend (the API takes '
                    'no locks). See doc/source/admin/lock-backends.rst.'),
    cfg.StrOpt('lock_backend_url',
               secret=True,
               help='The tooz URL of the lock service when lock_backend is '
                    'tooz: redis://HOST:PORT or etcd3+http://HOST:PORT '
                    '(Python packages redis or etcd3gw: '
                    'pip install ironic-steps[redis] or [etcd]).'),
    cfg.IntOpt('lock_backend_timeout',
               default=10, min=2,
               help='With lock_backend tooz: seconds a node lock outlives '
                    'a holder that stopped renewing it (died, or lost the '
                    'lock service); holders renew every half of it. A '
                    'dead conductor\'s nodes can be locked again after at '
                    'most this long. Keep it well under heartbeat_timeout. '
                    'Ignored when lock_backend_url sets lock_timeout.'),
    cfg.IntOpt('step_history_max_entries',
               default=100, min=1,
               help='Step runs kept in the step history of each node '
                    '(GET /v1/nodes/{node}/x-steps/history), across its '
                    'deploys and cleanings; the oldest are dropped.'),
    cfg.FloatOpt('step_progress_interval',
                 default=5.0, min=0,
                 help='Least seconds between two saves of the progress a '
                      'running step reports (drivers.base.report_progress); '
                      'progress reported in between is saved with the '
                      'next save of the node. 0 saves every report.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='conductor')
