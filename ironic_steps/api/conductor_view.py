"""What a conductor looks like in the API (from 1.49).

A conductor shows its ``hostname``, ``conductor_group`` (always ``""``:
ironic-steps does not group conductors), ``alive`` (see
:mod:`ironic_steps.objects.conductor`) and, in detail, the ``drivers`` it
serves (every enabled hardware type while it is alive) and its times.  The
shared :mod:`view` machinery turns a :class:`objects.Conductor` into a
body; a conductor is named by its hostname in URLs.
"""

from ironic_steps.api import versions as v
from ironic_steps.api import view

#: The version conductors appeared in; every field exists from it.
VERSION = v.at(v.MINOR_49_CONDUCTORS)

FIELDS = ('hostname', 'conductor_group', 'alive', 'drivers', 'created_at',
          'updated_at')

VIEW = view.View(
    'conductors', FIELDS, min_version=VERSION,
    list_fields=('hostname', 'conductor_group', 'alive'),
    times=('created_at', 'updated_at'),
    computed=('conductor_group', 'drivers'), key='hostname')


def computer(drivers):
    """The ``compute`` of conductor bodies, ``drivers`` being the enabled
    hardware types (what a live conductor serves)."""
    def compute(conductor, field):
        if field == 'drivers':
            return list(drivers) if conductor.alive else []
        return ''
    return compute
