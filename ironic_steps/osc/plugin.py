"""What OpenStackClient loads: the plugin's name, version and client.

The commands of this plugin call ironic-steps' extension paths
(``/v1/nodes/{node}/x-steps/...``) on the Bare Metal endpoint the
``baremetal`` commands use, with the same session (authentication,
``--os-endpoint``, TLS options).
"""

from ironic_steps.osc import client

API_NAME = 'baremetal_steps'
API_VERSION_OPTION = 'os_baremetal_steps_api_version'
#: The plugin has one version: its commands are those of group
#: ``openstack.baremetal_steps.v1``.
DEFAULT_API_VERSION = '1'
API_VERSIONS = {'1': 'ironic_steps.osc.client.StepsClient'}


def make_client(instance):
    """The client of the plugin's commands (``client_manager.baremetal_steps``)."""
    region_name = getattr(instance, 'region_name', None)
    endpoint = instance.get_endpoint_for_service_type(
        'baremetal', region_name=region_name, interface=instance.interface)
    return client.StepsClient(instance.session, endpoint)


def build_option_parser(parser):
    """The plugin's global option: only its version, which has one value."""
    parser.add_argument(
        '--os-baremetal-steps-api-version',
        metavar='<version>', default=DEFAULT_API_VERSION,
        choices=sorted(API_VERSIONS),
        help='Version of the ironic-steps extension commands (only "1").')
    return parser
