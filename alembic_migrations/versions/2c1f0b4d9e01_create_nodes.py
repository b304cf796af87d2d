"""Create the nodes table, as it was before deploy steps.

Revision ID: 2c1f0b4d9e01
Revises: None
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '2c1f0b4d9e01'
down_revision = None


def upgrade():
    op.create_table(
        'nodes',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('driver', sa.String(255), nullable=False),
        sa.Column('resource_class', sa.String(80)),
        sa.Column('instance_uuid', sa.String(36)),
        sa.Column('provision_state', sa.String(15), nullable=False),
        sa.Column('target_provision_state', sa.String(15)),
        sa.Column('provision_updated_at', mysql.DateTime),
        sa.Column('power_state', sa.String(15)),
        sa.Column('target_power_state', sa.String(15)),
        sa.Column('maintenance', sa.Boolean, nullable=False),
        sa.Column('maintenance_reason', mysql.Text),
        sa.Column('last_error', mysql.Text),
        sa.Column('reservation', sa.String(255)),
        sa.Column('clean_step', mysql.Text),
        sa.Column('driver_info', mysql.Text),
        sa.Column('driver_internal_info', mysql.Text),
        sa.Column('instance_info', mysql.Text),
        sa.Column('properties', mysql.Text),
        sa.Column('extra', mysql.Text),
        sa.Column('bios_interface', sa.String(255)),
        sa.Column('boot_interface', sa.String(255)),
        sa.Column('deploy_interface', sa.String(255)),
        sa.Column('management_interface', sa.String(255)),
        sa.Column('power_interface', sa.String(255)),
        sa.Column('raid_interface', sa.String(255)),
        sa.Column('vendor_interface', sa.String(255)),
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        **mysql.TABLE_OPTIONS,
    )
    op.create_index('nodes_provision_state_idx', 'nodes', ['provision_state'])
    op.create_index('nodes_reservation_idx', 'nodes', ['reservation'])
    op.create_index('nodes_resource_class_idx', 'nodes', ['resource_class'])
