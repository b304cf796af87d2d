"""API microversions: which ones exist and which one a request gets.

A request names its microversion in ``X-OpenStack-Ironic-API-Version: 1.44``
or ``OpenStack-API-Version: baremetal 1.44``; ``latest`` means the maximum,
no header means the minimum.  :class:`VersionMiddleware` settles the
version before anything else runs, refuses a malformed header (400) or a
version outside the range (406), and stamps every response with the range
and the version used, so a client can always negotiate.

Version numbers follow Ironic's, so that its clients work unchanged, and
so does the minimum, 1.1: a client that negotiates version V may rely on
what Ironic's node API has at V, as far as ironic-steps implements it
(api-ref lists what it does not).  Versions only *add* things, each gated
by a table in the module that owns it (node fields in :mod:`node_view`,
filters and endpoints in the controllers).

Changelog (what each version means here; Ironic's meaning, as far as we
implement it):

* 1.1 - minimum: nodes, drivers, node states, power, maintenance,
  validate.
* 1.2 - ``available`` is shown as such (before: null, Ironic's NOSTATE).
* 1.3 - node ``driver_internal_info`` field.
* 1.4 - the ``manage`` and ``provide`` provision targets.
* 1.5 - node ``name`` field; names identify nodes in URLs.
* 1.6 - the ``inspect`` provision target; node ``inspection_started_at``
  and ``inspection_finished_at``.
* 1.7 - node ``clean_step`` field.
* 1.8 - ``?fields`` selects the fields shown.
* 1.9 - filter the node list by ``provision_state``.
* 1.10 - names may use any RFC 3986 unreserved character (before: only
  hostname characters).
* 1.11 - nodes are created in ``enroll`` (before: ``available``).
* 1.12 - node ``raid_config`` and ``target_raid_config``; ``PUT
  /v1/nodes/{node}/states/raid``.
* 1.13 - the ``abort`` provision target (from ``clean wait``, where the
  running step is abortable).
* 1.14 - ``states`` link of nodes, ``properties`` link of drivers.
* 1.15 - manual cleaning: the ``clean`` target with ``clean_steps``.
* 1.16 - filter the node list by ``driver``.
* 1.17 - the ``adopt`` provision target: a manageable node becomes
  active without a deploy.
* 1.20 - node ``network_interface`` field.
* 1.21 - node ``resource_class`` field (read, create, update, filter).
* 1.22 - the ``/v1/lookup`` and ``/v1/heartbeat/{node}`` endpoints for
  agents.
* 1.24 - ``portgroups`` link of nodes.
* 1.27 - ``soft power off``, ``soft rebooting`` and ``timeout`` for power.
* 1.29 - ``PUT /v1/nodes/{node}/management/inject_nmi``: a
  non-maskable interrupt for the machine (release 0.13).
* 1.30 - drivers carry ``type`` and, with ``detail``, their interfaces.
* 1.31 - node ``*_interface`` fields (boot, console, deploy, inspect,
  management, power, raid, vendor).
* 1.32 - ``volume`` link of nodes.
* 1.33 - node ``storage_interface`` field.
* 1.35 - ``rebuild`` takes a ``configdrive`` too (``active`` always
  did: a gzipped, base64 ISO image or a URL).
* 1.36 - heartbeats may carry ``agent_version``.
* 1.37 - node ``traits`` field and the ``/v1/nodes/{node}/traits``
  endpoints.
* 1.38 - node ``rescue_interface`` field; the ``rescue`` (with
  ``rescue_password``) and ``unrescue`` provision targets.
* 1.39 - ``inspect wait`` is shown as such (before: ``inspecting``).
* 1.40 - node ``bios_interface`` field; the ``/v1/nodes/{node}/bios``
  endpoints (a node's cached BIOS settings).
* 1.41 - ``abort`` from ``inspect wait``.
* 1.42 - node ``fault`` field and filter.
* 1.43 - ``?detail=True`` on the node list.
* 1.44 - node ``deploy_step`` field.
* 1.45 - ``?reset_interfaces`` when a PATCH changes the driver.
* 1.46 - node ``conductor_group`` field and filter.
* 1.47 - node ``automated_clean`` field.
* 1.48 - node ``protected`` and ``protected_reason`` fields.
* 1.49 - node ``conductor`` field and filter; ``/v1/conductors``.
* 1.50 - node ``owner`` field and filter.
* 1.51 - node ``description`` field.
* 1.52 - the ``/v1/allocations`` endpoints and
  ``/v1/nodes/{node}/allocation``; node ``allocation_uuid`` field.
* 1.55 - the ``/v1/deploy_templates`` endpoints.
* 1.56 - a ``configdrive`` may be an object (``meta_data``, ``user_data``,
  ``network_data``), which the conductor builds into an image.
* 1.57 - ``PATCH /v1/allocations/{allocation}`` (``name``, ``extra``).
* 1.58 - an allocation may be created for a deployed ``node``
  (backfilling).
* 1.59 - a ``configdrive`` object may carry ``vendor_data``.
* 1.60 - allocation ``owner`` field and filter.
* 1.61 - node ``retired`` and ``retired_reason`` fields.
* 1.62 - agent tokens: a lookup hands the token out once, heartbeats
  carry it (``agent_token``).
* 1.65 - node ``lessee`` field and filter.
* 1.66 - node ``network_data`` field.
* 1.68 - heartbeats may carry ``agent_verify_ca``: the certificate the
  agent's API serves, which the conductor then trusts.
* 1.69 - ``deploy_steps`` with the ``active`` and ``rebuild`` targets.
* 1.70 - ``disable_ramdisk`` with the ``clean`` target: manual cleaning
  without booting the agent, refused when a step needs it.
* 1.71 - no change here: Ironic's marker for scope-based roles.
* 1.72 - heartbeats may carry ``agent_status`` (``start``, ``end``,
  ``error``) and ``agent_status_message``.
* 1.73 - the ``deploy`` and ``undeploy`` provision targets (the same as
  ``active`` and ``deleted``).
* 1.74 - BIOS settings carry their registry (type, allowed values,
  bounds, read-only, reset required, unique) with ``?detail`` or
  ``?fields``.
* 1.75 - node ``boot_mode`` and ``secure_boot`` fields (as the BMC last
  reported them).
* 1.76 - ``PUT /v1/nodes/{node}/states/boot_mode`` and
  ``states/secure_boot``.
* 1.77 - ``?fields`` on the driver list and a driver.
* 1.78 - a node's history: ``GET /v1/nodes/{node}/history`` and
  ``history/{event}``.
* 1.79 - no change here: Ironic's marker for allocations preferring the
  node named as the allocation, which they always have here.
* 1.80 - no change here: Ironic's marker for project-scoped node
  creation.
* 1.81 - ``GET /v1/nodes/{node}/inventory``: what the node's last
  inspection found.
* 1.82 - node ``shard`` field; ``?shard`` and ``?sharded`` filters;
  ``GET /v1/shards``.
* 1.83 - node ``parent_node`` field; ``?parent_node`` and
  ``?include_children`` filters; ``GET /v1/nodes/{node}/children``.
* 1.84 - ``POST /v1/continue_inspection``: the agent of a node in
  ``inspect wait`` posts its inventory (the ``agent`` inspect interface);
  the answer carries the node and the agent's configuration, as a lookup's.
  At 1.1 only, it answers the node's UUID alone, as ironic-inspector did
  (ironic-python-agent posts without a version).
* 1.85 - the ``unhold`` provision target: a flow held by a ``hold`` step
  goes on (from ``deploy hold``, ``clean hold``, ``service hold``).
* 1.86 - node ``firmware_interface`` field; ``GET
  /v1/nodes/{node}/firmware``: the node's firmware components and their
  versions.
* 1.87 - servicing: the ``service`` provision target with
  ``service_steps`` on an active node; node ``service_step`` field.
* 1.88 - port ``name`` field; names identify ports in URLs.
* 1.89 - ``POST`` and ``DELETE /v1/nodes/{node}/vmedia``: attach an image
  as a virtual media device of a node, detach them.
* 1.90 - a port's ``local_link_connection`` may hold
  ``vtep-logical-switch`` and ``vtep-physical-switch`` (together).
* 1.91 - a trailing ``.json`` in a URL is part of it (below, it is
  dropped, as Ironic's framework did: see :mod:`json_suffix`).
* 1.92 - the ``/v1/runbooks`` endpoints; the ``clean`` and ``service``
  targets take a ``runbook`` instead of their steps, allowed when the
  runbook's name is a trait of the node.
* 1.93 - ``GET /v1/nodes/{node}/vmedia``: a node's virtual media devices.
* 1.94 - a port is created for ``node_ident``, a node's name or UUID.
* 1.95 - node ``disable_power_off`` field: the conductor never powers the
  node off (a power off is refused 409; flows reboot it instead, and lock
  its agent down where they would power it off).
* 1.96 - the ``/v1/inspection_rules`` endpoints: rules checked against
  what an inspection found, whose actions change the node.
* 1.97 - port ``description`` field.
* 1.98 - no change here: JSON patch paths were
  always read as RFC 6901 says (``~0`` is ``~``, ``~1`` is ``/``), which
  Ironic does from 1.98.
* 1.99 - ``?conductor_groups`` on the port and
  portgroup lists.
* 1.100 - port ``vendor`` field.
* 1.101 - port ``category`` field.
* 1.102 - portgroup ``physical_network`` field: its
  ports'.
* 1.103 - portgroup ``category`` field.
* 1.104 - node ``instance_name`` field and list
  filter: set by the operator (or from ``instance_info/display_name``
  when unset), cleared when the node is undeployed.
* 1.105 - a port's ``local_link_connection`` takes
  the VTEP keys no more and shows a link holding them as ``{}``, as below
  1.90.
* 1.106 - ``?shard`` on the portgroup list.
* 1.107 - no change here: Ironic's marker for the
  ``X-OpenStack-Request-Id`` answer header, which every answer carries
  at every version, with ``OpenStack-Request-Id`` (see
  :mod:`request_ids`).
* 1.108 - ``disable_ramdisk`` with the ``service``
  target: service steps run without booting the agent, refused when a
  step needs it (as with ``clean``, 1.70).
* 1.109 - node ``health`` field (read only): the
  server's health as its BMC last reported it (``OK``, ``Warning``,
  ``Critical``), read by the power state sync.
* 1.110 - ``abort`` from ``wait call-back`` (below,
  refused 406 as Ironic refuses it).
* 1.111 - port ``available_for_dynamic_portgroup``,
  portgroup ``dynamic_portgroup`` fields.
* 1.112 - runbook ``traits`` (the
  ``/v1/runbooks/{runbook}/traits`` endpoints) decide which nodes may run
  a runbook, whose name need no longer be a trait; runbook
  ``description`` field.
* 1.113 - node history events have ``project``.
* 1.114 - firmware components have ``vendor``,
  ``model`` and ``serial_number`` (below, asking for them is 400, as
  Ironic answers).
* 1.115 - node history events have ``state``,
  ``target_provision_state`` and ``duration_seconds`` (maximum).


During a rolling upgrade the maximum is the pinned release's (see
:func:`max_version`): an API pinned to release 0.2 answers up to 1.44.

When adding a version, update:

- a ``MINOR_NN_...`` constant below and ``_MAX_VERSION`` (or, while a
  version below it is not served yet, :data:`AWAITING_LADDER`);
- the changelog above;
- the gate tables that use it (``node_view._FIELD_VERSIONS``, ...);
- ``api-ref/source`` and a release note;
- ``api`` of the newest release in ``release_mappings.py`` (a test
  checks it equals the maximum here).
"""

