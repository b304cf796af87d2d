"""What a node looks like in the API, at each microversion.

Owns the node's public fields, the microversion each appeared in, the
subset a plain list shows, the fields computed rather than stored, the
links to its sub-resources, and what turning a :class:`objects.Node` (or a
row of its fields, see :meth:`objects.Node.list_fields`) into a JSON body
needs (empty dicts for unset dict fields, ISO 8601 times, secrets masked,
``available`` shown before 1.2 and ``inspect wait`` before 1.39 as they
were then); the shared :mod:`view`
machinery does the turning, from a display plan per (fields, version).
``traits`` is not a column: a row has it only when it was read with it.
Which fields a request may *write* is :mod:`node_schema`'s business.

A field below its version does not exist: it is absent from bodies, and
naming it (``?fields=``, a create body, a PATCH path) is answered 406 as
Ironic does.  So is a field the Node object of the pinned release lacks,
during a rolling upgrade: pinned to 0.2, a node looks as release 0.2
showed it (no ``traits``, no ``raid_config``, ...), since those fields are
neither written nor changeable until the upgrade is over.
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps.common import states as provision_states
from ironic_steps import objects

#: Every public field, in the order bodies list them ('id' is internal).
FIELDS = (
    'uuid', 'name', 'driver', 'resource_class', 'instance_uuid',
    'instance_name',
    'chassis_uuid', 'conductor_group', 'conductor', 'owner', 'lessee',
    'description', 'allocation_uuid',
    'provision_state', 'target_provision_state', 'provision_updated_at',
    'power_state', 'target_power_state', 'console_enabled', 'maintenance',
    'maintenance_reason', 'fault', 'protected', 'protected_reason',
    'retired', 'retired_reason', 'automated_clean', 'last_error',
    'reservation', 'inspection_started_at', 'inspection_finished_at',
    'clean_step', 'deploy_step', 'service_step', 'driver_info',
    'driver_internal_info', 'instance_info', 'properties', 'extra',
    'raid_config', 'target_raid_config', 'network_data', 'traits',
    'boot_mode',
    'secure_boot', 'shard', 'parent_node', 'disable_power_off', 'health',
    'bios_interface', 'boot_interface', 'console_interface',
    'deploy_interface', 'firmware_interface', 'inspect_interface',
    'management_interface', 'network_interface', 'power_interface', 'raid_interface',
    'rescue_interface', 'storage_interface', 'vendor_interface',
    'created_at', 'updated_at',
)

#: Fields added after the minimum version: field -> (major, minor).
_FIELD_VERSIONS = {
    'driver_internal_info': v.at(v.MINOR_3_DRIVER_INTERNAL_INFO),
    'name': v.at(v.MINOR_5_NODE_NAME),
    'inspection_started_at': v.at(v.MINOR_6_INSPECT_STATE),
    'inspection_finished_at': v.at(v.MINOR_6_INSPECT_STATE),
    'clean_step': v.at(v.MINOR_7_NODE_CLEAN),
    'raid_config': v.at(v.MINOR_12_RAID_CONFIG),
    'target_raid_config': v.at(v.MINOR_12_RAID_CONFIG),
    'network_interface': v.at(v.MINOR_20_NETWORK_INTERFACE),
    'resource_class': v.at(v.MINOR_21_RESOURCE_CLASS),
    'boot_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'console_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'deploy_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'inspect_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'management_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'power_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'raid_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'vendor_interface': v.at(v.MINOR_31_DYNAMIC_INTERFACES),
    'storage_interface': v.at(v.MINOR_33_STORAGE_INTERFACE),
    'traits': v.at(v.MINOR_37_NODE_TRAITS),
    'rescue_interface': v.at(v.MINOR_38_RESCUE_INTERFACE),
    'bios_interface': v.at(v.MINOR_40_BIOS_INTERFACE),
    'fault': v.at(v.MINOR_42_FAULT),
    'deploy_step': v.at(v.MINOR_44_NODE_DEPLOY_STEP),
    'conductor_group': v.at(v.MINOR_46_NODE_CONDUCTOR_GROUP),
    'automated_clean': v.at(v.MINOR_47_NODE_AUTOMATED_CLEAN),
    'protected': v.at(v.MINOR_48_NODE_PROTECTED),
    'protected_reason': v.at(v.MINOR_48_NODE_PROTECTED),
    'conductor': v.at(v.MINOR_49_CONDUCTORS),
    'owner': v.at(v.MINOR_50_NODE_OWNER),
    'description': v.at(v.MINOR_51_NODE_DESCRIPTION),
    'allocation_uuid': v.at(v.MINOR_52_ALLOCATION),
    'retired': v.at(v.MINOR_61_NODE_RETIRED),
    'retired_reason': v.at(v.MINOR_61_NODE_RETIRED),
    'lessee': v.at(v.MINOR_65_NODE_LESSEE),
    'network_data': v.at(v.MINOR_66_NODE_NETWORK_DATA),
    'boot_mode': v.at(v.MINOR_75_NODE_BOOT_MODE),
    'secure_boot': v.at(v.MINOR_75_NODE_BOOT_MODE),
    'shard': v.at(v.MINOR_82_NODE_SHARD),
    'parent_node': v.at(v.MINOR_83_PARENT_CHILD_NODES),
    'firmware_interface': v.at(v.MINOR_86_FIRMWARE_INTERFACE),
    'service_step': v.at(v.MINOR_87_SERVICE),
    'disable_power_off': v.at(v.MINOR_95_DISABLE_POWER_OFF),
    'instance_name': v.at(v.MINOR_104_NODE_INSTANCE_NAME),
    'health': v.at(v.MINOR_109_NODE_HEALTH),
}

#: Fields that are not columns of the node: computed when shown.
#: ``allocation_uuid`` is the allocation holding the node, and
#: ``conductor`` the host the hash ring gives the node to (see
#: :func:`computer`).
COMPUTED_FIELDS = frozenset(['allocation_uuid', 'conductor'])

#: Links to a node's sub-resources, shown with the whole node (not with
#: ``?fields`` nor in a plain list), as Ironic shows them: link -> version.
#: ``ports``, ``portgroups`` and ``volume`` from release 0.6.
RESOURCE_LINKS = {
    'ports': v.MIN_VERSION,
    'states': v.at(v.MINOR_14_LINKS_NODESTATES_DRIVERPROPERTIES),
    'portgroups': v.at(v.MINOR_24_PORTGROUPS_SUBCONTROLLERS),
    'volume': v.at(v.MINOR_32_VOLUME),
}

#: What GET /v1/nodes shows without ?fields (plus links), as Ironic.
LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'provision_state', 'maintenance')

#: GET /v1/nodes/{node}/states, each from the version a node shows it.
STATES_FIELDS = ('provision_state', 'target_provision_state',
                 'provision_updated_at', 'power_state', 'target_power_state',
                 'console_enabled', 'last_error', 'raid_config',
                 'target_raid_config')

_DICT_FIELDS = frozenset(['clean_step', 'deploy_step', 'service_step',
                          'driver_info', 'driver_internal_info',
                          'instance_info',
                          'properties', 'extra', 'raid_config',
                          'target_raid_config', 'network_data'])
_TIME_FIELDS = frozenset(['provision_updated_at', 'created_at',
                          'updated_at', 'inspection_started_at',
                          'inspection_finished_at'])
#: Fields that may hold secrets.  The ``*_step`` fields carry
#: a step's ``args``, which may come from a deploy template's or a
#: request's steps, whose credentials are as secret there as anywhere.
#: ``network_data`` is free-form below its three lists (an operator may
#: put a bond's or a VLAN's credentials there): masking it costs nothing
#: for standard network metadata, whose keys name no secret.
#: ``last_error`` quotes what failed, which may be a signed image URL.
_MASKED_FIELDS = frozenset(['driver_info', 'driver_internal_info',
                            'instance_info', 'deploy_step', 'clean_step',
                            'service_step', 'network_data', 'last_error'])
#: What a stored None shows, for fields whose None only means "a peer
#: from before this field wrote the node" (a node created while pinned to
#: 0.11 has no firmware interface: see ``driver_factory``).
_NONE_READS_AS = {'console_enabled': bool, 'protected': bool,
                  'retired': bool, 'conductor_group': str,
                  'disable_power_off': bool,
                  'firmware_interface': lambda: 'no-firmware'}


def _unknown_while_pinned():
    # chassis_uuid was shown (always null) before Node had it: it stays
    # shown while pinned, null, since no chassis exists before 0.6.
    return objects.Node.fields_unknown_under_pin() - {'chassis_uuid'}


def _inspecting(provision_state):
    # Ironic's name for an inspection that waits, before 1.39.
    return (provision_states.INSPECTING
            if provision_state == provision_states.INSPECTWAIT
            else provision_state)


def _nostate(provision_state):
    # Ironic's NOSTATE: what 'available' was before 1.2.
    return (None if provision_state == provision_states.AVAILABLE
            else provision_state)


VIEW = view.View(
    'nodes', FIELDS, since=_FIELD_VERSIONS, list_fields=LIST_FIELDS,
    empty={**dict.fromkeys(_DICT_FIELDS, dict), 'traits': list,
           **_NONE_READS_AS},
    times=_TIME_FIELDS, masked=_MASKED_FIELDS,
    # A field the pinned release's Node lacks does not exist yet (e.g.
    # traits, from 1.37, while pinned to 0.2, whose maximum is 1.44).
    unknown_while_pinned=_unknown_while_pinned,
    computed=COMPUTED_FIELDS,
    before={'provision_state': (
        (v.at(v.MINOR_39_INSPECT_WAIT), _inspecting),
        (v.at(v.MINOR_2_AVAILABLE_STATE), _nostate))},
    links=RESOURCE_LINKS)

# The node's view is the shared machinery (:mod:`view`) with the
# declarations above; these names are what node code calls.
since = VIEW.since
visible_fields = VIEW.visible_fields
check_fields = VIEW.check_fields
parse_fields = VIEW.parse_fields
is_masked = VIEW.is_masked
columns = VIEW.columns


def computer(conductor_for, allocation_of=lambda node_uuid: None):
    """The ``compute`` of node bodies: ``conductor_for(node_uuid,
    driver)`` -> the host the hash ring gives the node to (or None),
    ``allocation_of(node_uuid)`` -> the UUID of the allocation holding it
    (or None); the other computed fields are null."""
    def compute(node, field):
        if field == 'conductor':
            return conductor_for(node.uuid, node.driver)
        if field == 'allocation_uuid':
            return allocation_of(node.uuid)
        return None
    return compute


def states(node, version):
    """GET /v1/nodes/{node}/states at ``version``."""
    visible = visible_fields(version)
    return VIEW.values(node, tuple(f for f in STATES_FIELDS if f in visible),
                       version)
