"""Create firmware_information: the node's firmware component cache.

Behind ``GET /v1/nodes/{node}/firmware`` (API 1.86), named as Ironic's
table: one row per (node, component), its versions (the first seen, the
current one, the last flashed) and what the BMC says of it (vendor,
model, serial number), deleted with its node (ON DELETE CASCADE).  The
table is new, so services of the previous release never see it.

Revision ID: 814b3ae7aacd
Revises: 93d1e23ed9ff
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '814b3ae7aacd'
down_revision = '93d1e23ed9ff'


def upgrade():
    op.create_table(
        'firmware_information',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('component', sa.String(255), primary_key=True),
        sa.Column('initial_version', sa.String(255), nullable=False),
        sa.Column('current_version', sa.String(255)),
        sa.Column('last_version_flashed', sa.String(255)),
        sa.Column('vendor', sa.String(255)),
        sa.Column('model', sa.String(255)),
        sa.Column('serial_number', sa.String(255)),
        **mysql.TABLE_OPTIONS,
    )
