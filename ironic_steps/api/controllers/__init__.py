"""One Flask blueprint per resource of the v1 API."""
