"""What each release speaks: API microversion, RPC version, object versions.

During a rolling upgrade, ``[DEFAULT] pin_release_version`` names the
release every service still running must understand.  A pinned service
caps what it sends at that release's entry here: the API's maximum
microversion, the conductor RPC version and the version of every object it
sends or saves.

When adding a release, or changing a version:

* add the new release at the end, copying the previous entry and changing
  only what changed; never edit an entry once released;
* ``master`` always equals the newest release plus unreleased changes, and
  equals the versions in the code (a test checks it);
* every registered object appears in every release that has it.
"""

import collections

from oslo_utils import versionutils

RELEASE_MAPPING = collections.OrderedDict([
    # Before deploy steps: a deploy was one call to DeployInterface.deploy.
    ('0.1', {
        'api': '1.43',
        'rpc': '1.0',
        'objects': {'Node': ['1.0']},
    }),
    # Deploy steps: Node.deploy_step, continue_node_deploy, API 1.44.
    ('0.2', {
        'api': '1.44',
        'rpc': '1.1',
        'objects': {'Node': ['1.1']},
    }),
    # Operators choose the steps: node traits, deploy templates
    # (DeployTemplate), user deploy steps, manual cleaning, abort, agent
    # tokens; the node API up to 1.69 (power, RAID, maintenance, validate,
    # conductors (Conductor), ...).
    ('0.3', {
        'api': '1.69',
        'rpc': '1.2',
        'objects': {'Node': ['1.2'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.0']},
    }),
    # Real hardware: redfish hardware type, BIOS settings cache, polled
    # out-of-band steps.
    ('0.4', {
        'api': '1.69',
        'rpc': '1.2',
        'objects': {'Node': ['1.2'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.0'], 'BIOSSetting': ['1.0']},
    }),
    # Conductors get a home: each registers the hardware types it serves
    # (Conductor.hardware_types), which /v1/drivers and the hash ring
    # read; the ring places each conductor 2 ** [conductor]
    # hash_partition_exponent times.
    ('0.5', {
        'api': '1.69',
        'rpc': '1.2',
        'objects': {'Node': ['1.2'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.0']},
    }),
    # Ironic API parity around a node: chassis (Node.chassis_uuid), ports,
    # portgroups, volume connectors and targets, VIFs on ports; allocations
    # (Allocation, RPC create_allocation, destroy_allocation), a node's
    # boot device, console and vendor passthru methods, a driver's RAID
    # logical disk properties.  Beyond Ironic, the x-steps extension:
    # preview a plan, resume a failed deploy (preview_steps,
    # resume_node_deploy), per-step timeouts, step progress in
    # driver_internal_info, the step history of each node
    # (NodeStepHistory, /x-steps/history).
    ('0.6', {
        'api': '1.69',
        'rpc': '1.3',
        'objects': {'Node': ['1.3'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.0'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.0'], 'Port': ['1.0'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0']},
    }),
    # Ephemeral runs: ironic-steps run INVENTORY deploys with a service
    # that lives as long as the run and keeps its evidence; ironic-steps
    # inspect serves it read-only.  Nothing a service sends changes.
    ('0.7', {
        'api': '1.69',
        'rpc': '1.3',
        'objects': {'Node': ['1.3'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.0'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.0'], 'Port': ['1.0'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0']},
    }),
    # The real agent: the direct deploy interface, in-band steps reported
    # by ironic-python-agent, config drives, cleaning with the agent
    # (RPC 1.4: lookup and heartbeat carry what the agent says).
    ('0.8', {
        'api': '1.69',
        'rpc': '1.4',
        'objects': {'Node': ['1.3'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.0'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.0'], 'Port': ['1.0'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0']},
    }),
    # Which steps may join a plan: [api] disallow_deploy_steps and
    # disallow_clean_steps, the per-step policy
    # baremetal:step:execute:<interface>.<step>, step prechecks (a RAID
    # step without a layout is refused at the request).  Nothing a service
    # sends changes.
    ('0.9', {
        'api': '1.69',
        'rpc': '1.4',
        'objects': {'Node': ['1.3'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.0'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.0'], 'Port': ['1.0'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0']},
    }),
    # The node API from 1.70 to 1.80: manual cleaning without the agent
    # (disable_ramdisk), the agent's status in heartbeats, the deploy and
    # undeploy verbs, the BIOS registry (BIOSSetting 1.1), the node's
    # boot mode and secure boot (Node 1.4; RPC 1.5 change_node_boot_mode,
    # change_node_secure_boot), driver ?fields, the node history
    # endpoints, allocations preferring a node's name.
    ('0.10', {
        'api': '1.80',
        'rpc': '1.5',
        'objects': {'Node': ['1.4'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.1'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.0'], 'Port': ['1.0'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0']},
    }),
    # Inspection (RPC 1.6 inspect_hardware; the fake and redfish inspect
    # interfaces) and what it found (NodeInventory, API 1.81); node shards
    # and parent nodes (Node 1.5: shard, parent_node; API 1.82, 1.83);
    # adoption (the adopt target, API 1.17, and its states); rescue (RPC
    # 1.7 do_node_rescue, do_node_unrescue; the rescue and unrescue
    # targets, API 1.38; fake-hardware's fake rescue interface).
    ('0.11', {
        'api': '1.83',
        'rpc': '1.7',
        'objects': {'Node': ['1.5'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.1'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.0'], 'Port': ['1.0'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0'],
                    'NodeInventory': ['1.0']},
    }),
    # Steps across a server's whole life, and Metal3's API: in-band
    # inspection (the agent inspect interface, whose agent posts its
    # inventory to /v1/continue_inspection: API 1.84, RPC 1.8
    # continue_inspection); the hold step and the unhold verb (1.85); the
    # firmware interface (1.86: Node 1.6 firmware_interface, the
    # firmware.update step, FirmwareComponent and
    # GET /v1/nodes/{node}/firmware); servicing (1.87: RPC 1.8
    # do_node_service, Node 1.6 service_step); port names (1.88);
    # attaching, detaching and listing virtual media (RPC 1.8
    # attach_virtual_media, detach_virtual_media, get_virtual_media; API
    # 1.89, 1.93); OVN VTEP links (1.90), URLs ending in .json (1.91);
    # runbooks (Runbook 1.0, API 1.92); ports created by node name (1.94);
    # the agent rescue interface.  Built and gated at their versions,
    # served once the maximum reaches them: port description, vendor,
    # category, available_for_dynamic_portgroup (Port 1.2), portgroup
    # physical_network, category, dynamic_portgroup (Portgroup 1.1), the
    # conductor group and shard filters (API 1.97-1.111), runbook traits
    # (1.112).
    ('0.12', {
        'api': '1.94',
        'rpc': '1.8',
        'objects': {'Node': ['1.6'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.1'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.1'], 'Port': ['1.2'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0'],
                    'NodeInventory': ['1.0'], 'FirmwareComponent': ['1.0'],
                    'Runbook': ['1.0']},
    }),
    # Ironic's API up to 1.115, the maximum of Ironic 39: node
    # disable_power_off (1.95), the conductor never powering such a node
    # off; inspection rules (1.96: /v1/inspection_rules, InspectionRule
    # 1.0), applied by the conductor as an inspection ends; node
    # instance_name (1.104) and health (1.109) (Node 1.7); request ids
    # (1.107); disable_ramdisk with service (1.108); abort in wait
    # call-back from 1.110 only; history project, state and duration
    # (1.113, 1.115); firmware vendor, model and serial (1.114); and the
    # versions built in 0.12 (1.97-1.103, 1.105, 1.106, 1.111, 1.112)
    # served at last.  Resuming a failed servicing from the failed step
    # (the x-steps extension's resume, RPC 1.3 as for a deploy).  Injecting
    # an NMI (API 1.29; RPC 1.9 inject_nmi).
    ('0.13', {
        'api': '1.115',
        'rpc': '1.9',
        'objects': {'Node': ['1.7'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.1'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.1'], 'Port': ['1.2'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0'],
                    'NodeInventory': ['1.0'], 'FirmwareComponent': ['1.0'],
                    'Runbook': ['1.0'], 'InspectionRule': ['1.0']},
    }),
    # What Ironic's clients still missed at 0.13: the agent token handed
    # over on virtual media ([deploy] http_url) and to the fake machines'
    # agent; http_basic's bcrypt checks on threads of their own; Metal3's
    # redfish hosts: direct as the redfish type's default deploy interface
    # (ramdisk while pinned before), the ipxe boot interface, the
    # custom-agent deploy interface.
    ('0.14', {
        'api': '1.115',
        'rpc': '1.9',
        'objects': {'Node': ['1.7'], 'DeployTemplate': ['1.0'],
                    'Conductor': ['1.1'], 'BIOSSetting': ['1.1'],
                    'Chassis': ['1.0'], 'Portgroup': ['1.1'], 'Port': ['1.2'],
                    'VolumeConnector': ['1.0'], 'VolumeTarget': ['1.0'],
                    'Allocation': ['1.0'], 'NodeStepHistory': ['1.0'],
                    'NodeInventory': ['1.0'], 'FirmwareComponent': ['1.0'],
                    'Runbook': ['1.0'], 'InspectionRule': ['1.0']},
    }),
])

RELEASE_MAPPING['master'] = RELEASE_MAPPING[next(reversed(RELEASE_MAPPING))]

#: Release names an operator may pin to, oldest first.
RELEASES = [name for name in RELEASE_MAPPING if name != 'master']


def pinned_release(conf):
    """The mapping entry of the pinned release, or None when unpinned."""
    name = conf.pin_release_version
    return RELEASE_MAPPING[name] if name else None


def pinned_before(conf, release):
    """Whether the services are pinned to a release older than
    ``release`` (a name in :data:`RELEASES`); False when unpinned."""
    pinned = conf.pin_release_version
    return bool(pinned) and RELEASES.index(pinned) < RELEASES.index(release)


def rpc_at_least(release, version):
    """Whether ``release`` (a mapping entry) speaks RPC ``version``."""
    return (versionutils.convert_version_to_tuple(release['rpc'])
            >= versionutils.convert_version_to_tuple(version))


def object_version(conf, obj_name, current):
    """The version of ``obj_name`` to send and save under the pin; None if
    the pinned release does not have that object at all."""
    release = pinned_release(conf)
    if release is None:
        return current
    versions = release['objects'].get(obj_name)
    return versions[-1] if versions else None


def first_release_with(obj_name, version):
    """The oldest release that has ``obj_name`` at ``version`` or later."""
    wanted = versionutils.convert_version_to_tuple(version)
    for name in RELEASES:
        versions = RELEASE_MAPPING[name]['objects'].get(obj_name)
        if versions and versionutils.convert_version_to_tuple(
                versions[-1]) >= wanted:
            return name
    return 'master'
