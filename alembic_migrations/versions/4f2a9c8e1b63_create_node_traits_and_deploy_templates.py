"""Create node_traits, deploy_templates and deploy_template_steps.

Node traits (API 1.37) and deploy templates (API 1.55): the tables are
new, so services of the previous release never see them.

Revision ID: 4f2a9c8e1b63
Revises: 9d4c1e7a2b35
"""

from alembic import op
import sqlalchemy as sa

from ironic_steps.db.sqlalchemy import mysql

revision = '4f2a9c8e1b63'
down_revision = '9d4c1e7a2b35'


def upgrade():
    op.create_table(
        'node_traits',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('trait', sa.String(255), primary_key=True),
        **mysql.TABLE_OPTIONS,
    )
    op.create_table(
        'deploy_templates',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('extra', mysql.Text),
        sa.UniqueConstraint('uuid', name='uniq_deploy_templates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploy_templates0name'),
        **mysql.TABLE_OPTIONS,
    )
    op.create_table(
        'deploy_template_steps',
        sa.Column('created_at', mysql.DateTime),
        sa.Column('updated_at', mysql.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('deploy_template_id', sa.Integer,
                  sa.ForeignKey('deploy_templates.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('interface', sa.String(255), nullable=False),
        sa.Column('step', sa.String(255), nullable=False),
        sa.Column('args', mysql.Text, nullable=False),
        sa.Column('priority', sa.Integer, nullable=False),
        **mysql.TABLE_OPTIONS,
    )
    op.create_index('deploy_template_steps_template_id_idx',
                    'deploy_template_steps', ['deploy_template_id'])
