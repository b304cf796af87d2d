"""Add nodes.deploy_step: the deploy step running now, or the one that failed.

Revision ID: 7b3e5d2a8f10
Revises: 2c1f0b4d9e01
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '7b3e5d2a8f10'
down_revision = '2c1f0b4d9e01'


def upgrade():
    op.add_column('nodes', sa.Column('deploy_step', mysql.Text))
