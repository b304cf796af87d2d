"""The database API: every query ironic-steps makes, behind one object.

Callers (the objects layer) get the backend from :func:`get_instance`; only
the SQLAlchemy backend exists, selected by ``[database] connection``.
"""

from ironic_steps.db.sqlalchemy import api as sqlalchemy_api


def get_instance():
    """The database API object (a :class:`~.sqlalchemy.api.Connection`)."""
    return sqlalchemy_api.get_backend()
