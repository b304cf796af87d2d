"""Add the node field of API 1.95: nodes.disable_power_off (the conductor
never powers the node off; it reboots it instead), false for every
existing node, as Ironic's default.  Services of the previous release
neither read nor write it.

Revision ID: e7a3c5f91b2d
Revises: e7c3a9b52d14
"""

from alembic import op
import sqlalchemy as sa

revision = 'e7a3c5f91b2d'
down_revision = 'e7c3a9b52d14'


def upgrade():
    op.add_column('nodes', sa.Column(
        'disable_power_off', sa.Boolean, nullable=False,
        server_default=sa.false()))
