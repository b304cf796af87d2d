"""[fake] options: how the fake-hardware type imitates real machines."""

from oslo_config import cfg

opts = [
    cfg.FloatOpt('step_delay',
                 default=0.0, min=0,
                 help='Seconds each fake step takes, so a demo deploy can '
                      'be watched step by step.'),
    cfg.FloatOpt('agent_delay',
                 default=0.0,
                 help='Seconds the fake agent takes to write an image before '
                      'it heartbeats, resuming the deploy. A negative value '
                      'disables the fake agent: something else must call '
                      'heartbeat for nodes in "wait call-back".'),
    cfg.FloatOpt('firmware_delay',
                 default=0.0, min=0,
                 help='Seconds a firmware update of the fake firmware '
                      'interface takes. 0: done at once; more: the '
                      'firmware.update step waits, polled, as a real BMC\'s '
                      'update task does (the node stays in "clean wait" '
                      'meanwhile).'),
]


def register_opts(conf):
    conf.register_opts(opts, group='fake')
