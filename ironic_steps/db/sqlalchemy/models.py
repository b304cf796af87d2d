"""SQLAlchemy models: the tables, as the newest migration leaves them.

A test compares these with the schema the alembic migrations build, so a
change here without a migration (or the reverse) fails.  Times, text and
table options are those of the ``mysql`` module, which make MySQL and
MariaDB store what the other databases store.
"""

import json

import sqlalchemy as sa
from oslo_db.sqlalchemy import models
from oslo_utils import timeutils
from sqlalchemy import orm

from ironic_steps.db.sqlalchemy import mysql

#: Long enough for every provision and power state string.
STATE_LENGTH = 15


class JSONEncoded(sa.types.TypeDecorator):
    """A JSON value stored as text, portable across SQLite/PostgreSQL/MySQL."""

    impl = mysql.Text
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return None if value is None else json.dumps(value)

    def process_result_value(self, value, dialect):
        return None if value is None else json.loads(value)


class Base(models.ModelBase, orm.DeclarativeBase):
    # oslo.db's TimestampMixin, with microseconds on MySQL too.
    created_at = sa.Column(mysql.DateTime, default=lambda: timeutils.utcnow())
    updated_at = sa.Column(mysql.DateTime,
                           onupdate=lambda: timeutils.utcnow())


class Node(Base):
    __tablename__ = 'nodes'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.Index('nodes_provision_state_idx', 'provision_state'),
        sa.Index('nodes_reservation_idx', 'reservation'),
        sa.Index('nodes_resource_class_idx', 'resource_class'),
        sa.Index('nodes_conductor_group_idx', 'conductor_group'),
        sa.Index('nodes_owner_idx', 'owner'),
        sa.Index('nodes_lessee_idx', 'lessee'),
        sa.Index('nodes_chassis_uuid_idx', 'chassis_uuid'),
        sa.Index('nodes_shard_idx', 'shard'),
        sa.Index('nodes_parent_node_idx', 'parent_node'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    driver = sa.Column(sa.String(255), nullable=False)
    resource_class = sa.Column(sa.String(80), nullable=True)
    instance_uuid = sa.Column(sa.String(36), nullable=True)

    provision_state = sa.Column(sa.String(STATE_LENGTH), nullable=False)
    target_provision_state = sa.Column(sa.String(STATE_LENGTH))
    provision_updated_at = sa.Column(mysql.DateTime)
    power_state = sa.Column(sa.String(STATE_LENGTH))
    target_power_state = sa.Column(sa.String(STATE_LENGTH))
    maintenance = sa.Column(sa.Boolean, nullable=False, default=False)
    maintenance_reason = sa.Column(mysql.Text)
    last_error = sa.Column(mysql.Text)
    reservation = sa.Column(sa.String(255))
    fault = sa.Column(sa.String(255))
    console_enabled = sa.Column(sa.Boolean, nullable=False, default=False,
                                server_default=sa.false())
    inspection_started_at = sa.Column(mysql.DateTime)
    inspection_finished_at = sa.Column(mysql.DateTime)

    # Who may use the node and how (API 1.46-1.66).
    conductor_group = sa.Column(sa.String(255), nullable=False, default='',
                                server_default=sa.text("''"))
    automated_clean = sa.Column(sa.Boolean)
    protected = sa.Column(sa.Boolean, nullable=False, default=False,
                          server_default=sa.false())
    protected_reason = sa.Column(mysql.Text)
    owner = sa.Column(sa.String(255))
    lessee = sa.Column(sa.String(255))
    description = sa.Column(mysql.Text)
    retired = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())
    retired_reason = sa.Column(mysql.Text)

    clean_step = sa.Column(JSONEncoded)
    deploy_step = sa.Column(JSONEncoded)
    service_step = sa.Column(JSONEncoded)
    driver_info = sa.Column(JSONEncoded)
    driver_internal_info = sa.Column(JSONEncoded)
    instance_info = sa.Column(JSONEncoded)
    properties = sa.Column(JSONEncoded)
    extra = sa.Column(JSONEncoded)
    raid_config = sa.Column(JSONEncoded)
    target_raid_config = sa.Column(JSONEncoded)
    network_data = sa.Column(JSONEncoded)
    # What the BMC last reported: 'uefi' or 'bios'; whether secure boot is
    # on.  None until read.
    boot_mode = sa.Column(sa.String(16))
    secure_boot = sa.Column(sa.Boolean)

    bios_interface = sa.Column(sa.String(255))
    boot_interface = sa.Column(sa.String(255))
    console_interface = sa.Column(sa.String(255))
    deploy_interface = sa.Column(sa.String(255))
    firmware_interface = sa.Column(sa.String(255))
    inspect_interface = sa.Column(sa.String(255))
    management_interface = sa.Column(sa.String(255))
    network_interface = sa.Column(sa.String(255))
    power_interface = sa.Column(sa.String(255))
    raid_interface = sa.Column(sa.String(255))
    rescue_interface = sa.Column(sa.String(255))
    storage_interface = sa.Column(sa.String(255))
    vendor_interface = sa.Column(sa.String(255))

    # A chassis with nodes cannot be deleted: the key refuses it.
    chassis_uuid = sa.Column(sa.String(36), sa.ForeignKey(
        'chassis.uuid', name='nodes_chassis_uuid_fkey'))
    # The shard the node belongs to (API 1.82); null: none.
    shard = sa.Column(sa.String(255))
    # The UUID of the node this one is part of (API 1.83); null: none.
    # Not a foreign key: the conductor refuses to delete a node with
    # children, naming them, before anything is deleted.
    parent_node = sa.Column(sa.String(36))
    # Never power the node off (API 1.95): reboot it where a flow would
    # power it off and on, refuse a power off.
    # (No Python-side default: rows written by a release that predates the
    # column get the database's.)
    disable_power_off = sa.Column(sa.Boolean, nullable=False,
                                  server_default=sa.false())
    # The name of the instance deployed on the node (API 1.104).
    instance_name = sa.Column(sa.String(255))
    # The server's health as its BMC last reported it (API 1.109).
    health = sa.Column(sa.String(32))


