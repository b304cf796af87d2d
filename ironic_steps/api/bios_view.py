"""What a node's BIOS setting looks like in the API (from 1.40).

A setting shows ``created_at``, ``updated_at`` (null until its value first
changes), ``name``, ``value`` and its links, under its node's UUID
(``/v1/nodes/{uuid}/bios/{name}``), as Ironic shows it.  From 1.74 it also
has the registry facts of :mod:`ironic_steps.common.bios_registry`
(``attribute_type``, ``allowable_values``, bounds, lengths, flags; null
where unknown, but ``allowable_values`` ``[]``, as Ironic shows them):

* one setting shows every field;
* a plain list shows :data:`LIST_FIELDS`; ``?detail=true`` every field;
  ``?fields=`` the named ones, always with ``created_at`` and
  ``updated_at`` (:data:`ALWAYS_LISTED`), as Ironic does.

The shared :mod:`view` machinery turns a :class:`objects.BIOSSetting` into
a body and refuses field names that do not exist (400) or not yet at the
request's version (406); where the settings come from is the BIOS
interface's business (see :mod:`ironic_steps.drivers.bios`).
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view
from ironic_steps.common import bios_registry
from ironic_steps import objects

#: The version a node's BIOS settings appeared in.
VERSION = v.at(v.MINOR_40_BIOS_INTERFACE)
#: The version that added the registry facts, ``?detail`` and ``?fields``.
REGISTRY_VERSION = v.at(v.MINOR_74_BIOS_REGISTRY)

#: What a plain list shows of each setting (and all there is below 1.74).
LIST_FIELDS = ('created_at', 'updated_at', 'name', 'value')
#: What a list shows whatever ``?fields`` names.
ALWAYS_LISTED = ('created_at', 'updated_at')

FIELDS = LIST_FIELDS + bios_registry.FIELDS

VIEW = view.View(
    'bios', FIELDS, min_version=VERSION,
    since=dict.fromkeys(bios_registry.FIELDS, REGISTRY_VERSION),
    list_fields=LIST_FIELDS, empty={'allowable_values': list},
    times=('created_at', 'updated_at'), key='name',
    unknown_while_pinned=objects.BIOSSetting.fields_unknown_under_pin,
    detail_query_since=REGISTRY_VERSION)


def parent(node_uuid):
    """The path the settings of the node ``node_uuid`` are under."""
    return 'nodes/' + node_uuid
