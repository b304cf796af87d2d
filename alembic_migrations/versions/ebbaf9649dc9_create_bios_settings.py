"""Create bios_settings: the BIOS settings last read from each node.

The cache behind ``/v1/nodes/{node}/bios`` (API 1.40): one row per node
and setting name, deleted with its node (ON DELETE CASCADE).  The table is
new, so services of the previous release never see it.

Revision ID: ebbaf9649dc9
Revises: 4e8a6c2d1f93
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = 'ebbaf9649dc9'
down_revision = '4e8a6c2d1f93'


def upgrade():
    op.create_table(
        'bios_settings',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('name', sa.String(255), primary_key=True),
        sa.Column('value', mysql.Text),
        **mysql.TABLE_OPTIONS,
    )
