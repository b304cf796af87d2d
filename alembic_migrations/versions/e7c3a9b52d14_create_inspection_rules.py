"""Create inspection_rules: what to do with a node once it is inspected.

Behind ``/v1/inspection_rules`` (API 1.96, release 0.13): a rule's UUID,
description, priority, sensitive flag, phase, and its conditions and
actions (each one JSON list, in order).  The table is new, so services of
the previous release never see it.

Revision ID: e7c3a9b52d14
Revises: d2e6a8c4f197
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = 'e7c3a9b52d14'
down_revision = 'd2e6a8c4f197'


def upgrade():
    op.create_table(
        'inspection_rules',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('priority', sa.Integer, nullable=False),
        sa.Column('sensitive', sa.Boolean, nullable=False),
        sa.Column('phase', sa.String(16), nullable=False),
        sa.Column('conditions', mysql.Text, nullable=False),
        sa.Column('actions', mysql.Text, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_inspection_rules0uuid'),
        sa.Index('inspection_rules_phase_idx', 'phase'),
        **mysql.TABLE_OPTIONS,
    )
