"""Queries on conductors: their rows and what each registered it serves.

Two tables: ``conductors`` (one row per conductor: online or stopped, its
last heartbeat) and ``conductor_hardware_interfaces`` (what a conductor
registered at start).  This module reads and writes them; when a
conductor counts as alive is not its business: callers pass the instant
(see :mod:`ironic_steps.conductor.registry`).

*Served hardware*, as registered and returned here, maps a hardware type
to its interfaces: ``{hardware_type: {interface_type: (name, ...)}}``,
the default implementation first (the shape of
:meth:`~ironic_steps.drivers.hardware_type.AbstractHardwareType.supported`).
"""

import sqlalchemy as sa
from oslo_utils import timeutils

from ironic_steps.common import exception
from ironic_steps.db.sqlalchemy import models
from ironic_steps.db.sqlalchemy import paging

_NODES = models.Node.__table__
_CONDUCTORS = models.Conductor.__table__
_INTERFACES = models.ConductorHardwareInterface.__table__

_SORT_KEYS = frozenset(['id', 'hostname', 'created_at', 'updated_at'])

#: (conductor_id, hardware_type), once per type a conductor serves.
_SERVED_TYPES = sa.select(_INTERFACES.c.conductor_id,
                          _INTERFACES.c.hardware_type).distinct().subquery()


def _interface_rows(conductor_id, hardware, now):
    return [{'conductor_id': conductor_id, 'hardware_type': hardware_type,
             'interface_type': interface_type, 'interface_name': name,
             'is_default': position == 0, 'created_at': now}
            for hardware_type, interfaces in hardware.items()
            for interface_type, names in interfaces.items()
            for position, name in enumerate(names)]


