"""Add nodes.firmware_interface (API 1.86): the node's firmware interface.

Existing nodes get ``no-firmware``: no hardware type could name another
before this revision, and a node whose firmware nobody asked to manage
keeps it unmanaged (its versions are not read) until an operator sets one.

Revision ID: 93d1e23ed9ff
Revises: 9d4b6e1f2a37
"""

from alembic import op
import sqlalchemy as sa

revision = '93d1e23ed9ff'
down_revision = '9d4b6e1f2a37'


def upgrade():
    op.add_column('nodes', sa.Column('firmware_interface', sa.String(255)))
    nodes = sa.table('nodes', sa.column('firmware_interface'))
    op.execute(nodes.update().where(nodes.c.firmware_interface.is_(None))
               .values(firmware_interface='no-firmware'))
