"""Create chassis, portgroups, ports and volume connectors and targets.

The resources around a node (release 0.6): a node's ports, portgroups and
volume records name it by UUID and go with it (ON DELETE CASCADE), so
deleting a node deletes them in its own statement; ``nodes.chassis_uuid``
keeps a chassis in use from being deleted.  The tables are new and the
node column null, so services of the previous release never see them.

Revision ID: 3a7d5e9c2b14
Revises: f8cd5fbcbc5e
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '3a7d5e9c2b14'
down_revision = 'f8cd5fbcbc5e'


def _times():
    return [sa.Column('created_at', mysql.DateTime),
            sa.Column('updated_at', mysql.DateTime)]


def _node_uuid():
    return sa.Column('node_uuid', sa.String(36),
                     sa.ForeignKey('nodes.uuid', ondelete='CASCADE'),
                     nullable=False)


def upgrade():
    op.create_table(
        'chassis', *_times(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('description', sa.String(255)),
        sa.Column('extra', mysql.Text),
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
        **mysql.TABLE_OPTIONS,
    )
    # Not a batch, which would copy the nodes table (and on SQLite cascade
    # away their traits on the way): SQLite adds a null column with its
    # REFERENCES in place, which alembic does not offer; the others add
    # the key after the column.
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE nodes ADD COLUMN chassis_uuid VARCHAR(36) '
                   'CONSTRAINT nodes_chassis_uuid_fkey '
                   'REFERENCES chassis (uuid)')
    else:
        op.add_column('nodes', sa.Column('chassis_uuid', sa.String(36)))
        op.create_foreign_key('nodes_chassis_uuid_fkey', 'nodes', 'chassis',
                              ['chassis_uuid'], ['uuid'])
    op.create_index('nodes_chassis_uuid_idx', 'nodes', ['chassis_uuid'])
    op.create_table(
        'portgroups', *_times(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('address', sa.String(18)),
        _node_uuid(),
        sa.Column('standalone_ports_supported', sa.Boolean, nullable=False),
        sa.Column('mode', sa.String(255)),
        sa.Column('properties', mysql.Text),
        sa.Column('extra', mysql.Text),
        sa.Column('internal_info', mysql.Text),
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.Index('portgroups_node_uuid_idx', 'node_uuid'),
        **mysql.TABLE_OPTIONS,
    )
    op.create_table(
        'ports', *_times(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('address', sa.String(18), nullable=False),
        _node_uuid(),
        sa.Column('portgroup_uuid', sa.String(36),
                  sa.ForeignKey('portgroups.uuid',
                                name='ports_portgroup_uuid_fkey',
                                ondelete='SET NULL')),
        sa.Column('local_link_connection', mysql.Text),
        sa.Column('pxe_enabled', sa.Boolean, nullable=False),
        sa.Column('physical_network', sa.String(64)),
        sa.Column('is_smartnic', sa.Boolean, nullable=False),
        sa.Column('extra', mysql.Text),
        sa.Column('internal_info', mysql.Text),
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
        sa.Index('ports_node_uuid_idx', 'node_uuid'),
        sa.Index('ports_portgroup_uuid_idx', 'portgroup_uuid'),
        **mysql.TABLE_OPTIONS,
    )
    op.create_table(
        'volume_connectors', *_times(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        _node_uuid(),
        sa.Column('type', sa.String(32), nullable=False),
        sa.Column('connector_id', sa.String(255), nullable=False),
        sa.Column('extra', mysql.Text),
        sa.UniqueConstraint('uuid', name='uniq_volume_connectors0uuid'),
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volume_connectors0type0connector_id'),
        sa.Index('volume_connectors_node_uuid_idx', 'node_uuid'),
        **mysql.TABLE_OPTIONS,
    )
    op.create_table(
        'volume_targets', *_times(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        _node_uuid(),
        sa.Column('volume_type', sa.String(64), nullable=False),
        sa.Column('properties', mysql.Text),
        sa.Column('boot_index', sa.Integer, nullable=False),
        sa.Column('volume_id', sa.String(36), nullable=False),
        sa.Column('extra', mysql.Text),
        sa.UniqueConstraint('uuid', name='uniq_volume_targets0uuid'),
        sa.UniqueConstraint('node_uuid', 'boot_index',
                            name='uniq_volume_targets0node_uuid0boot_index'),
        **mysql.TABLE_OPTIONS,
    )
