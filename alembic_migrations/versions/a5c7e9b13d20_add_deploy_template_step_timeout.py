"""Add deploy_template_steps.timeout: a template step's time limit.

Seconds, overriding the one its driver declares (the x-steps extension,
release 0.6); NULL, as every existing step gets, keeps the driver's.
Services of the previous release neither read nor write it.

Revision ID: a5c7e9b13d20
Revises: 3a7d2e9c5b14
"""

from alembic import op
import sqlalchemy as sa

revision = 'a5c7e9b13d20'
down_revision = '3a7d2e9c5b14'


def upgrade():
    op.add_column('deploy_template_steps',
                  sa.Column('timeout', sa.Double, nullable=True))
