"""ironic-steps database migrations (alembic).

Installed as a package of its own so that ironic-steps finds them through
the import system, wherever it is installed.

Times, long text and tables take their types and options from
``ironic_steps.db.sqlalchemy.mysql`` (microseconds, no 64 KiB limit, utf8mb4
with a binary collation on MySQL and MariaDB; plain DateTime and Text
elsewhere): a migration must build the same schema on every database.
"""

#: Checked by ironic_steps.db.migration: another project's module with the
#: same name must not be mistaken for ours.
OWNER = 'ironic-steps'