import functools
import re

import flask
from werkzeug import exceptions as http_exc

from ironic_steps.api import errors
from ironic_steps.conf import CONF
from ironic_steps import release_mappings

#: The only major version.
BASE_VERSION = 1

MINOR_1_INITIAL_VERSION = 1
MINOR_2_AVAILABLE_STATE = 2
MINOR_3_DRIVER_INTERNAL_INFO = 3
MINOR_4_MANAGEABLE_STATE = 4
MINOR_5_NODE_NAME = 5
MINOR_6_INSPECT_STATE = 6
MINOR_7_NODE_CLEAN = 7
MINOR_8_FETCHING_SUBSET_OF_FIELDS = 8
MINOR_9_PROVISION_STATE_FILTER = 9
MINOR_10_UNRESTRICTED_NODE_NAME = 10
MINOR_11_ENROLL_STATE = 11
MINOR_12_RAID_CONFIG = 12
MINOR_13_ABORT = 13
MINOR_14_LINKS_NODESTATES_DRIVERPROPERTIES = 14
MINOR_15_MANUAL_CLEAN = 15
MINOR_16_DRIVER_FILTER = 16
MINOR_17_ADOPT = 17
MINOR_20_NETWORK_INTERFACE = 20
MINOR_21_RESOURCE_CLASS = 21
MINOR_22_LOOKUP_HEARTBEAT = 22
MINOR_24_PORTGROUPS_SUBCONTROLLERS = 24
MINOR_27_SOFT_POWER_OFF = 27
MINOR_29_INJECT_NMI = 29
MINOR_30_DYNAMIC_DRIVERS = 30
MINOR_31_DYNAMIC_INTERFACES = 31
MINOR_32_VOLUME = 32
MINOR_33_STORAGE_INTERFACE = 33
MINOR_35_REBUILD_CONFIGDRIVE = 35
MINOR_36_AGENT_VERSION_HEARTBEAT = 36
MINOR_37_NODE_TRAITS = 37
MINOR_38_RESCUE_INTERFACE = 38
MINOR_39_INSPECT_WAIT = 39
MINOR_40_BIOS_INTERFACE = 40
MINOR_41_INSPECTION_ABORT = 41
MINOR_42_FAULT = 42
MINOR_43_ENABLE_DETAIL_QUERY = 43
MINOR_44_NODE_DEPLOY_STEP = 44
MINOR_45_RESET_INTERFACES = 45
MINOR_46_NODE_CONDUCTOR_GROUP = 46
MINOR_47_NODE_AUTOMATED_CLEAN = 47
MINOR_48_NODE_PROTECTED = 48
MINOR_49_CONDUCTORS = 49
MINOR_50_NODE_OWNER = 50
MINOR_51_NODE_DESCRIPTION = 51
MINOR_52_ALLOCATION = 52
MINOR_55_DEPLOY_TEMPLATES = 55
MINOR_56_BUILD_CONFIGDRIVE = 56
MINOR_57_ALLOCATION_UPDATE = 57
MINOR_58_ALLOCATION_BACKFILL = 58
MINOR_59_CONFIGDRIVE_VENDOR_DATA = 59
MINOR_60_ALLOCATION_OWNER = 60
MINOR_61_NODE_RETIRED = 61
MINOR_62_AGENT_TOKEN = 62
MINOR_65_NODE_LESSEE = 65
MINOR_66_NODE_NETWORK_DATA = 66
MINOR_68_AGENT_VERIFY_CA = 68
MINOR_69_DEPLOY_STEPS = 69
MINOR_70_CLEAN_DISABLE_RAMDISK = 70
MINOR_71_RBAC_SCOPES = 71
MINOR_72_HEARTBEAT_STATUS = 72
MINOR_73_DEPLOY_UNDEPLOY_VERBS = 73
MINOR_74_BIOS_REGISTRY = 74
MINOR_75_NODE_BOOT_MODE = 75
MINOR_76_NODE_CHANGE_BOOT_MODE = 76
MINOR_77_DRIVER_FIELDS = 77
MINOR_78_NODE_HISTORY = 78
MINOR_79_ALLOCATION_NODE_NAME = 79
MINOR_80_PROJECT_CREATE_DELETE_NODE = 80
MINOR_81_NODE_INVENTORY = 81
MINOR_82_NODE_SHARD = 82
MINOR_83_PARENT_CHILD_NODES = 83
MINOR_84_CONTINUE_INSPECTION = 84
MINOR_85_UNHOLD_VERB = 85
MINOR_86_FIRMWARE_INTERFACE = 86
MINOR_87_SERVICE = 87
MINOR_88_PORT_NAME = 88
MINOR_89_ATTACH_DETACH_VMEDIA = 89
MINOR_90_OVN_VTEP = 90
MINOR_91_DOT_JSON = 91
MINOR_92_RUNBOOKS = 92
MINOR_93_GET_VMEDIA = 93
MINOR_94_PORT_NODENAME = 94
MINOR_95_DISABLE_POWER_OFF = 95
MINOR_96_INSPECTION_RULES = 96
MINOR_97_PORT_DESCRIPTION = 97
MINOR_98_SUPPORT_SPECIAL_CHAR_IN_ATTRIBUTES = 98
MINOR_99_PORT_PORTGROUP_CONDUCTOR_GROUP_FILTER = 99
MINOR_100_PORT_VENDOR = 100
MINOR_101_PORT_CATEGORY = 101
MINOR_102_PORTGROUP_PHYSICAL_NETWORK = 102
MINOR_103_PORTGROUP_CATEGORY = 103
MINOR_104_NODE_INSTANCE_NAME = 104
MINOR_105_REMOVE_OVN_VTEP = 105
MINOR_106_PORTGROUP_SHARD = 106
MINOR_107_X_OPENSTACK_REQUEST_ID = 107
MINOR_108_SERVICE_DISABLE_RAMDISK = 108
MINOR_109_NODE_HEALTH = 109
MINOR_110_DEPLOYWAIT_ABORT = 110
MINOR_111_DYNAMIC_PORTGROUP = 111
MINOR_112_RUNBOOK_TRAITS = 112
MINOR_113_NODE_HISTORY_PROJECT = 113
MINOR_114_FIRMWARE_IDENTITY = 114
MINOR_115_NODE_HISTORY_FIELDS = 115

