"""Chassis, Portgroup, Port, VolumeConnector and VolumeTarget objects.

The records around a node (release 0.6), each a :class:`StoredResource`
declaring only its fields: what they mean is Ironic's (see the api-ref).
"""

from ironic_steps.objects import base
from ironic_steps.objects import fields
from ironic_steps.objects import resource

_DICT = fields.FlexibleDictField(nullable=True)


@base.IronicStepsObjectRegistry.register
class Chassis(resource.StoredResource):
    # Version 1.0: Initial version
    VERSION = '1.0'
    KIND = 'chassis'
    FEATURE = 'Chassis'

    fields = {
        **resource.COMMON_FIELDS,
        'description': fields.StringField(nullable=True),
        'extra': _DICT,
    }


@base.IronicStepsObjectRegistry.register
class Portgroup(resource.StoredResource):
    # Version 1.0: Initial version
    # Version 1.1: Add physical_network, category (API 1.102, 1.103) and
    #              dynamic_portgroup (API 1.111)
    VERSION = '1.1'
    KIND = 'portgroups'
    FEATURE = 'Portgroups'
    FIELD_SINCE = dict.fromkeys(
        ('physical_network', 'category', 'dynamic_portgroup'), '1.1')

    fields = {
        **resource.COMMON_FIELDS,
        'name': fields.StringField(nullable=True),
        'address': fields.StringField(nullable=True),
        'node_uuid': fields.UUIDField(),
        'standalone_ports_supported': fields.BooleanField(),
        'mode': fields.StringField(nullable=True),
        'properties': _DICT,
        'extra': _DICT,
        # tenant_vif_port_id: the VIF attached here (see api/vifs.py).
        'internal_info': _DICT,
        'physical_network': fields.StringField(nullable=True),
        'category': fields.StringField(nullable=True),
        'dynamic_portgroup': fields.BooleanField(nullable=True),
    }


@base.IronicStepsObjectRegistry.register
class Port(resource.StoredResource):
    # Version 1.0: Initial version
    # Version 1.1: Add name (API 1.88)
    # Version 1.2: Add description, vendor, category (API 1.97, 1.100,
    #              1.101) and available_for_dynamic_portgroup (API 1.111)
    VERSION = '1.2'
    KIND = 'ports'
    FEATURE = 'Ports'
    FIELD_SINCE = {'name': '1.1', 'description': '1.2', 'vendor': '1.2',
                   'category': '1.2',
                   'available_for_dynamic_portgroup': '1.2'}

    fields = {
        **resource.COMMON_FIELDS,
        'address': fields.StringField(),
        'name': fields.StringField(nullable=True),
        'node_uuid': fields.UUIDField(),
        'portgroup_uuid': fields.UUIDField(nullable=True),
        'local_link_connection': _DICT,
        'pxe_enabled': fields.BooleanField(),
        'physical_network': fields.StringField(nullable=True),
        'is_smartnic': fields.BooleanField(),
        'description': fields.StringField(nullable=True),
        'vendor': fields.StringField(nullable=True),
        'category': fields.StringField(nullable=True),
        'available_for_dynamic_portgroup': fields.BooleanField(),
        'extra': _DICT,
        # tenant_vif_port_id: the VIF attached here (see api/vifs.py).
        'internal_info': _DICT,
    }


@base.IronicStepsObjectRegistry.register
class VolumeConnector(resource.StoredResource):
    # Version 1.0: Initial version
    VERSION = '1.0'
    KIND = 'volume_connectors'
    FEATURE = 'Volume connectors'

    fields = {
        **resource.COMMON_FIELDS,
        'node_uuid': fields.UUIDField(),
        'type': fields.StringField(),
        'connector_id': fields.StringField(),
        'extra': _DICT,
    }


@base.IronicStepsObjectRegistry.register
class VolumeTarget(resource.StoredResource):
    # Version 1.0: Initial version
    VERSION = '1.0'
    KIND = 'volume_targets'
    FEATURE = 'Volume targets'

    fields = {
        **resource.COMMON_FIELDS,
        'node_uuid': fields.UUIDField(),
        'volume_type': fields.StringField(),
        'properties': _DICT,
        'boot_index': fields.IntegerField(),
        'volume_id': fields.StringField(),
        'extra': _DICT,
    }
