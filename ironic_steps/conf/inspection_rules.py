"""[inspection_rules] options: the rules besides those of the API, and
what of the inspection data the rules see (Ironic's group and names)."""

from oslo_config import cfg

#: ``mask_secrets`` choices, as Ironic's.
MASK_SECRETS = {
    'always': 'every rule sees secrets in the inspection data masked',
    'never': 'every rule sees them in clear',
    'sensitive': 'only rules marked sensitive see them in clear',
}

opts = [
    cfg.StrOpt('built_in_rules',
               mutable=True,
               help='Path to a YAML file holding a list of inspection '
                    'rules applied with those created through the API '
                    '(the same fields; priorities may be negative, and a '
                    'rule without a UUID gets '
                    '00000000-0000-0000-0000-<its index>). Read each time '
                    'a node is inspected.'),
    cfg.StrOpt('mask_secrets',
               default='always',
               choices=list(MASK_SECRETS.items()),
               help='Whether inspection rules see the secrets of the '
                    'inspection data (keys password, auth_token and '
                    'bmc_password) or a mask in their place.'),
]


def register_opts(conf):
    conf.register_opts(opts, group='inspection_rules')
