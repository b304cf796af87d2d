"""Create allocations: requests for a node, and the node each was given.

Behind ``/v1/allocations`` (API 1.52): an allocation asks for an
available node of a resource class (and traits, candidates, owner); once
a conductor finds one, ``node_id`` names it.  A node holds at most one
allocation (the unique ``node_id``), and a node with one cannot be
deleted (the foreign key has no ON DELETE, so the database refuses too).
The table is new, so services of the previous release never see it, and
services pinned to it write nothing here.

Revision ID: 3a7d2e9c5b14
Revises: 3a7d5e9c2b14
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '3a7d2e9c5b14'
down_revision = '3a7d5e9c2b14'


def upgrade():
    op.create_table(
        'allocations',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer, sa.ForeignKey('nodes.id'),
                  nullable=True),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('last_error', mysql.Text, nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('traits', mysql.Text, nullable=True),
        sa.Column('candidate_nodes', mysql.Text, nullable=True),
        sa.Column('extra', mysql.Text, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
        sa.UniqueConstraint('node_id', name='uniq_allocations0node_id'),
        sa.Index('allocations_state_idx', 'state'),
        sa.Index('allocations_owner_idx', 'owner'),
        **mysql.TABLE_OPTIONS,
    )
