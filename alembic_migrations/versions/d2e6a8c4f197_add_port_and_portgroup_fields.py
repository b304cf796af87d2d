"""Add the port and portgroup fields of API 1.97-1.111: ports.description,
vendor, category and available_for_dynamic_portgroup (true for every
existing port, as Ironic's default), portgroups.physical_network,
category and dynamic_portgroup (false for every existing portgroup);
the others null.  Services of the previous release neither read nor
write them.

Revision ID: d2e6a8c4f197
Revises: b1d4e7a9c288
"""

from alembic import op
import sqlalchemy as sa

revision = 'd2e6a8c4f197'
down_revision = 'b1d4e7a9c288'


def upgrade():
    op.add_column('ports', sa.Column('description', sa.String(255)))
    op.add_column('ports', sa.Column('vendor', sa.String(32)))
    op.add_column('ports', sa.Column('category', sa.String(80)))
    op.add_column('ports', sa.Column(
        'available_for_dynamic_portgroup', sa.Boolean, nullable=False,
        server_default=sa.true()))
    op.add_column('portgroups', sa.Column('physical_network',
                                          sa.String(64)))
    op.add_column('portgroups', sa.Column('category', sa.String(80)))
    op.add_column('portgroups', sa.Column(
        'dynamic_portgroup', sa.Boolean, server_default=sa.false()))
