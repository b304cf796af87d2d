"""Add the node field of API 1.109: nodes.health (the server's overall
health as its BMC last reported it: OK, Warning or Critical), null for
every existing node until read.  Services of the previous release neither
read nor write it.

Revision ID: c7d2f4a9e613
Revises: a4c9e1f7b358
"""

from alembic import op
import sqlalchemy as sa

revision = 'c7d2f4a9e613'
down_revision = 'a4c9e1f7b358'


def upgrade():
    op.add_column('nodes', sa.Column('health', sa.String(32)))
