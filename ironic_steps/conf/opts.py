"""Option listing for oslo-config-generator (see setup.cfg)."""

from ironic_steps.conf import api
from ironic_steps.conf import conductor
from ironic_steps.conf import database
from ironic_steps.conf import default
from ironic_steps.conf import fake


def list_opts():
    return [
        ('DEFAULT', default.opts + api.default_opts),
        ('api', api.opts),
        ('conductor', conductor.opts),
        ('fake', fake.opts),
    ] + database.list_opts()