class ConductorQueries:
    """A mixin of the database API's ``Connection``, which provides
    ``read_one()``, ``write_one()`` and ``writer()``.  Conductor rows come
    back read-only, their attributes the ``conductors`` columns."""

    # --- a conductor's own registration ----------------------------------

    def register_conductor(self, hostname, hardware=None):
        """Mark ``hostname`` online now, creating its row if needed.

        :param hardware: served hardware (see the module docstring) that
            replaces what the conductor registered before, in the same
            transaction; None leaves the table untouched (a conductor
            pinned to a release without it).
        """
        now = timeutils.utcnow()
        with self.writer() as connection:
            result = connection.execute(
                sa.update(_CONDUCTORS)
                .where(_CONDUCTORS.c.hostname == hostname)
                .values(online=True, updated_at=now))
            if result.rowcount == 0:
                connection.execute(sa.insert(_CONDUCTORS).values(
                    hostname=hostname, online=True, updated_at=now))
            if hardware is None:
                return
            conductor_id = connection.execute(
                sa.select(_CONDUCTORS.c.id).where(
                    _CONDUCTORS.c.hostname == hostname)).scalar_one()
            connection.execute(sa.delete(_INTERFACES).where(
                _INTERFACES.c.conductor_id == conductor_id))
            rows = _interface_rows(conductor_id, hardware, now)
            if rows:
                connection.execute(sa.insert(_INTERFACES), rows)

    def touch_conductor(self, hostname):
        with self.write_one() as connection:
            connection.execute(
                sa.update(_CONDUCTORS)
                .where(_CONDUCTORS.c.hostname == hostname)
                .values(online=True, updated_at=timeutils.utcnow()))

    def unregister_conductor(self, hostname):
        with self.write_one() as connection:
            connection.execute(
                sa.update(_CONDUCTORS)
                .where(_CONDUCTORS.c.hostname == hostname)
                .values(online=False))

    # --- liveness, given the instant -------------------------------------

    def get_dead_conductors(self, seen_before):
        """Hostnames that went offline or last heartbeat before a time.

        Only conductors still holding node locks matter to the caller, so
        only those are returned.
        """
        with self.read_one() as connection:
            return sorted(connection.execute(
                sa.select(_CONDUCTORS.c.hostname).where(
                    sa.or_(_CONDUCTORS.c.online.is_(False),
                           _CONDUCTORS.c.updated_at < seen_before),
                    _CONDUCTORS.c.hostname.in_(
                        sa.select(_NODES.c.reservation).where(
                            _NODES.c.reservation.is_not(None))))
            ).scalars())

    def get_online_conductor_hardware_types(self, seen_after):
        """{hostname: sorted hardware types it registered} of the
        conductors online with a heartbeat later than ``seen_after``, in
        one query; a conductor that registered none maps to []."""
        query = (sa.select(_CONDUCTORS.c.hostname,
                           _SERVED_TYPES.c.hardware_type)
                 .select_from(_CONDUCTORS.outerjoin(
                     _SERVED_TYPES,
                     _SERVED_TYPES.c.conductor_id == _CONDUCTORS.c.id))
                 .where(_CONDUCTORS.c.online.is_(True),
                        _CONDUCTORS.c.updated_at > seen_after))
        served = {}
        with self.read_one() as connection:
            for hostname, hardware_type in connection.execute(query):
                types = served.setdefault(hostname, [])
                if hardware_type is not None:
                    types.append(hardware_type)
        return {hostname: sorted(types) for hostname, types in served.items()}

    def get_hardware_type_interfaces(self, hardware_type, hostnames):
        """The interfaces ``hostnames`` registered for ``hardware_type``:
        {interface_type: (name, ...)}, each type's default first and the
        others by name; a name that is the default on any of them counts
        as the default (they are meant to agree)."""
        query = (sa.select(_INTERFACES.c.interface_type,
                           _INTERFACES.c.interface_name,
                           sa.func.max(sa.cast(_INTERFACES.c.is_default,
                                               sa.Integer)))
                 .join(_CONDUCTORS,
                       _CONDUCTORS.c.id == _INTERFACES.c.conductor_id)
                 .where(_INTERFACES.c.hardware_type == hardware_type,
                        _CONDUCTORS.c.hostname.in_(list(hostnames)))
                 .group_by(_INTERFACES.c.interface_type,
                           _INTERFACES.c.interface_name))
        with self.read_one() as connection:
            rows = connection.execute(query).all()
        interfaces = {}
        for interface_type, name, is_default in sorted(
                rows, key=lambda row: (row[0], not row[2], row[1])):
            interfaces.setdefault(interface_type, []).append(name)
        return {kind: tuple(names) for kind, names in interfaces.items()}

    # --- conductors as the API lists them ----------------------------------

    def get_conductor(self, hostname):
        """The row of the conductor called ``hostname``, alive or not.

        :raises ConductorNotFound:
        """
        with self.read_one() as connection:
            row = connection.execute(sa.select(_CONDUCTORS).where(
                _CONDUCTORS.c.hostname == hostname)).one_or_none()
        if row is None:
            raise exception.ConductorNotFound(conductor=hostname)
        return row

    def get_conductor_list(self, limit=None, marker=None, sort_key='id',
                           sort_dir='asc'):
        """Every conductor ever registered, alive or not, one page of them.

        :param marker: the conductor (a row or object) the previous page
            ended with.
        """
        query = paging.page(sa.select(_CONDUCTORS), _CONDUCTORS, _SORT_KEYS,
                            'conductors', limit=limit, marker=marker,
                            sort_key=sort_key, sort_dir=sort_dir)
        with self.read_one() as connection:
            return connection.execute(query).all()

    def get_conductor_hardware_types(self, conductor_ids):
        """{conductor id: sorted hardware types it registered}, in one
        query; conductors that registered none are absent."""
        query = sa.select(_SERVED_TYPES).where(
            _SERVED_TYPES.c.conductor_id.in_(list(conductor_ids)))
        served = {}
        with self.read_one() as connection:
            for conductor_id, hardware_type in connection.execute(query):
                served.setdefault(conductor_id, []).append(hardware_type)
        return {conductor_id: sorted(types)
                for conductor_id, types in served.items()}
