"""Create node_step_history: every step run of a node, bounded per node.

One row per step run (deploy or clean), written when the step ends; the
step's start rides on the node save that records it as current.  The
table is new, so services of the previous release never see it, and
conductors pinned to it write nothing here.  Rows go with their node
(ON DELETE CASCADE).

Revision ID: 3a7d9e2c5b81
Revises: a5c7e9b13d20
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '3a7d9e2c5b81'
down_revision = 'a5c7e9b13d20'


def upgrade():
    op.create_table(
        'node_step_history',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('flow', sa.String(16), nullable=False),
        sa.Column('flow_run', sa.String(36), nullable=False),
        sa.Column('interface', sa.String(255), nullable=False),
        sa.Column('step', sa.String(255), nullable=False),
        sa.Column('args', mysql.Text),
        sa.Column('priority', sa.Integer),
        sa.Column('started_at', mysql.DateTime, nullable=False),
        sa.Column('finished_at', mysql.DateTime, nullable=False),
        sa.Column('outcome', sa.String(16), nullable=False),
        sa.Column('error', mysql.Text),
        sa.Index('node_step_history_node_id_idx', 'node_id', 'id'),
        **mysql.TABLE_OPTIONS,
    )
