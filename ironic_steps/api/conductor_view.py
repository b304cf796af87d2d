"""What a conductor looks like in the API (from 1.49).

A conductor shows its ``hostname``, ``conductor_group`` (always ``""``:
ironic-steps does not group conductors), ``alive`` and, in detail, the
``drivers`` it serves (the hardware types it registered, while it is
alive) and its times; liveness and what a conductor serves are the
conductor registry's answers (:mod:`ironic_steps.conductor.registry`).
The shared :mod:`view` machinery turns a :class:`objects.Conductor` into
a body; a conductor is named by its hostname in URLs.
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
    computed=('conductor_group', 'alive', 'drivers'), key='hostname')


def computer(live):
    """The ``compute`` of conductor bodies, from the live conductors as
    read once for the request (a registry ``LiveConductors``)."""
    def compute(conductor, field):
        if field == 'drivers':
            return live.drivers_of(conductor.hostname)
        if field == 'alive':
            return live.is_alive(conductor.hostname)
        return ''
    return compute