#: Versions built here whose turn has not come: a maximum promises every
#: version up to it, so these stay refused (above the maximum) until every
#: version below them is served.  Their features are gated in the code
#: already.
AWAITING_LADDER = frozenset()

MIN_VERSION = (BASE_VERSION, MINOR_1_INITIAL_VERSION)
_MAX_VERSION = (BASE_VERSION, MINOR_115_NODE_HISTORY_FIELDS)

#: Request headers, in the order they are read.
HEADER = 'X-OpenStack-Ironic-API-Version'
GENERIC_HEADER = 'OpenStack-API-Version'
#: Response headers with the supported range.
MIN_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version'
SERVICE_TYPE = 'baremetal'

#: Where the negotiated version is kept in the WSGI environ.
ENVIRON_KEY = 'ironic_steps.api_version'

_ENVIRON_HEADER = 'HTTP_X_OPENSTACK_IRONIC_API_VERSION'
_ENVIRON_GENERIC_HEADER = 'HTTP_OPENSTACK_API_VERSION'
# ASCII digits, matched whole, and few enough for int(), which refuses
# thousands of them (a 500 before authentication, once).
_VERSION_RE = re.compile(r'\A([0-9]{1,20})\.([0-9]{1,20})\Z')


def max_version():
    """The highest version this service answers.

    While ``[DEFAULT] pin_release_version`` names an older release, that
    release's maximum (from ``release_mappings.py``), so that an
    upgraded API offers nothing the older conductors cannot do.  Everything
    reads the maximum through here.
    """
    pinned = release_mappings.pinned_release(CONF)
    return _parse_pinned(pinned['api']) if pinned else _MAX_VERSION