class Conductor(Base):
    """A conductor process; ``updated_at`` is its last heartbeat."""

    __tablename__ = 'conductors'
    __table_args__ = (
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    hostname = sa.Column(sa.String(255), nullable=False)
    online = sa.Column(sa.Boolean, nullable=False, default=True)


class ConductorHardwareInterface(Base):
    """An interface implementation a conductor offers for a hardware type.

    What a conductor registered at start: one row per (conductor, hardware
    type, interface type, implementation), ``is_default`` marking the one
    a node gets when it names none.  The hardware types a conductor serves
    are those of its rows; a conductor without rows registered none (it
    runs, or is pinned to, a release before 0.5).  The rows go with their
    conductor (ON DELETE CASCADE).
    """

    __tablename__ = 'conductor_hardware_interfaces'

    conductor_id = sa.Column(sa.Integer, sa.ForeignKey('conductors.id',
                                                       ondelete='CASCADE'),
                             primary_key=True)
    hardware_type = sa.Column(sa.String(255), primary_key=True)
    interface_type = sa.Column(sa.String(16), primary_key=True)
    interface_name = sa.Column(sa.String(255), primary_key=True)
    is_default = sa.Column(sa.Boolean, nullable=False)


class NodeTrait(Base):
    """A trait of a node: a capability its deployments may ask for.

    The primary key (node_id, trait) makes a trait unique per node and
    finds a node's traits through its index.
    """

    __tablename__ = 'node_traits'

    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id',
                                                  ondelete='CASCADE'),
                        primary_key=True)
    trait = sa.Column(sa.String(255), primary_key=True)


class DeployTemplate(Base):
    """A named set of deploy steps, applied to deploys that ask for it."""

    __tablename__ = 'deploy_templates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_deploy_templates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploy_templates0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    extra = sa.Column(JSONEncoded)


