"""What a runbook looks like in the API (from 1.92).

Owns the runbook's public fields, the version each appeared in
(``description`` and ``traits`` at 1.112) and the subset a plain list
shows, as Ironic: ``uuid`` and ``name`` (and links) unless asked for more.
Secrets in the steps' ``args`` are masked.  Which fields a request may
write is :mod:`runbook_schema`'s business.
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view

#: The version runbooks appeared in.
VERSION = v.at(v.MINOR_92_RUNBOOKS)
#: The version runbook traits (and descriptions) appeared in.
TRAITS_VERSION = v.at(v.MINOR_112_RUNBOOK_TRAITS)

FIELDS = ('uuid', 'name', 'description', 'steps', 'disable_ramdisk',
          'public', 'owner', 'extra', 'traits', 'created_at', 'updated_at')

VIEW = view.View(
    'runbooks', FIELDS, min_version=VERSION,
    since={'description': TRAITS_VERSION, 'traits': TRAITS_VERSION},
    list_fields=('uuid', 'name'),
    empty={'extra': dict, 'steps': list, 'traits': list, 'public': bool,
           'disable_ramdisk': bool},
    times=('created_at', 'updated_at'), masked=('steps',))
