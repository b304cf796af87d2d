"""Add the node fields of API 1.1-1.66: RAID, ownership, protection,
retirement, network data and the interfaces ironic-steps does not run.

Existing nodes get the no-op implementations of the new interface types
(``no-console``, ``no-inspect``, ``noop``, ``no-rescue``, ``noop``): no
hardware type could name others before this revision.

Revision ID: 4e8a6c2d1f93
Revises: 4f2a9c8e1b63
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '4e8a6c2d1f93'
down_revision = '4f2a9c8e1b63'

_NOOP_INTERFACES = {
    'console_interface': 'no-console',
    'inspect_interface': 'no-inspect',
    'network_interface': 'noop',
    'rescue_interface': 'no-rescue',
    'storage_interface': 'noop',
}


def upgrade():
    columns = [
        sa.Column('fault', sa.String(255)),
        sa.Column('console_enabled', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('inspection_started_at', mysql.DateTime),
        sa.Column('inspection_finished_at', mysql.DateTime),
        sa.Column('conductor_group', sa.String(255), nullable=False,
                  server_default=sa.text("''")),
        sa.Column('automated_clean', sa.Boolean),
        sa.Column('protected', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('protected_reason', mysql.Text),
        sa.Column('owner', sa.String(255)),
        sa.Column('lessee', sa.String(255)),
        sa.Column('description', mysql.Text),
        sa.Column('retired', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('retired_reason', mysql.Text),
        sa.Column('raid_config', mysql.Text),
        sa.Column('target_raid_config', mysql.Text),
        sa.Column('network_data', mysql.Text),
    ] + [sa.Column(name, sa.String(255)) for name in _NOOP_INTERFACES]
    for column in columns:
        op.add_column('nodes', column)
    op.create_index('nodes_conductor_group_idx', 'nodes', ['conductor_group'])
    op.create_index('nodes_owner_idx', 'nodes', ['owner'])
    op.create_index('nodes_lessee_idx', 'nodes', ['lessee'])
    nodes = sa.table('nodes', *(sa.column(name) for name in _NOOP_INTERFACES))
    for name, value in _NOOP_INTERFACES.items():
        op.execute(nodes.update().where(nodes.c[name].is_(None))
                   .values({name: value}))