@functools.lru_cache(maxsize=None)
def _parse_pinned(version):
    major, minor = version.split('.')
    return int(major), int(minor)


def to_string(version):
    return '%d.%d' % version


def at(minor):
    """The version 1.``minor`` as the (major, minor) tuples compare."""
    return (BASE_VERSION, minor)


def require(version, minor, feature):
    """:raises FeatureNotInVersion: (406) if ``version`` is below 1.minor."""
    if version < at(minor):
        raise errors.FeatureNotInVersion(
            feature=feature, needed=to_string(at(minor)),
            version=to_string(version))


def _parse(value, header):
    """``'1.44'`` -> (1, 44); ``'latest'`` -> the maximum."""
    value = value.strip()
    if value.lower() == 'latest':
        return max_version()
    match = _VERSION_RE.match(value)
    if match is None:
        raise errors.InvalidVersionHeader(header=header, value=value)
    return int(match.group(1)), int(match.group(2))


def _generic_value(header_value):
    """The baremetal entry of ``OpenStack-API-Version``, or None."""
    for entry in header_value.split(','):
        parts = entry.split(None, 1)
        if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
            return parts[1]
    return None


def requested(environ):
    """The version a request asks for: a (major, minor) tuple.

    :raises InvalidVersionHeader: for a malformed header, or two headers
        that disagree.
    """
    versions = []
    if _ENVIRON_HEADER in environ:
        versions.append(_parse(environ[_ENVIRON_HEADER], HEADER))
    generic = _generic_value(environ.get(_ENVIRON_GENERIC_HEADER, ''))
    if generic is not None:
        versions.append(_parse(generic, GENERIC_HEADER))
    if not versions:
        return MIN_VERSION
    if len(set(versions)) > 1:
        raise errors.InvalidVersionHeader(
            header='%s and %s' % (HEADER, GENERIC_HEADER),
            value=' vs '.join(to_string(v) for v in versions))
    return versions[0]


