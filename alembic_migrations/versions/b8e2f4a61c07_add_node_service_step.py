"""Add nodes.service_step: the service step running now, or the one that
failed (API 1.87); null for every existing node.

Revision ID: b8e2f4a61c07
Revises: 80005d9f58ab
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = 'b8e2f4a61c07'
down_revision = '80005d9f58ab'


def upgrade():
    op.add_column('nodes', sa.Column('service_step', mysql.Text))
