"""OpenStackClient plugin: the ironic-steps extensions of ``openstack
baremetal``.

OpenStackClient finds this module through the ``openstack.cli.extension``
entry point ``baremetal_steps`` and loads its commands from the
``openstack.baremetal_steps.v1`` entry points (see setup.cfg), beside
python-ironicclient's ``openstack baremetal`` commands.  They talk to the
same endpoint, with the same session and credentials: the client they get
is the baremetal client itself, as the extensions live under the Ironic
API's own root (``/v1/nodes/{node}/x-steps/...``).
"""

API_NAME = 'baremetal_steps'
#: OpenStackClient reads the version from this option; the extensions
#: have only one.
API_VERSION_OPTION = 'os_baremetal_steps_api_version'
DEFAULT_API_VERSION = '1'
API_VERSIONS = ('1',)


def make_client(instance):
    """The client of the commands: python-ironicclient's, already set up
    for the baremetal endpoint."""
    return instance.baremetal


def build_option_parser(parser):
    """No global options of our own: the baremetal ones apply."""
    return parser
