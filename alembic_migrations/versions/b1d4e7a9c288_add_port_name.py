"""Add ports.name (API 1.88): a port's unique name, by which URLs may name
it as they name a portgroup; null (none) for every existing port, which
services of the previous release neither read nor write.

Revision ID: b1d4e7a9c288
Revises: 814b3ae7aacd
"""

from alembic import op
import sqlalchemy as sa

revision = 'b1d4e7a9c288'
down_revision = '814b3ae7aacd'


def upgrade():
    with op.batch_alter_table('ports') as batch:
        batch.add_column(sa.Column('name', sa.String(255)))
        batch.create_unique_constraint('uniq_ports0name', ['name'])
