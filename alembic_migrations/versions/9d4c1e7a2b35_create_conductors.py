"""Create the conductors table: which conductors are alive (hash ring).

Revision ID: 9d4c1e7a2b35
Revises: 7b3e5d2a8f10
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '9d4c1e7a2b35'
down_revision = '7b3e5d2a8f10'


def upgrade():
    op.create_table(
        'conductors',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('hostname', sa.String(255), nullable=False),
        sa.Column('online', sa.Boolean, nullable=False),
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
        **mysql.TABLE_OPTIONS,
    )
