"""What an allocation looks like in the API (from 1.52).

Owns the allocation's public fields and the version each appeared in
(``owner`` from 1.60); unlike nodes, a list shows whole allocations
unless ``?fields`` says otherwise, as Ironic's does (there is no
``/detail``).  ``node_uuid`` is the node the allocation holds, null until
it holds one.  The shared :mod:`view` machinery turns a
:class:`objects.Allocation` into a body; which fields a request may
write is :mod:`allocation_schema`'s business.
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view

#: The version allocations appeared in.
VERSION = v.at(v.MINOR_52_ALLOCATION)
#: The release that serves them: pinned before it, they do not exist.
RELEASE = '0.6'

FIELDS = ('uuid', 'name', 'node_uuid', 'state', 'last_error',
          'resource_class', 'traits', 'candidate_nodes', 'extra', 'owner',
          'created_at', 'updated_at')

VIEW = view.View(
    'allocations', FIELDS, min_version=VERSION,
    since={'owner': v.at(v.MINOR_60_ALLOCATION_OWNER)},
    empty={'extra': dict, 'traits': list, 'candidate_nodes': list},
    times=('created_at', 'updated_at'))
