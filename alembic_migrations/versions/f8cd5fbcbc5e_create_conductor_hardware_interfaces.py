"""Create conductor_hardware_interfaces: what each conductor serves.

The hardware types a conductor serves and, per type, the interface
implementations it offers (the default marked), as it registered them at
start; ``/v1/drivers``, ``/v1/conductors`` and the hash ring read them
through the conductor registry.  The table is new, so services of the
previous release never see it, and conductors pinned to it write nothing
here (readers then fall back to their own configuration).

Revision ID: f8cd5fbcbc5e
Revises: ebbaf9649dc9
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = 'f8cd5fbcbc5e'
down_revision = 'ebbaf9649dc9'


def upgrade():
    op.create_table(
        'conductor_hardware_interfaces',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('conductor_id', sa.Integer,
                  sa.ForeignKey('conductors.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('hardware_type', sa.String(255), primary_key=True),
        sa.Column('interface_type', sa.String(16), primary_key=True),
        sa.Column('interface_name', sa.String(255), primary_key=True),
        sa.Column('is_default', sa.Boolean, nullable=False),
        **mysql.TABLE_OPTIONS,
    )
