"""ironic-steps database migrations (alembic).

Installed as a package of its own so that ironic-steps finds them through
the import system, wherever it is installed.
"""

#: Checked by ironic_steps.db.migration: another project's module with the
#: same name must not be mistaken for ours.
OWNER = 'ironic-steps'
