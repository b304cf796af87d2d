"""Create node_inventory: what each node's last inspection found.

Behind ``GET /v1/nodes/{node}/inventory`` (API 1.81): one row per node,
its inventory and plugin data (JSON), replaced by every inspection and
deleted with its node (ON DELETE CASCADE).  The table is new, so services
of the previous release never see it.

Revision ID: 5c0bd2215f21
Revises: 7e7ad8d4ad75
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '5c0bd2215f21'
down_revision = '7e7ad8d4ad75'


def upgrade():
    op.create_table(
        'node_inventory',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('inventory_data', mysql.Text, nullable=False),
        sa.Column('plugin_data', mysql.Text, nullable=False),
        **mysql.TABLE_OPTIONS,
    )
