"""What a node's BIOS setting looks like in the API (from 1.40).

A setting shows ``created_at``, ``updated_at`` (null until its value first
changes), ``name``, ``value`` and its links, under its node's UUID
(``/v1/nodes/{uuid}/bios/{name}``), as Ironic shows it up to 1.73.  The
BIOS registry fields and the ``?fields`` and ``?detail`` of Ironic's 1.74
are beyond this API's maximum.  The shared :mod:`view` machinery turns a
:class:`objects.BIOSSetting` into a body; where the settings come from is
the BIOS interface's business (see :mod:`ironic_steps.drivers.bios`).
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view

#: The version a node's BIOS settings appeared in; every field exists
#: from it.
VERSION = v.at(v.MINOR_40_BIOS_INTERFACE)

FIELDS = ('created_at', 'updated_at', 'name', 'value')

VIEW = view.View('bios', FIELDS, min_version=VERSION,
                 times=('created_at', 'updated_at'), key='name')


def parent(node_uuid):
    """The path the settings of the node ``node_uuid`` are under."""
    return 'nodes/' + node_uuid
