"""What a deploy template looks like in the API (from 1.55).

Owns the template's public fields and the subset a plain list shows, as
Ironic: a list shows ``uuid`` and ``name`` (and links) unless asked for
more.  Secrets in the steps' ``args`` are masked.  The shared :mod:`view`
machinery turns a :class:`objects.DeployTemplate` into a body; which fields
a request may write is :mod:`template_schema`'s business.
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view

#: The version deploy templates appeared in; every field exists from it.
VERSION = (1, v.MINOR_55_DEPLOY_TEMPLATES)

FIELDS = ('uuid', 'name', 'steps', 'extra', 'created_at', 'updated_at')

VIEW = view.View(
    'deploy_templates', FIELDS, min_version=VERSION,
    list_fields=('uuid', 'name'), empty={'extra': dict, 'steps': list},
    times=('created_at', 'updated_at'), masked=('steps',))
