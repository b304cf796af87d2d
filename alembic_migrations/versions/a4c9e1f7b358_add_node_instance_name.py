"""Add the node field of API 1.104: nodes.instance_name (the name of the
instance deployed on the node), null for every existing node.  Services of
the previous release neither read nor write it.

Revision ID: a4c9e1f7b358
Revises: e7a3c5f91b2d
"""

from alembic import op
import sqlalchemy as sa

revision = 'a4c9e1f7b358'
down_revision = 'e7a3c5f91b2d'


def upgrade():
    op.add_column('nodes', sa.Column('instance_name', sa.String(255)))