def check_supported(version):
    """:raises VersionNotSupported: if ``version`` is out of range."""
    if not MIN_VERSION <= version <= max_version():
        raise errors.VersionNotSupported(
            version=to_string(version), min=to_string(MIN_VERSION),
            max=to_string(max_version()))


def check_endpoint(version, needed, path, method='GET', changes_405=False):
    """Refuse a request for an endpoint that does not exist at ``version``.

    :param changes_405: answer requests other than GET with 405 rather
        than 404 (what Ironic answers for some endpoints, e.g. deploy
        templates).
    :raises EndpointNotInVersion: (404)
    :raises MethodNotInVersion: (405)
    """
    if version >= needed:
        return
    refusal = (errors.MethodNotInVersion if changes_405 and method != 'GET'
               else errors.EndpointNotInVersion)
    raise refusal(path=path, needed=to_string(needed),
                  version=to_string(version))


def gate(blueprint, minor):
    """Refuse every request of ``blueprint`` below 1.``minor`` (404, as
    for an endpoint Ironic does not have yet: see :func:`check_endpoint`).

    :returns: the version the endpoints need, (1, minor).
    """
    needed = at(minor)

    def check_version():
        check_endpoint(of(flask.request.environ), needed, flask.request.path)

    blueprint.before_request(check_version)
    return needed


