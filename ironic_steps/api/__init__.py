"""The REST API: an Ironic-compatible v1, served by :func:`app.create_app`."""