class DeployTemplateStep(Base):
    """One step of a deploy template, in the order the template lists it."""

    __tablename__ = 'deploy_template_steps'
    __table_args__ = (
        sa.Index('deploy_template_steps_template_id_idx',
                 'deploy_template_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    deploy_template_id = sa.Column(
        sa.Integer, sa.ForeignKey('deploy_templates.id', ondelete='CASCADE'),
        nullable=False)
    interface = sa.Column(sa.String(255), nullable=False)
    step = sa.Column(sa.String(255), nullable=False)
    args = sa.Column(JSONEncoded, nullable=False)
    priority = sa.Column(sa.Integer, nullable=False)
    #: Seconds (x-steps, 0.6); NULL: the driver's own limit.
    timeout = sa.Column(sa.Double, nullable=True)


class Runbook(Base):
    """A named list of steps an operator may run on nodes instead of
    giving the steps one by one (manual cleaning, API 1.92).

    Its steps are one JSON list, in the order written: a runbook is read
    and written whole, and nothing queries one of its steps.
    """

    __tablename__ = 'runbooks'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_runbooks0uuid'),
        sa.UniqueConstraint('name', name='uniq_runbooks0name'),
        sa.Index('runbooks_owner_idx', 'owner'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    description = sa.Column(sa.String(255), nullable=True)
    steps = sa.Column(JSONEncoded, nullable=False)
    disable_ramdisk = sa.Column(sa.Boolean, nullable=False, default=False)
    public = sa.Column(sa.Boolean, nullable=False, default=False)
    owner = sa.Column(sa.String(255), nullable=True)
    extra = sa.Column(JSONEncoded)


class RunbookTrait(Base):
    """A trait of a runbook: a node carrying it may run the runbook (1.112).

    The primary key (runbook_id, trait) makes a trait unique per runbook.
    """

    __tablename__ = 'runbook_traits'

    runbook_id = sa.Column(sa.Integer, sa.ForeignKey('runbooks.id',
                                                     ondelete='CASCADE'),
                           primary_key=True)
    trait = sa.Column(sa.String(255), primary_key=True)


class InspectionRule(Base):
    """What to check in a node's inspection data, and what to do with the
    node when it holds (API 1.96).

    Its conditions and actions are each one JSON list, in the order
    written: a rule is read and written whole, and nothing queries one of
    its conditions.
    """

    __tablename__ = 'inspection_rules'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_inspection_rules0uuid'),
        sa.Index('inspection_rules_phase_idx', 'phase'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    description = sa.Column(sa.String(255), nullable=True)
    priority = sa.Column(sa.Integer, nullable=False, default=0)
    sensitive = sa.Column(sa.Boolean, nullable=False, default=False)
    phase = sa.Column(sa.String(16), nullable=False, default='main')
    conditions = sa.Column(JSONEncoded, nullable=False)
    actions = sa.Column(JSONEncoded, nullable=False)


class BIOSSetting(Base):
    """A BIOS setting of a node, as its driver last read it from the BMC.

    The primary key (node_id, name) makes a name unique per node and finds
    a node's settings through its index.
    """

    __tablename__ = 'bios_settings'

    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id',
                                                  ondelete='CASCADE'),
                        primary_key=True)
    name = sa.Column(sa.String(255), primary_key=True)
    value = sa.Column(mysql.Text)
    # What the BMC's attribute registry says of the setting (1.1 of the
    # object; see common/bios_registry.py); NULL where unknown.
    attribute_type = sa.Column(sa.String(255))
    allowable_values = sa.Column(JSONEncoded)
    lower_bound = sa.Column(sa.BigInteger)
    max_length = sa.Column(sa.Integer)
    min_length = sa.Column(sa.Integer)
    read_only = sa.Column(sa.Boolean)
    reset_required = sa.Column(sa.Boolean)
    unique = sa.Column(sa.Boolean)
    upper_bound = sa.Column(sa.BigInteger)


class NodeInventory(Base):
    """What a node's last inspection found: its inventory and plugin data
    (JSON objects; see ``drivers/inspection.py``), one row per node,
    replaced by each inspection, deleted with the node (ON DELETE
    CASCADE)."""

    __tablename__ = 'node_inventory'

    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id',
                                                  ondelete='CASCADE'),
                        primary_key=True)
    inventory_data = sa.Column(JSONEncoded, nullable=False)
    plugin_data = sa.Column(JSONEncoded, nullable=False)


