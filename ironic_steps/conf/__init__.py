"""The configuration object, with every option group registered."""

from oslo_config import cfg

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

CONF = cfg.CONF

agent.register_opts(CONF)
api.register_opts(CONF)
conductor.register_opts(CONF)
database.register_opts(CONF)
default.register_opts(CONF)
deploy.register_opts(CONF)
fake.register_opts(CONF)
inspection_rules.register_opts(CONF)
inspector.register_opts(CONF)
redfish.register_opts(CONF)
