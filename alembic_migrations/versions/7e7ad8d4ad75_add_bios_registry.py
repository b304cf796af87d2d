"""Add the registry columns to bios_settings: what the BMC's attribute
registry says of each cached setting (API 1.74; BIOSSetting 1.1).

``attribute_type``, ``allowable_values`` (a JSON list), ``lower_bound``,
``max_length``, ``min_length``, ``read_only``, ``reset_required``,
``unique`` and ``upper_bound``, all nullable: existing settings keep their
values with every fact unknown (NULL) until their BIOS interface next
caches them, and services of the previous release never write them.

Revision ID: 7e7ad8d4ad75
Revises: c4e1a7d5b920
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '7e7ad8d4ad75'
down_revision = 'c4e1a7d5b920'


def upgrade():
    for column in (sa.Column('attribute_type', sa.String(255)),
                   sa.Column('allowable_values', mysql.Text),
                   sa.Column('lower_bound', sa.BigInteger),
                   sa.Column('max_length', sa.Integer),
                   sa.Column('min_length', sa.Integer),
                   sa.Column('read_only', sa.Boolean),
                   sa.Column('reset_required', sa.Boolean),
                   sa.Column('unique', sa.Boolean),
                   sa.Column('upper_bound', sa.BigInteger)):
        op.add_column('bios_settings', column)