class FirmwareComponent(Base):
    """A firmware component of a node (``bios``, ``bmc``) and its versions,
    as its firmware interface last read them (Ironic's table name); the
    primary key (node_id, component) makes a component unique per node.
    Deleted with the node (ON DELETE CASCADE)."""

    __tablename__ = 'firmware_information'

    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id',
                                                  ondelete='CASCADE'),
                        primary_key=True)
    component = sa.Column(sa.String(255), primary_key=True)
    initial_version = sa.Column(sa.String(255), nullable=False)
    current_version = sa.Column(sa.String(255))
    last_version_flashed = sa.Column(sa.String(255))
    vendor = sa.Column(sa.String(255))
    model = sa.Column(sa.String(255))
    serial_number = sa.Column(sa.String(255))


def _node_uuid():
    """The node a record belongs to, by UUID (what the API shows), deleted
    with it in the node's own DELETE (ON DELETE CASCADE)."""
    return sa.Column(sa.String(36), sa.ForeignKey(
        'nodes.uuid', ondelete='CASCADE'), nullable=False)


class Chassis(Base):
    """A group of nodes (a rack, an enclosure): a label, nothing runs."""

    __tablename__ = 'chassis'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    description = sa.Column(sa.String(255))
    extra = sa.Column(JSONEncoded)


class Portgroup(Base):
    """A bond of a node's ports; VIFs attach to it as to a port."""

    __tablename__ = 'portgroups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.Index('portgroups_node_uuid_idx', 'node_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))
    address = sa.Column(sa.String(18))
    node_uuid = _node_uuid()
    standalone_ports_supported = sa.Column(sa.Boolean, nullable=False,
                                           default=True)
    mode = sa.Column(sa.String(255))
    properties = sa.Column(JSONEncoded)
    extra = sa.Column(JSONEncoded)
    internal_info = sa.Column(JSONEncoded)
    physical_network = sa.Column(sa.String(64))
    category = sa.Column(sa.String(80))
    # Set by whoever builds the group from ports, never by the API.
    dynamic_portgroup = sa.Column(sa.Boolean, default=False,
                                  server_default=sa.false())


