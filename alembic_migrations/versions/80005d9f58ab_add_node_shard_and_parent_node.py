"""Add the node fields of API 1.82-1.83: nodes.shard (the shard a node
belongs to) and nodes.parent_node (the UUID of the node it is part of),
each indexed for its list filter; null (none) for every existing node.

Revision ID: 80005d9f58ab
Revises: 5c0bd2215f21
"""

from alembic import op
import sqlalchemy as sa

revision = '80005d9f58ab'
down_revision = '5c0bd2215f21'


def upgrade():
    op.add_column('nodes', sa.Column('shard', sa.String(255)))
    op.add_column('nodes', sa.Column('parent_node', sa.String(36)))
    op.create_index('nodes_shard_idx', 'nodes', ['shard'])
    op.create_index('nodes_parent_node_idx', 'nodes', ['parent_node'])
