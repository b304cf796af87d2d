"""Create runbooks and runbook_traits: named step lists and who may run them.

Behind ``/v1/runbooks`` (API 1.92, 1.112, release 0.12): a runbook's
name, description, steps (one JSON list, in order), disable_ramdisk,
public, owner and extra; its traits one row each, deleted with it (ON
DELETE CASCADE).  The tables are new, so services of the previous release
never see them.

Revision ID: 9d4b6e1f2a37
Revises: b8e2f4a61c07
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '9d4b6e1f2a37'
down_revision = 'b8e2f4a61c07'


def upgrade():
    op.create_table(
        'runbooks',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('steps', mysql.Text, nullable=False),
        sa.Column('disable_ramdisk', sa.Boolean, nullable=False),
        sa.Column('public', sa.Boolean, nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('extra', mysql.Text),
        sa.UniqueConstraint('uuid', name='uniq_runbooks0uuid'),
        sa.UniqueConstraint('name', name='uniq_runbooks0name'),
        sa.Index('runbooks_owner_idx', 'owner'),
        **mysql.TABLE_OPTIONS,
    )
    op.create_table(
        'runbook_traits',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('runbook_id', sa.Integer,
                  sa.ForeignKey('runbooks.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('trait', sa.String(255), primary_key=True),
        **mysql.TABLE_OPTIONS,
    )