class Port(Base):
    """A NIC of a node, by MAC address (unique across all nodes)."""

    __tablename__ = 'ports'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
        sa.UniqueConstraint('name', name='uniq_ports0name'),
        sa.Index('ports_node_uuid_idx', 'node_uuid'),
        sa.Index('ports_portgroup_uuid_idx', 'portgroup_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    address = sa.Column(sa.String(18), nullable=False)
    name = sa.Column(sa.String(255))
    node_uuid = _node_uuid()
    # SET NULL, not a refusal: MySQL and MariaDB check a key row by row,
    # so deleting a node whose portgroup goes before its ports would be
    # refused; the refusal to delete a portgroup in use is the query's
    # (see resources.destroy_resource).
    portgroup_uuid = sa.Column(sa.String(36), sa.ForeignKey(
        'portgroups.uuid', name='ports_portgroup_uuid_fkey',
        ondelete='SET NULL'))
    local_link_connection = sa.Column(JSONEncoded)
    pxe_enabled = sa.Column(sa.Boolean, nullable=False, default=True)
    physical_network = sa.Column(sa.String(64))
    is_smartnic = sa.Column(sa.Boolean, nullable=False, default=False)
    description = sa.Column(sa.String(255))
    vendor = sa.Column(sa.String(32))
    category = sa.Column(sa.String(80))
    available_for_dynamic_portgroup = sa.Column(
        sa.Boolean, nullable=False, default=True, server_default=sa.true())
    extra = sa.Column(JSONEncoded)
    internal_info = sa.Column(JSONEncoded)


class VolumeConnector(Base):
    """How a node reaches remote volumes (an IQN, a WWPN, ...)."""

    __tablename__ = 'volume_connectors'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_volume_connectors0uuid'),
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volume_connectors0type0connector_id'),
        sa.Index('volume_connectors_node_uuid_idx', 'node_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    node_uuid = _node_uuid()
    type = sa.Column(sa.String(32), nullable=False)
    connector_id = sa.Column(sa.String(255), nullable=False)
    extra = sa.Column(JSONEncoded)


class VolumeTarget(Base):
    """A remote volume a node uses, in boot order (``boot_index``)."""

    __tablename__ = 'volume_targets'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_volume_targets0uuid'),
        sa.UniqueConstraint('node_uuid', 'boot_index',
                            name='uniq_volume_targets0node_uuid0boot_index'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    node_uuid = _node_uuid()
    volume_type = sa.Column(sa.String(64), nullable=False)
    properties = sa.Column(JSONEncoded)
    boot_index = sa.Column(sa.Integer, nullable=False)
    volume_id = sa.Column(sa.String(36), nullable=False)
    extra = sa.Column(JSONEncoded)


class Allocation(Base):
    """A request for a node of a resource class, and the node it got.

    ``node_id`` is unique (a node holds one allocation at most) and has
    no ON DELETE: a node with an allocation is not deleted.  ``traits``
    and ``candidate_nodes`` are JSON lists (candidates as node UUIDs).
    """

    __tablename__ = 'allocations'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
        sa.UniqueConstraint('node_id', name='uniq_allocations0node_id'),
        sa.Index('allocations_state_idx', 'state'),
        sa.Index('allocations_owner_idx', 'owner'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=True)
    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id'),
                        nullable=True)
    state = sa.Column(sa.String(STATE_LENGTH), nullable=False)
    owner = sa.Column(sa.String(255), nullable=True)
    last_error = sa.Column(mysql.Text, nullable=True)
    resource_class = sa.Column(sa.String(80), nullable=True)
    traits = sa.Column(JSONEncoded, nullable=True)
    candidate_nodes = sa.Column(JSONEncoded, nullable=True)
    extra = sa.Column(JSONEncoded, nullable=True)


class NodeStepHistory(Base):
    """One run of one step of a node: what ran, when, and how it ended.

    Written when the step ends (success, failed, aborted, timeout), one
    INSERT; ``flow_run`` groups the steps of one deploy or cleaning.
    ``args`` are stored masked (secrets never reach this table).  Rows go
    with their node (ON DELETE CASCADE); the newest ``[conductor]
    step_history_max_entries`` per node are kept.
    """

    __tablename__ = 'node_step_history'
    __table_args__ = (
        sa.Index('node_step_history_node_id_idx', 'node_id', 'id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    node_id = sa.Column(sa.Integer, sa.ForeignKey('nodes.id',
                                                  ondelete='CASCADE'),
                        nullable=False)
    flow = sa.Column(sa.String(16), nullable=False)
    flow_run = sa.Column(sa.String(36), nullable=False)
    interface = sa.Column(sa.String(255), nullable=False)
    step = sa.Column(sa.String(255), nullable=False)
    args = sa.Column(JSONEncoded)
    priority = sa.Column(sa.Integer)
    started_at = sa.Column(mysql.DateTime, nullable=False)
    finished_at = sa.Column(mysql.DateTime, nullable=False)
    outcome = sa.Column(sa.String(16), nullable=False)
    error = sa.Column(mysql.Text)


# The same options on every table; only MySQL and MariaDB read them.
for _table in Base.metadata.tables.values():
    _table.dialect_kwargs.update(mysql.TABLE_OPTIONS)
