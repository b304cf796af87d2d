"""What a node looks like in the API, at each microversion.

Owns the node's public fields, the microversion each appeared in, the
subset a plain list shows, and what turning a :class:`objects.Node` (or a
row of its fields, see :meth:`objects.Node.list_fields`) into a JSON body
needs (empty dicts for unset dict fields, ISO 8601 times, secrets masked);
the shared :mod:`view` machinery does the turning.  ``traits`` is not a
column: a row has it only when it was read with it.  Which fields a
request may *write* is :mod:`node_schema`'s business.

A field below its version does not exist: it is absent from bodies, and
naming it (``?fields=``, a create body, a PATCH path) is answered 406 as
Ironic does.  So is a field the Node object of the pinned release lacks,
during a rolling upgrade.
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps import objects

#: Every public field, in the order bodies list them ('id' is internal).
FIELDS = (
    'uuid', 'name', 'driver', 'resource_class', 'instance_uuid',
    'provision_state', 'target_provision_state', 'provision_updated_at',
    'power_state', 'target_power_state', 'maintenance', 'maintenance_reason',
    'last_error', 'reservation', 'clean_step', 'deploy_step', 'driver_info',
    'driver_internal_info', 'instance_info', 'properties', 'extra',
    'traits', 'bios_interface', 'boot_interface', 'deploy_interface',
    'management_interface', 'power_interface', 'raid_interface',
    'vendor_interface', 'created_at', 'updated_at',
)

#: Fields added after the minimum version: field -> (major, minor).
_FIELD_VERSIONS = {
    'resource_class': (1, v.MINOR_21_RESOURCE_CLASS),
    'boot_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'deploy_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'management_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'power_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'raid_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'vendor_interface': (1, v.MINOR_31_DYNAMIC_INTERFACES),
    'bios_interface': (1, v.MINOR_40_BIOS_INTERFACE),
    'deploy_step': (1, v.MINOR_44_NODE_DEPLOY_STEP),
    'traits': (1, v.MINOR_37_NODE_TRAITS),
}

#: What GET /v1/nodes shows without ?fields (plus links), as Ironic.
LIST_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'provision_state', 'maintenance')

#: GET /v1/nodes/{node}/states.
STATES_FIELDS = ('provision_state', 'target_provision_state',
                 'provision_updated_at', 'power_state', 'target_power_state',
                 'last_error')

_DICT_FIELDS = frozenset(['clean_step', 'deploy_step', 'driver_info',
                          'driver_internal_info', 'instance_info',
                          'properties', 'extra'])
_TIME_FIELDS = frozenset(['provision_updated_at', 'created_at',
                          'updated_at'])
#: Fields that may hold secrets.  ``deploy_step`` and ``clean_step`` carry
#: a step's ``args``, which may come from a deploy template's or a
#: request's steps, whose credentials are as secret there as anywhere.
_MASKED_FIELDS = frozenset(['driver_info', 'driver_internal_info',
                            'instance_info', 'deploy_step', 'clean_step'])


VIEW = view.View(
    'nodes', FIELDS, since=_FIELD_VERSIONS, list_fields=LIST_FIELDS,
    empty={**dict.fromkeys(_DICT_FIELDS, dict), 'traits': list},
    times=_TIME_FIELDS, masked=_MASKED_FIELDS,
    # A field the pinned release's Node lacks does not exist yet (e.g.
    # traits, from 1.37, while pinned to 0.2, whose maximum is 1.44).
    unknown_while_pinned=objects.Node.fields_unknown_under_pin)

# The node's view is the shared machinery (:mod:`view`) with the
# declarations above; these names are what node code calls.
since = VIEW.since
visible_fields = VIEW.visible_fields
check_fields = VIEW.check_fields
parse_fields = VIEW.parse_fields
value = VIEW.value
to_dict = VIEW.to_dict
is_masked = VIEW.is_masked


def states(node):
    return {field: value(node, field) for field in STATES_FIELDS}
