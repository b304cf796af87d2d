"""Add nodes.boot_mode and nodes.secure_boot: what the node's BMC last
reported (API 1.75); null until a conductor has read them.

Revision ID: c4e1a7d5b920
Revises: 3a7d9e2c5b81
"""

from alembic import op
import sqlalchemy as sa

revision = 'c4e1a7d5b920'
down_revision = '3a7d9e2c5b81'


def upgrade():
    op.add_column('nodes', sa.Column('boot_mode', sa.String(16)))
    op.add_column('nodes', sa.Column('secure_boot', sa.Boolean))