def hide_while_pinned_before(release):
    """Answer 404, as for an unknown path, while the services are pinned
    to a release before ``release``, which brought the endpoint: the
    pinned release's conductors know nothing of it.

    :raises werkzeug.exceptions.NotFound:
    """
    if release_mappings.pinned_before(CONF, release):
        raise http_exc.NotFound()


def response_headers(version):
    """Headers every response carries: the range and the version used."""
    used = to_string(version)
    return [(MIN_HEADER, to_string(MIN_VERSION)),
            (MAX_HEADER, to_string(max_version())),
            (HEADER, used),
            (GENERIC_HEADER, '%s %s' % (SERVICE_TYPE, used)),
            ('Vary', '%s, %s' % (HEADER, GENERIC_HEADER))]


def of(environ):
    """The version negotiated for this request (set by the middleware)."""
    return environ[ENVIRON_KEY]


class VersionMiddleware:
    """Negotiate the microversion; put the version headers on every answer.

    A refused version still gets the range headers (that is how clients
    negotiate); its ``X-OpenStack-Ironic-API-Version`` echoes the version
    asked for when it could be read, else the minimum.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        try:
            version = requested(environ)
        except errors.InvalidVersionHeader as exc:
            return errors.wsgi_error(exc, start_response,
                                     response_headers(MIN_VERSION))
        try:
            check_supported(version)
        except errors.VersionNotSupported as exc:
            return errors.wsgi_error(exc, start_response,
                                     response_headers(version))
        environ[ENVIRON_KEY] = version
        headers = response_headers(version)

        def start_with_versions(status, response_headers, exc_info=None):
            return start_response(status, response_headers + headers,
                                  exc_info)

        return self.application(environ, start_with_versions)
