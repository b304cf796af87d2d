"""Option listing for oslo-config-generator (see setup.cfg)."""

from ironic_steps.conf import agent
from ironic_steps.conf import api
from ironic_steps.conf import conductor
from ironic_steps.conf import database
from ironic_steps.conf import default
from ironic_steps.conf import deploy
from ironic_steps.conf import fake
from ironic_steps.conf import inspection_rules
from ironic_steps.conf import inspector
from ironic_steps.conf import redfish


def list_opts():
    return [
        ('DEFAULT', default.opts + api.default_opts),
        ('agent', agent.opts),
        ('api', api.opts),
        ('conductor', conductor.opts),
        ('deploy', deploy.opts),
        ('fake', fake.opts),
        ('inspection_rules', inspection_rules.opts),
        ('inspector', inspector.opts),
        ('redfish', redfish.opts),
    ] + database.list_opts()
